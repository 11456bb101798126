"""The stub server answers every malformed request with an HTTP error, never by dropping
the connection (deep JSON, bad Content-Length, non-UTF-8 bodies, bad max_tokens)."""

from __future__ import annotations

import http.client
import json
import socket

import pytest

from accord.testing.stub import StubServer


def _post(stub: StubServer, body: bytes, length: str | None = None) -> tuple[int, str]:
    host, port = stub.base_url.split("//")[1].split("/")[0].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.putrequest("POST", "/v1/chat/completions")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Content-Length", length if length is not None else str(len(body)))
    conn.endheaders()
    if length is None or (length.isdigit() and int(length) <= len(body)):
        conn.send(body)
    resp = conn.getresponse()
    text = resp.read().decode()
    conn.close()
    return resp.status, text


GOOD = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.parametrize(("body", "length", "status", "words"), [
    (b"[" * 100_000 + b"]" * 100_000, None, 400, "RecursionError"),
    (b"\xff\xfe not utf-8", None, 400, "bad request"),
    (json.dumps({**GOOD, "max_tokens": "x"}).encode(), None, 400, "max_tokens"),
    (json.dumps({**GOOD, "max_tokens": -3}).encode(), None, 400, "max_tokens"),
    (b"{}", "-5", 400, "Content-Length"),
    (b"{}", str(10 ** 12), 413, "Content-Length"),
    (b"{}", "abc", 400, "Content-Length"),
])
def test_malformed_requests_get_an_http_error(body: bytes, length: str | None, status: int,
                                              words: str) -> None:
    with StubServer("echo") as stub:
        got, text = _post(stub, body, length)
        assert got == status and words in text
        assert json.loads(text)["error"]["type"] == "invalid_request_error"
        ok, _ = _post(stub, json.dumps(GOOD).encode())  # the server is still serving
        assert ok == 200


def test_a_truncated_body_does_not_hang_the_server() -> None:
    with StubServer("echo") as stub:
        host, port = stub.base_url.split("//")[1].split("/")[0].split(":")
        with socket.create_connection((host, int(port)), timeout=5) as s:
            s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Length: 10\r\n\r\n{}")  # 2 of 10 bytes, then close
        ok, _ = _post(stub, json.dumps(GOOD).encode())
        assert ok == 200
