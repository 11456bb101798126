"""Run the stub server as a process: ``python -m accord.testing.stub --policy NAME``.

Prints one JSON line ``{"base_url": ..., "root_url": ..., "pid": ...}`` on stdout when
ready, then serves until it is terminated (SIGTERM, Ctrl-C), or with
``--exit-on-stdin-eof`` until its stdin closes (how benchmarks tie its life to theirs, so
the client's CPU time is measured without the server's).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import threading
from typing import Any

import yaml

from accord.testing.stub.policies import make_policy
from accord.testing.stub.server import StubServer


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, serve, and return the exit code."""
    parser = argparse.ArgumentParser(prog="python -m accord.testing.stub",
                                     description="accord's OpenAI-compatible stub server")
    parser.add_argument("--policy", default="echo", help="default policy name")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="policy option (YAML-typed), repeatable: --option latency=0.1")
    parser.add_argument("--port", type=int, default=0, help="port (0: ephemeral)")
    parser.add_argument("--exit-on-stdin-eof", action="store_true",
                        help="stop when stdin closes (for a parent process holding a pipe)")
    args = parser.parse_args(argv)
    options: dict[str, Any] = {}
    for item in args.option:
        key, eq, value = item.partition("=")
        if not eq:
            parser.error(f"--option {item!r} must look like KEY=VALUE")
        options[key] = yaml.safe_load(value)
    done = threading.Event()
    # before the address is announced: a parent may send SIGTERM as soon as it has it
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    server = StubServer(make_policy(args.policy, **options), port=args.port).start()
    print(json.dumps({"base_url": server.base_url, "root_url": server.root_url,
                      "pid": os.getpid()}), flush=True)

    def wait_stdin() -> None:
        sys.stdin.read()
        done.set()

    if args.exit_on_stdin_eof:
        threading.Thread(target=wait_stdin, daemon=True).start()
    with contextlib.suppress(KeyboardInterrupt):
        done.wait()
    server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
