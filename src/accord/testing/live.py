"""Serve an ASGI app on a free local port in a background thread (browser tests), and
find the port a server process chose.

``with LiveServer(app) as url:`` starts uvicorn on 127.0.0.1, waits until it answers and
yields its base URL (``http://127.0.0.1:PORT``); leaving the block stops it.

The port is bound when the server is made, by the system (port 0), and uvicorn serves that
very socket: no other process, such as another pytest-xdist worker, can take the port
between its choice and its use, as it could with a port asked for first and bound
later. A server run as a process is likewise started with ``--port 0`` and its
URL read from what it announces (:func:`announced_url`).
"""

from __future__ import annotations

import os
import re
import select
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import Any


@contextmanager
def refused_port() -> Iterator[int]:
    """A port on 127.0.0.1 that refuses connections for as long as the block lasts: bound,
    so that no other process (a parallel test worker's server, say) can take it, and never
    listening. (A port merely free a moment ago may be listening by the time it is used.)"""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])
    finally:
        sock.close()


#: the first ``http://HOST:PORT`` of a server's announcement
_ANNOUNCED = re.compile(rb"http://(127\.0\.0\.1|localhost|\[::1\]):(\d+)")


def announced_url(proc: subprocess.Popen[str], timeout: float = 60.0,
                  stream: str = "stderr") -> tuple[str, str]:
    """The base URL (``http://HOST:PORT``) that the server process ``proc``, started with
    ``--port 0``, announces on its ``stream`` (``accord serve`` writes "... on
    http://127.0.0.1:PORT/ ..." to stderr), and the text read up to and including it.

    The text is read from the pipe's file descriptor, so ``proc.communicate()`` returns
    what follows it. ``AssertionError`` when the process ends or ``timeout`` seconds pass
    first, with what it wrote.
    """
    pipe = getattr(proc, stream)
    assert pipe is not None, f"start the server with {stream}=subprocess.PIPE"
    fd = pipe.fileno()
    got = b""
    deadline = time.monotonic() + timeout
    while True:
        found = _ANNOUNCED.search(got)
        if found is not None:
            return (f"http://{found[1].decode()}:{found[2].decode()}",
                    got.decode("utf-8", "replace"))
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"no URL announced in {timeout:g} s: "
                                 f"{got.decode('utf-8', 'replace')!r}")
        ready, _, _ = select.select([fd], [], [], min(left, 1.0))
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk:  # the stream closed: the process ended
                proc.wait(10)
                raise AssertionError(f"the server exited ({proc.returncode}) before "
                                     f"announcing a URL: {got.decode('utf-8', 'replace')}")
            got += chunk


class LiveServer:
    """uvicorn in a daemon thread, for as long as the ``with`` block lasts."""

    def __init__(self, app: Any, port: int | None = None, timeout: float = 20.0) -> None:
        import uvicorn

        # bound and listening now, and served as is: the port cannot be taken between its
        # choice and its use (SO_REUSEADDR only for a port asked for by number, which may
        # be in TIME_WAIT: with it, two sockets not yet listening may share a port)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        try:
            if port:
                self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.sock.bind(("127.0.0.1", port or 0))
            self.sock.listen(128)
        except OSError:
            self.sock.close()
            raise
        self.port = int(self.sock.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning",
                                access_log=False, lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True, name=f"live-server-{self.port}")
        self.timeout = timeout

    def __enter__(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + self.timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the live server on port {self.port} did not start")
            time.sleep(0.02)
        return self.url

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=self.timeout)
        self.sock.close()


__all__ = ["LiveServer", "announced_url", "refused_port"]
