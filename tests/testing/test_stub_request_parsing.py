"""The stub server's own request-line and header parsing, over raw sockets."""

from __future__ import annotations

import json
import socket

from accord.testing.stub import StubServer

BODY = json.dumps({"model": "echo", "messages": [{"role": "user", "content": "hi there"}]})


def _exchange(stub: StubServer, head: str, body: str = "") -> tuple[bytes, bool]:
    """Send one raw request; the whole answer, and whether the server closed the socket."""
    with socket.create_connection((stub.host, stub.port), timeout=5) as sock:
        sock.sendall(head.encode("latin-1") + body.encode())
        data = b""
        closed = False
        sock.settimeout(1.0)
        try:
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    closed = True
                    break
                data += chunk
                if b"\r\n\r\n" in data:
                    header, _, rest = data.partition(b"\r\n\r\n")
                    length = next((int(line.split(b":")[1]) for line in header.split(b"\r\n")
                                   if line.lower().startswith(b"content-length")), 0)
                    if len(rest) >= length:
                        sock.settimeout(0.3)
        except TimeoutError:
            pass
    return data, closed


def _post(extra: str = "", version: str = "HTTP/1.1") -> str:
    return (f"POST /v1/chat/completions {version}\r\nHost: x\r\nContent-Type: application/json"
            f"\r\nContent-Length: {len(BODY)}\r\n{extra}\r\n")


def test_headers_are_parsed_and_logged_case_insensitively() -> None:
    with StubServer("echo") as stub:
        data, closed = _exchange(stub, _post("X-Accord-Session: ep/buyer\r\n"
                                             "X-Folded: one\r\n  two\r\n"), BODY)
        assert data.startswith(b"HTTP/1.1 200") and b"Date: " in data
        assert not closed  # HTTP/1.1 keeps the connection
        logged = stub.completion_requests[-1]
    assert logged.conversation == "ep/buyer"
    assert logged.headers["x-folded"] == "one two"
    assert json.loads(data.partition(b"\r\n\r\n")[2])["choices"][0]["message"]["content"]


def test_http_10_and_connection_close_end_the_connection() -> None:
    with StubServer("echo") as stub:
        data, closed = _exchange(stub, _post(version="HTTP/1.0"), BODY)
        assert data.startswith(b"HTTP/1.1 200") and closed
        data, closed = _exchange(stub, _post("Connection: close\r\n"), BODY)
        assert data.startswith(b"HTTP/1.1 200") and closed


def test_bad_header_lines_get_a_clear_error() -> None:
    with StubServer("echo") as stub:
        data, _ = _exchange(stub, _post("no colon here\r\n"), BODY)
        assert data.startswith(b"HTTP/1.1 400") and b"Bad header line" in data
        many = "".join(f"X-H{i}: v\r\n" for i in range(101))
        data, _ = _exchange(stub, _post(many), BODY)
        assert data.startswith(b"HTTP/1.1 431") and b"Too many headers" in data
        data, _ = _exchange(stub, _post("X-Long: " + "a" * 70000 + "\r\n"), BODY)
        assert data.startswith(b"HTTP/1.1 431") and b"Line too long" in data
        assert stub.completion_requests == []  # none of them reached a policy


def test_other_request_lines_go_to_the_standard_parser() -> None:
    with StubServer("echo") as stub:
        # the standard library answers these in HTTP/0.9 style: a bare HTML error page
        data, _ = _exchange(stub, "POST /v1/chat/completions HTTP/2.0\r\nHost: x\r\n\r\n")
        assert b"Error code: 505" in data
        data, _ = _exchange(stub, "GET /v1/models HTTP/1.1 extra\r\n\r\n")
        assert b"Error code: 400" in data
        assert stub.completion_requests == []
