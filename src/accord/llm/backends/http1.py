"""accord's own keep-alive HTTP/1.1 client for direct Chat Completions calls (issue 30).

A pool of ``asyncio.Protocol`` connections to one origin, each parsing answers with
``httptools`` (the C binding of llhttp, Node's HTTP parser, that uvicorn uses). At 64
calls in flight against the stub it costs a fraction of aiohttp's client machinery per
call (``benchmarks/bench_llm.py``: the raw-client floors), which was most of accord's
client CPU. It does only what a plain OpenAI-compatible ``POST /chat/completions``
needs, and everything such a call needs:

* a pool of at most ``limit`` connections, kept alive between calls (LIFO, closed after
  ``keepalive_expiry`` s idle), a caller waiting for a free slot when all are busy;
* a reused connection that the server closed before any byte of the answer (the race
  of every keep-alive client) is retried once on a fresh connection; a connection the
  server marks ``Connection: close`` (or HTTP/1.0) is closed after its answer;
* one deadline per request covering the wait for a slot, connecting (TLS included) and
  reading the whole answer: :class:`TimeoutError` when it passes;
* content-length, chunked and read-until-close bodies (llhttp decodes the chunking); it
  asks for ``Accept-Encoding: identity`` and still decodes ``gzip`` and ``deflate``;
* ``https`` through :mod:`ssl` (the system trust store plus ``certifi``'s when installed,
  ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` honoured), made once per pool;
* failures as :class:`HTTPTransportError` (:class:`ConnectFailed`, :class:`ConnectionLost`,
  :class:`ProtocolError`) naming the origin, never a header (keys stay out of messages).

Proxies are not spoken: the backend sends calls through the SDK when a proxy variable is
set (:func:`~accord.llm.backends.openai_compat.direct_headers`).
"""

from __future__ import annotations

import asyncio
import collections
import os
import ssl
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httptools

KEEPALIVE_EXPIRY = 5.0
"""Seconds an idle connection is kept (the SDKs' httpx default)."""


class HTTPTransportError(Exception):
    """A request that got no HTTP answer (or a broken one)."""


class ConnectFailed(HTTPTransportError):
    """The connection could not be made (refused, unreachable, TLS handshake failed)."""


class ConnectionLost(HTTPTransportError):
    """The server closed the connection (or it broke) before the whole answer arrived."""

    def __init__(self, message: str, *, answered: bool) -> None:
        super().__init__(message)
        #: whether any byte of the answer had arrived (if not, the request may be resent)
        self.answered = answered


class ProtocolError(HTTPTransportError):
    """Bytes that are not an HTTP/1.1 answer, or a body that cannot be decoded."""


@dataclass(frozen=True, slots=True)
class Response:
    """An HTTP answer: status, headers (names lower-cased, later repeats win) and body."""

    status: int
    raw_headers: tuple[tuple[bytes, bytes], ...]
    body: bytes

    @property
    def headers(self) -> dict[str, str]:
        """The headers as text, names lower-cased."""
        return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in self.raw_headers}


def _decode(body: bytes, encoding: bytes) -> bytes:
    """``body`` without its content coding (``gzip``, ``deflate``, ``identity``)."""
    coding = encoding.strip().lower()
    try:
        if coding in (b"gzip", b"x-gzip"):
            return zlib.decompress(body, 16 + zlib.MAX_WBITS)
        if coding == b"deflate":  # zlib-wrapped per the RFC; some servers send it raw
            try:
                return zlib.decompress(body)
            except zlib.error:
                return zlib.decompress(body, -zlib.MAX_WBITS)
    except zlib.error as exc:
        raise ProtocolError(f"{coding.decode('latin-1')} body cannot be decoded: {exc}") from None
    if coding in (b"", b"identity"):
        return body
    raise ProtocolError(f"unsupported content encoding {coding.decode('latin-1')!r}")


class _Connection(asyncio.Protocol):
    """One keep-alive connection: its socket, its llhttp parser, the request in flight."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpResponseParser(self)
        self.waiter: asyncio.Future[Response] | None = None
        self.headers: list[tuple[bytes, bytes]] = []
        self.body: list[bytes] = []
        self.status = 0
        self.got_bytes = False
        self.headers_done = False
        self.framed = False  # content-length or chunked: the parser sees the end
        self.encoding = b""
        self.keep_alive = True
        self.closed = False
        self.idle_since = 0.0
        self.uses = 0

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Keep the socket's transport."""
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        """Feed the parser; bytes with no request in flight break the connection."""
        waiter = self.waiter
        if waiter is None or waiter.done():
            self.close()  # an unasked answer (a server's 408 on an idle socket, junk)
            return
        self.got_bytes = True
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail(ProtocolError(f"malformed HTTP answer from {self.pool.origin}: {exc}"))
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        """Finish a read-until-close body, else fail the request in flight."""
        self.closed = True
        self.pool.forget(self)
        waiter = self.waiter
        if waiter is None or waiter.done():
            return
        if self.headers_done and not self.framed:
            self._finish()  # the body ran to the end of the connection
            return
        why = f" ({type(exc).__name__}: {exc})" if exc is not None else ""
        self._fail(ConnectionLost(f"{self.pool.origin} closed the connection before the "
                                  f"whole answer{why}", answered=self.got_bytes))

    # llhttp callbacks
    def on_header(self, name: bytes, value: bytes) -> None:
        """Collect one header."""
        self.headers.append((name, value))
        low = name.lower()
        if low == b"content-length" or (low == b"transfer-encoding"
                                        and b"chunked" in value.lower()):
            self.framed = True
        elif low == b"content-encoding":
            self.encoding = value

    def on_headers_complete(self) -> None:
        """The status line and headers are in."""
        self.status = self.parser.get_status_code()
        self.keep_alive = self.parser.should_keep_alive()
        self.headers_done = True
        if self.status in (204, 304) or 100 <= self.status < 200:
            self.framed = True  # no body

    def on_body(self, body: bytes) -> None:
        """Collect a piece of the (de-chunked) body."""
        self.body.append(body)

    def on_message_complete(self) -> None:
        """The whole answer is in."""
        if 100 <= self.status < 200:  # an interim answer (100 Continue): the real one follows
            self.headers, self.body, self.headers_done, self.framed = [], [], False, False
            return
        self._finish()

    # requests
    def _finish(self) -> None:
        waiter = self.waiter
        if waiter is None or waiter.done():
            return
        body = b"".join(self.body) if len(self.body) != 1 else self.body[0]
        if self.encoding:
            try:
                body = _decode(body, self.encoding)
            except ProtocolError as exc:
                self.keep_alive = False
                waiter.set_exception(exc)
                return
        waiter.set_result(Response(self.status, tuple(self.headers), body))

    def _fail(self, exc: BaseException) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_exception(exc)

    def expire(self) -> None:
        """The request's deadline passed: fail it and drop the connection."""
        self._fail(TimeoutError())
        self.close()

    async def exchange(self, data: bytes, deadline: float) -> Response:
        """Write one request and wait for its answer until ``deadline`` (loop time)."""
        if self.closed:
            raise ConnectionLost(f"{self.pool.origin} closed the connection",
                                 answered=False)
        loop = self.pool.loop
        self.waiter = waiter = loop.create_future()
        self.headers, self.body, self.status = [], [], 0
        self.got_bytes = self.headers_done = self.framed = False
        self.encoding = b""
        self.uses += 1
        assert self.transport is not None
        self.transport.write(data)
        timer = loop.call_at(deadline, self.expire)
        try:
            return await waiter
        finally:
            timer.cancel()
            self.waiter = None
            if not waiter.done() or waiter.cancelled() or waiter.exception() is not None:
                self.close()  # cancelled or failed mid-answer: the socket is not reusable

    def close(self) -> None:
        """Close the socket (idempotent)."""
        if not self.closed:
            self.closed = True
            self.pool.forget(self)
            if self.transport is not None:
                self.transport.close()


def _ssl_context() -> ssl.SSLContext:
    """TLS with certificate and host name checks: the system's trust store, plus
    ``certifi``'s bundle when it is installed (what the SDKs' httpx uses)."""
    context = ssl.create_default_context()
    if not (os.environ.get("SSL_CERT_FILE") or os.environ.get("SSL_CERT_DIR")):
        try:
            import certifi
        except ImportError:
            return context
        context.load_verify_locations(certifi.where())
    return context


class Pool:
    """Keep-alive connections to one origin (``http`` or ``https``), at most ``limit``
    open at once; made and used on one event loop."""

    def __init__(self, url: str, limit: int, *, keepalive_expiry: float = KEEPALIVE_EXPIRY,
                 ssl_context: ssl.SSLContext | None = None) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            raise ValueError(f"the httptools transport speaks http and https, not "
                             f"{parts.scheme!r} ({url})")
        if not parts.hostname:
            raise ValueError(f"no host in URL {url!r}")
        if limit < 1:
            raise ValueError("a connection pool needs a limit of at least 1")
        self.scheme = parts.scheme
        self.host = parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        default_port = self.port == (443 if self.scheme == "https" else 80)
        host = f"[{self.host}]" if ":" in self.host else self.host
        self.authority = host if default_port else f"{host}:{self.port}"
        self.origin = f"{self.scheme}://{self.authority}"
        self.limit = limit
        self.keepalive_expiry = keepalive_expiry
        self._ssl = ssl_context
        self.loop = asyncio.get_running_loop()
        self.idle: list[_Connection] = []
        self.open = 0  # connections open or being opened (idle ones included)
        self._conns: set[_Connection] = set()
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self.closed = False
        #: connections made so far (tests: keep-alive reuse)
        self.connects = 0

    def head(self, method: str, path: str, headers: Iterable[tuple[str, str]]) -> bytes:
        """The request line and the fixed headers (``Host`` first, ``Content-Length`` and
        the blank line left for each request), checked for header injection."""
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.authority}"]
        for name, value in headers:
            check_header(name, value)
            lines.append(f"{name}: {value}")
        return ("\r\n".join(lines) + "\r\n").encode("latin-1")

    async def request(self, head: bytes, body: bytes, timeout: float,
                      extra: bytes = b"") -> Response:
        """Send ``head`` (:meth:`head`) plus ``extra`` header lines and ``body``; the answer
        within ``timeout`` seconds (:class:`TimeoutError` else)."""
        if self.closed:
            raise HTTPTransportError(f"the connection pool for {self.origin} is closed")
        data = b"%s%sContent-Length: %d\r\n\r\n%s" % (head, extra, len(body), body)
        deadline = self.loop.time() + timeout
        conn = self._take_idle()
        if conn is None:
            conn = await self._connect(deadline)
        try:
            try:
                response = await conn.exchange(data, deadline)
            except ConnectionLost as exc:
                if exc.answered or conn.uses <= 1:
                    raise
                # a kept-alive connection the server had closed: once more on a new one
                self._release(conn)
                conn = await self._connect(deadline)
                response = await conn.exchange(data, deadline)
        finally:
            self._release(conn)
        return response

    def _take_idle(self) -> _Connection | None:
        idle = self.idle
        while idle:
            conn = idle.pop()
            if conn.closed:
                continue
            if self.loop.time() - conn.idle_since > self.keepalive_expiry:
                conn.close()
                continue
            return conn
        return None

    async def _connect(self, deadline: float) -> _Connection:
        """A new connection, once the pool has room, within ``deadline``."""
        try:
            async with asyncio.timeout_at(deadline):
                while self.open >= self.limit:
                    waiter = self.loop.create_future()
                    self._waiters.append(waiter)
                    try:
                        await waiter
                    except BaseException:
                        if waiter.done() and not waiter.cancelled():
                            self._wake()  # woken, then cancelled: pass the turn on
                        raise
                    finally:
                        if waiter in self._waiters:
                            self._waiters.remove(waiter)
                    if self.closed:
                        raise HTTPTransportError(f"the connection pool for {self.origin} "
                                                 "is closed")
                    conn = self._take_idle()
                    if conn is not None:
                        return conn
                self.open += 1
                try:
                    return await self._open()
                except BaseException:
                    self.open -= 1
                    self._wake()
                    raise
        except TimeoutError:
            raise TimeoutError(f"no connection to {self.origin} in time") from None

    async def _open(self) -> _Connection:
        tls: ssl.SSLContext | None = None
        if self.scheme == "https":
            if self._ssl is None:
                self._ssl = _ssl_context()
            tls = self._ssl
        try:
            _, conn = await self.loop.create_connection(
                lambda: _Connection(self), self.host, self.port, ssl=tls,
                server_hostname=self.host if tls is not None else None)
        except (OSError, ssl.SSLError) as exc:
            raise ConnectFailed(f"cannot connect to {self.origin}: "
                                f"{type(exc).__name__}: {exc}") from None
        if conn.closed:  # lost between being made and this coroutine resuming
            raise ConnectFailed(f"{self.origin} closed the connection as it was made")
        self.connects += 1
        self._conns.add(conn)
        return conn

    def _release(self, conn: _Connection) -> None:
        """Back to the idle list if it can serve another request, else closed."""
        if conn.closed or not conn.keep_alive or self.closed:
            conn.close()
        else:
            conn.idle_since = self.loop.time()
            self.idle.append(conn)
        self._wake()

    def _wake(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    def forget(self, conn: _Connection) -> None:
        """A connection closed: its slot is free."""
        if conn in self._conns:
            self._conns.discard(conn)
            self.open -= 1
            self._wake()

    async def aclose(self) -> None:
        """Close every connection; the pool takes no more requests."""
        self.closed = True
        for conn in list(self._conns):
            conn.close()
        self.idle.clear()
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)
        await asyncio.sleep(0)  # let the transports run their close callbacks


def check_header(name: str, value: str) -> None:
    """A :class:`ValueError` for a header that would break the request (CR, LF or NUL,
    a name with spaces or a colon); the value itself is never echoed (it may be a key)."""
    if not name or any(c in name for c in " \t\r\n:\0") or any(c in value for c in "\r\n\0"):
        raise ValueError(f"header {name!r} has a character not allowed in an HTTP header")


def extra_headers(headers: Any) -> bytes:
    """Per-call header lines (``Name: value\\r\\n`` each), checked like :meth:`Pool.head`."""
    out = []
    for name, value in headers.items():
        check_header(name, value)
        out.append(f"{name}: {value}\r\n")
    return "".join(out).encode("latin-1")
