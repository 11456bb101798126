"""accord.testing.live: a server's port is bound as it is chosen, and a server process's
announced URL is read from its output (so parallel test workers never share a port)."""

from __future__ import annotations

import errno
import socket
import subprocess
import sys

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from accord.testing.live import LiveServer, announced_url, refused_port


def _app() -> Starlette:
    return Starlette(routes=[Route("/", lambda request: PlainTextResponse("here"))])


def test_live_server_holds_its_port_from_construction_to_exit() -> None:
    live = LiveServer(_app())
    other = socket.socket()
    try:
        with pytest.raises(OSError) as exc:  # taken already, before the server starts
            other.bind(("127.0.0.1", live.port))
        assert exc.value.errno == errno.EADDRINUSE
    finally:
        other.close()
    with live as url:
        assert url == f"http://127.0.0.1:{live.port}"
        assert httpx.get(url + "/", timeout=10).text == "here"


def _child(code: str, stderr: int = subprocess.PIPE) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=stderr, text=True)


def test_announced_url_is_read_from_the_stream_and_the_rest_still_comes() -> None:
    proc = _child("import sys, time; sys.stderr.write('starting\\n'); sys.stderr.flush(); "
                  "time.sleep(0.2); sys.stderr.write('accord serve: 1 store(s) on "
                  "http://127.0.0.1:40123/ (Ctrl-C stops)\\n'); sys.stderr.flush(); "
                  "sys.stderr.write('bye\\n')")
    url, said = announced_url(proc, timeout=30)
    _, rest = proc.communicate(timeout=30)
    assert url == "http://127.0.0.1:40123"
    assert said.startswith("starting\n") and "40123" in said
    assert (said + rest).endswith("(Ctrl-C stops)\nbye\n")


def test_announced_url_on_stdout_with_stderr_merged() -> None:
    proc = _child("print('listening on http://localhost:8123/', flush=True)",
                  stderr=subprocess.STDOUT)
    assert announced_url(proc, timeout=30, stream="stdout")[0] == "http://localhost:8123"
    proc.communicate(timeout=30)


def test_a_server_that_exits_first_is_an_error_with_what_it_said() -> None:
    proc = _child("import sys; sys.stderr.write('port 80 is in use'); sys.exit(2)")
    with pytest.raises(AssertionError, match=r"exited \(2\).*port 80 is in use"):
        announced_url(proc, timeout=30)


def test_a_server_that_never_announces_times_out() -> None:
    proc = _child("import time; time.sleep(30)")
    try:
        with pytest.raises(AssertionError, match=r"no URL announced in 0\.5 s"):
            announced_url(proc, timeout=0.5)
    finally:
        proc.kill()
        proc.communicate(timeout=30)


def test_a_refused_port_refuses_and_cannot_be_taken_while_held() -> None:
    with refused_port() as port:
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
        other = socket.socket()
        try:
            with pytest.raises(OSError) as exc:
                other.bind(("127.0.0.1", port))
            assert exc.value.errno == errno.EADDRINUSE
        finally:
            other.close()
