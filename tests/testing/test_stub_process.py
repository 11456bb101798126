"""``python -m accord.testing.stub`` as a background process."""

import json
import signal
import subprocess
import sys
import urllib.request


def _start(*extra: str, stdin: int) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "accord.testing.stub", "--policy",
                             "negotiator", *extra], stdin=stdin, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, json.loads(proc.stdout.readline())["base_url"]


def test_serves_in_the_background_until_terminated():
    proc, base = _start(stdin=subprocess.DEVNULL)  # like `... &` from a script
    try:
        with urllib.request.urlopen(base + "/models", timeout=5) as resp:
            assert resp.status == 200
        assert proc.poll() is None  # a closed stdin does not stop it
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0


def test_exit_on_stdin_eof():
    proc, _ = _start("--exit-on-stdin-eof", stdin=subprocess.PIPE)
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=10) == 0
