"""accord's own HTTP/1.1 client (``accord.llm.backends.http1``, the httptools transport)
over real sockets on 127.0.0.1: the stub server, and small asyncio servers that answer
exactly as a test needs (chunked, gzip, read-until-close, a server that hangs up, bytes
that are not HTTP). ``asyncio.wait_for(..., HANG_GUARD)`` only guards against a hang."""

from __future__ import annotations

import asyncio
import gzip
import json
import shutil
import ssl
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("httptools")

from accord.llm import (
    EndpointUnreachableError,
    LLMError,
    LLMRuntime,
    LLMTimeoutError,
    RetryPolicy,
)
from accord.llm.backends.http1 import (
    ConnectFailed,
    ConnectionLost,
    Pool,
    ProtocolError,
    extra_headers,
)
from accord.llm.backends.transport import TRANSPORT_ENV
from accord.llm.errors import ConfigurationError, ContextOverflowError
from accord.testing.live import refused_port
from accord.testing.stub import FixedLatencyPolicy, ScriptedPolicy, StubServer

MODEL = "openai-api/stub/test-model"
MESSAGES = [{"role": "system", "content": "You are a party."},
            {"role": "user", "content": "Make an offer."}]
HANG_GUARD = 30.0
def _self_signed(where: Path) -> tuple[Path, Path]:
    """A self-signed certificate and key for 127.0.0.1 and localhost, made now by the
    ``openssl`` command (no key is kept in the repository)."""
    cert, key = where / "localhost-cert.pem", where / "localhost-key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=localhost", "-addext",
                    "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return cert, key
HEAD = [("Content-Type", "application/json"), ("Accept", "application/json")]
CHAT = {"choices": [{"message": {"role": "assistant", "content": "deal"},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 7, "completion_tokens": 1}}

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, int], Awaitable[bool]]


async def read_request(reader: asyncio.StreamReader) -> tuple[bytes, bytes] | None:
    """One request's head and body (``None`` when the client closed the connection)."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    return head, await reader.readexactly(length)


class RawServer:
    """An asyncio server on 127.0.0.1; ``handler(reader, writer, n)`` answers the n-th
    request on a connection (from 1) and returns whether to keep the connection open."""

    def __init__(self, handler: Handler, tls: ssl.SSLContext | None = None) -> None:
        self.handler = handler
        self.tls = tls
        self.connections = 0
        self.requests = 0
        #: every request's (head, body) as received
        self.received: list[tuple[bytes, bytes]] = []
        self.server: asyncio.Server | None = None

    async def __aenter__(self) -> RawServer:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.tls)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()

    @property
    def url(self) -> str:
        assert self.server is not None
        port = self.server.sockets[0].getsockname()[1]
        scheme = "https" if self.tls else "http"
        return f"{scheme}://127.0.0.1:{port}/v1/chat/completions"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        n = 0
        try:
            while (got := await read_request(reader)) is not None:
                self.received.append(got)
                n += 1
                self.requests += 1
                if not await self.handler(reader, writer, n):
                    break
        finally:
            writer.close()


def answer(body: bytes, *headers: str, status: str = "200 OK") -> bytes:
    """A content-length answer."""
    lines = [f"HTTP/1.1 {status}", *headers, f"Content-Length: {len(body)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


async def post(pool: Pool, body: bytes = b"{}", timeout: float = 5.0, extra: bytes = b"") -> Any:
    head = pool.head("POST", "/v1/chat/completions", HEAD)
    return await asyncio.wait_for(pool.request(head, body, timeout, extra), HANG_GUARD)


# --- the pool against the stub ---------------------------------------------------------

async def test_keep_alive_reuses_one_connection_for_sequential_calls() -> None:
    with StubServer(ScriptedPolicy(["a", "b", "c"])) as stub:
        pool = Pool(stub.base_url + "/chat/completions", 4)
        body = json.dumps({"model": "m", "messages": MESSAGES}).encode()
        texts = [json.loads((await post(pool, body)).body)["choices"][0]["message"]["content"]
                 for _ in range(3)]
        await pool.aclose()
    assert texts == ["a", "b", "c"] and pool.connects == 1


async def test_the_pool_never_opens_more_than_its_limit() -> None:
    with StubServer(FixedLatencyPolicy(latency=0.2)) as stub:
        pool = Pool(stub.base_url + "/chat/completions", 2)
        body = json.dumps({"model": "m", "messages": MESSAGES}).encode()
        done = await asyncio.gather(*(post(pool, body) for _ in range(6)))
        await pool.aclose()
    assert [r.status for r in done] == [200] * 6
    assert pool.connects == 2 and stub.max_in_flight == 2


async def test_a_dead_port_is_a_connect_failure_naming_the_origin() -> None:
    with refused_port() as port:
        pool = Pool(f"http://127.0.0.1:{port}/v1/chat/completions", 2)
        with pytest.raises(ConnectFailed, match=f"cannot connect to http://127.0.0.1:{port}"):
            await post(pool)
        assert pool.open == 0  # the failed slot is free again
        await pool.aclose()


# --- bodies -----------------------------------------------------------------------------

async def test_chunked_answer_split_across_writes() -> None:
    payload = json.dumps(CHAT).encode()

    async def chunked(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
                      ) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
                     b"Content-Type: application/json\r\n\r\n")
        for k in range(0, len(payload), 7):
            piece = payload[k:k + 7]
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            await writer.drain()
            await asyncio.sleep(0)
        writer.write(b"0\r\n\r\n")
        return True

    async with RawServer(chunked) as server:
        pool = Pool(server.url, 2)
        first, second = await post(pool), await post(pool)
        await pool.aclose()
    assert first.body == payload and second.body == payload
    assert server.connections == 1  # a chunked answer keeps the connection alive


async def test_gzip_answer_is_decoded() -> None:
    payload = json.dumps(CHAT).encode()

    async def gzipped(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
                      ) -> bool:
        writer.write(answer(gzip.compress(payload), "Content-Encoding: gzip"))
        return True

    async with RawServer(gzipped) as server:
        pool = Pool(server.url, 2)
        got = await post(pool)
        await pool.aclose()
    assert got.body == payload


async def test_body_read_until_the_server_closes() -> None:
    payload = json.dumps(CHAT).encode()

    async def unframed(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
                       ) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + payload)
        return False  # closes: the end of the body

    async with RawServer(unframed) as server:
        pool = Pool(server.url, 2)
        first, second = await post(pool), await post(pool)
        await pool.aclose()
    assert first.body == payload and second.body == payload
    assert server.connections == 2  # Connection: close is honoured


# --- connections the server closes ------------------------------------------------------

async def test_server_closing_an_idle_connection_between_calls() -> None:
    """The server answers (keep-alive by HTTP/1.1 default) and then hangs up: the next call
    opens a new connection."""
    async def once(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        writer.write(answer(json.dumps(CHAT).encode()))
        await writer.drain()
        return False

    async with RawServer(once) as server:
        pool = Pool(server.url, 2)
        statuses = []
        for _ in range(3):
            statuses.append((await post(pool)).status)
            await asyncio.sleep(0.05)  # the hang-up reaches the client while idle
        await pool.aclose()
    assert statuses == [200] * 3 and server.connections == 3


async def test_a_reused_connection_closed_before_answering_is_retried_once() -> None:
    """The keep-alive race: the server closes a kept connection just as the next request
    goes out (here: it reads the second request and hangs up without a byte). The client
    resends it once on a new connection."""
    async def one_per_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                                 n: int) -> bool:
        if n > 1:
            return False  # hang up without answering
        writer.write(answer(json.dumps(CHAT).encode()))
        return True

    async with RawServer(one_per_connection) as server:
        pool = Pool(server.url, 2)
        first, second = await post(pool), await post(pool)
        await pool.aclose()
    assert (first.status, second.status) == (200, 200)
    assert server.connections == 2 and server.requests == 3  # the lost one and its resend


async def test_a_fresh_connection_closed_before_answering_is_not_resent() -> None:
    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
                      ) -> bool:
        return False

    async with RawServer(hang_up) as server:
        pool = Pool(server.url, 2)
        with pytest.raises(ConnectionLost, match="closed the connection before the whole"):
            await post(pool)
        await pool.aclose()
    assert server.requests == 1


async def test_an_answer_cut_short_is_not_resent() -> None:
    async def cut(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"cho")
        await writer.drain()
        return False

    async with RawServer(cut) as server:
        pool = Pool(server.url, 2)
        with pytest.raises(ConnectionLost) as info:
            await post(pool)
        await pool.aclose()
    assert info.value.answered and server.requests == 1


async def test_bytes_that_are_not_http_are_a_protocol_error() -> None:
    async def garbage(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
                      ) -> bool:
        writer.write(b"SSH-2.0-OpenSSH_9.6\r\n\r\n")
        await writer.drain()
        await asyncio.sleep(1)
        return False

    async with RawServer(garbage) as server:
        pool = Pool(server.url, 2)
        with pytest.raises(ProtocolError, match=r"malformed HTTP answer from http://127\.0\.0\.1"):
            await post(pool)
        assert pool.open == 0  # that connection is dropped
        await pool.aclose()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
async def test_https_verifies_the_certificate(tmp_path: Path) -> None:
    CERT, KEY = _self_signed(tmp_path)
    payload = json.dumps(CHAT).encode()

    async def ok(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        writer.write(answer(payload))
        return True

    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    served.load_cert_chain(CERT, KEY)
    async with RawServer(ok, served) as server:
        trusting = ssl.create_default_context(cafile=str(CERT))
        pool = Pool(server.url, 2, ssl_context=trusting)
        first, second = await post(pool), await post(pool)
        assert first.body == payload == second.body and pool.connects == 1
        await pool.aclose()
        # the default trust store does not know this certificate: refused, by name
        strict = Pool(server.url, 2)
        with pytest.raises(ConnectFailed, match="CERTIFICATE_VERIFY_FAILED"):
            await post(strict)
        await strict.aclose()


# --- timeouts, cancellation, headers ----------------------------------------------------

async def test_no_answer_within_the_timeout_is_a_timeout_error() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
                     ) -> bool:
        await asyncio.sleep(5)
        return False

    async with RawServer(silent) as server:
        pool = Pool(server.url, 2)
        with pytest.raises(TimeoutError):
            await post(pool, timeout=0.2)
        assert pool.open == 0  # the connection with a request in flight is closed
        await pool.aclose()


async def test_a_cancelled_request_does_not_leave_its_connection_in_the_pool() -> None:
    async def slow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        await asyncio.sleep(0.3)
        writer.write(answer(json.dumps(CHAT).encode()))
        return True

    async with RawServer(slow) as server:
        pool = Pool(server.url, 2)
        task = asyncio.ensure_future(post(pool))
        while server.requests == 0:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert pool.idle == [] and pool.open == 0
        assert (await post(pool)).status == 200  # on a new connection
        await pool.aclose()
    assert server.connections == 2


def test_header_injection_is_refused_without_echoing_the_value() -> None:
    with pytest.raises(ValueError, match="'X-Session' has a character not allowed") as info:
        extra_headers({"X-Session": "a\r\nAuthorization: Bearer sk-secret"})
    assert "sk-secret" not in str(info.value)


def test_only_http_and_https_urls() -> None:
    async def make() -> None:
        Pool("ftp://example.org/v1", 2)

    with pytest.raises(ValueError, match="speaks http and https, not 'ftp'"):
        asyncio.run(make())


# --- through accord's client ------------------------------------------------------------

async def test_runtime_selects_httptools_by_default_and_by_env(
        stub_env: Callable[..., None], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TRANSPORT_ENV, raising=False)
    with StubServer(ScriptedPolicy(["one", "two"])) as stub:
        stub_env(stub)
        async with LLMRuntime() as rt:
            client = rt.client(MODEL)
            assert (await client.complete(MESSAGES)).text == "one"
            backend: Any = rt.backend(client.endpoint)
            assert backend._kind == "httptools" and backend._session is None
        monkeypatch.setenv(TRANSPORT_ENV, "aiohttp")
        async with LLMRuntime() as rt:
            client = rt.client(MODEL)
            assert (await client.complete(MESSAGES)).text == "two"
            backend = rt.backend(client.endpoint)
            assert backend._kind == "aiohttp" and backend._pool is None


def test_an_explicit_transport_wins_over_the_variable(monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    monkeypatch.setenv(TRANSPORT_ENV, "aiohttp")
    assert LLMRuntime(transport="httpx").transport == "httpx"
    assert LLMRuntime().transport == "aiohttp"


def test_httptools_missing_is_said_at_construction(monkeypatch: pytest.MonkeyPatch) -> None:
    from accord.llm.backends import transport

    monkeypatch.delenv(TRANSPORT_ENV, raising=False)
    monkeypatch.setattr(transport, "httptools_available", lambda: False)
    with pytest.raises(ConfigurationError, match="httptools LLM transport needs the httptools"):
        LLMRuntime(transport="httptools")
    # auto falls back to aiohttp
    assert transport.direct_transport(LLMRuntime().transport) == "aiohttp"


def test_a_bad_transport_variable_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TRANSPORT_ENV, "curl")
    with pytest.raises(ValueError, match=f"{TRANSPORT_ENV}='curl' is not an LLM HTTP"):
        LLMRuntime()


async def test_behind_a_proxy_calls_go_through_the_sdk(stub_env: Callable[..., None],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """httptools speaks to no proxy: with a proxy variable set, calls take the SDK path
    (over aiohttp), which honours it (here: NO_PROXY lets 127.0.0.1 through)."""
    with StubServer(ScriptedPolicy(["proxied"])) as stub:
        stub_env(stub)
        monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        async with LLMRuntime(transport="httptools") as rt:
            client = rt.client(MODEL)
            backend: Any = rt.backend(client.endpoint)
            assert backend._kind is None and backend._direct is None
            assert (await client.complete(MESSAGES)).text == "proxied"


async def test_keep_alive_through_the_client(stub_env: Callable[..., None]) -> None:
    key = "sk-h1-test-key-000111222"
    with StubServer(ScriptedPolicy(["a", "b", "c", "d"]), api_key=key) as stub:
        stub_env(stub, key)  # the stub refuses any other key: the auth header went out
        async with LLMRuntime(transport="httptools") as rt:
            client = rt.client(MODEL)
            texts = [(await client.complete(MESSAGES)).text for _ in range(4)]
            pool = rt.backend(client.endpoint)._pool  # type: ignore[attr-defined]
            assert pool.connects == 1
    assert texts == ["a", "b", "c", "d"]
    sent = stub.completion_requests[-1].headers
    assert sent["accept-encoding"] == "identity" and sent["x-stainless-retry-count"] == "0"


async def test_a_dead_port_through_the_client(monkeypatch: pytest.MonkeyPatch,
                                              fast_retry: RetryPolicy) -> None:
    with refused_port() as port:
        url = f"http://127.0.0.1:{port}/v1"
        monkeypatch.setenv("STUB_BASE_URL", url)
        monkeypatch.setenv("STUB_API_KEY", "sk-whatever-123456")
        async with LLMRuntime(retry=fast_retry, transport="httptools") as rt:
            with pytest.raises(EndpointUnreachableError) as info:
                await rt.client(MODEL).complete(MESSAGES)
        assert url in str(info.value) and "sk-whatever" not in str(info.value)


def point_at(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    """Send ``stub/...`` models to the server at ``url`` (its chat completions address)."""
    monkeypatch.setenv("STUB_BASE_URL", url.rsplit("/chat/completions", 1)[0])
    monkeypatch.setenv("STUB_API_KEY", "sk-whatever-123456")


async def test_a_malformed_body_is_retried_then_named(monkeypatch: pytest.MonkeyPatch,
                                                      fast_retry: RetryPolicy) -> None:
    async def not_json(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
                       ) -> bool:
        writer.write(answer(b"<html>bad gateway</html>", "Content-Type: text/html"))
        return True

    async with RawServer(not_json) as server:
        point_at(monkeypatch, server.url)
        async with LLMRuntime(retry=fast_retry, transport="httptools") as rt:
            with pytest.raises(LLMError, match="not a valid API response"):
                await rt.client(MODEL).complete(MESSAGES)
    assert server.requests == fast_retry.max_attempts and server.connections == 1


async def test_malformed_http_through_the_client(monkeypatch: pytest.MonkeyPatch,
                                                 fast_retry: RetryPolicy) -> None:
    async def garbage(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
                      ) -> bool:
        writer.write(b"HTTP/1.1 2OO OK\r\n\r\n")
        return False

    async with RawServer(garbage) as server:
        point_at(monkeypatch, server.url)
        async with LLMRuntime(retry=fast_retry, transport="httptools") as rt:
            with pytest.raises(EndpointUnreachableError, match="ProtocolError"):
                await rt.client(MODEL).complete(MESSAGES)
    assert server.requests == fast_retry.max_attempts


async def test_chunked_answer_through_the_client(monkeypatch: pytest.MonkeyPatch) -> None:
    payload = json.dumps(CHAT).encode()

    async def chunked(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
                      ) -> bool:
        half = len(payload) // 2
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                     b"%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n" % (half, payload[:half],
                                                         len(payload) - half, payload[half:]))
        return True

    async with RawServer(chunked) as server:
        point_at(monkeypatch, server.url)
        async with LLMRuntime(transport="httptools") as rt:
            done = await rt.client(MODEL).complete(MESSAGES)
    assert (done.text, done.usage.prompt_tokens, done.finish_reason) == ("deal", 7, "stop")


async def test_timeout_through_the_client(stub_env: Callable[..., None],
                                          fast_retry: RetryPolicy) -> None:
    with StubServer(FixedLatencyPolicy(latency=2.0)) as stub:
        stub_env(stub)
        async with LLMRuntime(retry=fast_retry, timeout=0.3, transport="httptools") as rt:
            with pytest.raises(LLMTimeoutError):
                await rt.client(MODEL).complete(MESSAGES)


async def test_the_same_request_as_the_aiohttp_transport(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """Byte for byte the same body and the same headers as the aiohttp path (but for the
    encodings each asks for and aiohttp's own Host spelling), so a server answers both
    alike."""
    async def ok(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> bool:
        writer.write(answer(json.dumps(CHAT).encode()))
        return True

    sent: dict[str, tuple[dict[bytes, bytes], bytes]] = {}
    async with RawServer(ok) as server:
        monkeypatch.setenv("STUB_BASE_URL", server.url.rsplit("/chat/completions", 1)[0])
        monkeypatch.setenv("STUB_API_KEY", "sk-same-bytes-000111")
        for transport in ("httptools", "aiohttp"):
            async with LLMRuntime(transport=transport) as rt:  # type: ignore[arg-type]
                client = rt.client(MODEL)
                await client.complete(MESSAGES, scope=None)
            head, body = server.received[-1]
            lines = head.rstrip(b"\r\n").split(b"\r\n")
            fields = dict(line.split(b": ", 1) for line in lines[1:])
            sent[transport] = ({k.lower(): v for k, v in fields.items()
                                if k.lower() not in (b"accept-encoding", b"host")}, body)
            assert lines[0] == b"POST /v1/chat/completions HTTP/1.1"
    assert sent["httptools"] == sent["aiohttp"]
    assert sent["httptools"][0][b"authorization"] == b"Bearer sk-same-bytes-000111"


@pytest.mark.parametrize("transport", ["httptools", "aiohttp", "httpx"])
async def test_context_overflow_fields_of_the_error_body_are_read(
        transport: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """llama.cpp states the sizes in its error body's fields, not in the message: every
    transport reads them (the direct aiohttp path used to drop the body)."""
    error = {"error": {"code": 400, "type": "exceed_context_size_error",
                       "message": "the request exceeds the available context size, try "
                                  "increasing it", "n_prompt_tokens": 5000, "n_ctx": 4096}}

    async def overflow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
                       ) -> bool:
        writer.write(answer(json.dumps(error).encode(), "Content-Type: application/json",
                            status="400 Bad Request"))
        return True

    async with RawServer(overflow) as server:
        point_at(monkeypatch, server.url)
        async with LLMRuntime(transport=transport) as rt:  # type: ignore[arg-type]
            with pytest.raises(ContextOverflowError) as info:
                await rt.client(MODEL).complete(MESSAGES)
    assert (info.value.context_tokens, info.value.prompt_tokens) == (4096, 5000)
    assert server.requests == 1  # not retried
