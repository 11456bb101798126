"""The HTTP transport under the official SDKs: aiohttp when installed, else httpx.

Both SDKs (``openai``, ``anthropic``) send through an ``httpx``-style client and take
one as ``http_client``. Their default is the pure-Python ``httpcore`` connection pool,
which on every request and every response walks all pooled connections and probes
each idle socket (``has_expired``: a ``getpeername`` and a ``poll`` per connection), so
its CPU per call grows with the number of calls in flight: ~2.6-2.9 ms per call at 64
in flight against the stub, a fifth of it in that bookkeeping and most of the rest in
the pure-Python HTTP/1.1 layer (``h11``) (``benchmarks/bench_llm.py``, py-spy).
The SDKs document ``DefaultAioHttpClient`` ("for improved concurrency performance",
the ``openai[aiohttp]`` / ``anthropic[aiohttp]`` extras): the same SDK request, auth,
error and retry-header handling, with aiohttp's C-accelerated HTTP/1.1 parser and
connector underneath (~1.4-1.7 ms per call in the same benchmark).

:data:`TRANSPORTS`: ``auto`` (aiohttp when importable, else httpx), ``aiohttp``
(an error when it is missing) and ``httpx`` (the SDK's default httpx client, what accord
used before; kept as the benchmark's baseline and for users who cannot install aiohttp).
Either way the pool is sized so that the runtime's in-flight limit never queues in
the pool and every connection stays alive between calls (the SDKs' default keeps 100
idle connections, so 256 calls in flight would close and reopen connections).
"""

from __future__ import annotations

import importlib.util
from typing import Any, Literal

from accord.llm.errors import ConfigurationError

Transport = Literal["auto", "aiohttp", "httpx"]
TRANSPORTS: tuple[str, ...] = ("auto", "aiohttp", "httpx")
#: the SDKs' own defaults (``DEFAULT_CONNECTION_LIMITS``); raised, never lowered
SDK_MAX_CONNECTIONS = 1000
SDK_MAX_KEEPALIVE = 100


def aiohttp_available() -> bool:
    """Whether ``aiohttp`` can be imported (without importing it)."""
    return importlib.util.find_spec("aiohttp") is not None


def check_transport(name: str) -> str:
    """``name`` if it is one of :data:`TRANSPORTS`, else a :class:`ValueError` naming them."""
    if name not in TRANSPORTS:
        raise ValueError(f"unknown LLM HTTP transport {name!r}; use one of "
                         f"{', '.join(TRANSPORTS)}")
    return name


def resolve_transport(name: str) -> Literal["aiohttp", "httpx"]:
    """The concrete transport for ``name`` (``auto`` picks aiohttp when installed)."""
    check_transport(name)
    if name == "httpx":
        return "httpx"
    if aiohttp_available():
        return "aiohttp"
    if name == "aiohttp":
        raise ConfigurationError("the aiohttp LLM transport needs the aiohttp package: "
                                 "pip install 'accord[llm]' (or 'openai[aiohttp]')")
    return "httpx"


def pool_limits(sdk: Any, max_in_flight: int) -> Any:
    """The SDK's ``Limits`` (its own httpx flavour) holding ``max_in_flight`` open,
    reusable connections; never below the SDK's defaults."""
    default = sdk.DEFAULT_CONNECTION_LIMITS
    return type(default)(
        max_connections=max(default.max_connections or SDK_MAX_CONNECTIONS, max_in_flight),
        max_keepalive_connections=max(default.max_keepalive_connections or SDK_MAX_KEEPALIVE,
                                      max_in_flight),
        keepalive_expiry=default.keepalive_expiry)


def http_client(sdk: Any, transport: str, timeout: float, max_in_flight: int) -> Any:
    """An ``http_client`` for ``sdk`` (the ``openai`` or ``anthropic`` module).

    ``sdk.DefaultAioHttpClient`` / ``sdk.DefaultAsyncHttpxClient`` are the SDKs'
    documented clients with their own defaults (timeouts, redirects); only the pool
    limits are set here. An SDK too old to offer ``DefaultAioHttpClient`` gets httpx
    under ``auto`` and a clear error under ``aiohttp``.
    """
    kind = resolve_transport(transport)
    if kind == "aiohttp" and not hasattr(sdk, "DefaultAioHttpClient"):
        if transport == "aiohttp":
            raise ConfigurationError(f"{sdk.__name__} {getattr(sdk, '__version__', '?')} has "
                                     "no aiohttp transport (DefaultAioHttpClient); upgrade it "
                                     "or use transport 'httpx'")
        kind = "httpx"
    factory = sdk.DefaultAioHttpClient if kind == "aiohttp" else sdk.DefaultAsyncHttpxClient
    return factory(timeout=timeout, limits=pool_limits(sdk, max_in_flight))


def connection_failure(exc: BaseException) -> BaseException | None:
    """The aiohttp connection failure behind an SDK *timeout* error, if there is one.

    The SDKs' vendored aiohttp transport maps every ``aiohttp.ClientConnectionError``
    (connection refused, server hung up) to ``httpx.ConnectTimeout``, so the SDK raises
    its timeout error for an endpoint that is simply not listening. The original
    exception stays in the ``__cause__`` chain; one that is not itself a timeout means
    the call failed to connect, not that it ran out of time.
    """
    if not aiohttp_available():
        return None
    import aiohttp

    seen: set[int] = set()
    inner: BaseException | None = exc
    while inner is not None and id(inner) not in seen:
        seen.add(id(inner))
        if isinstance(inner, aiohttp.ClientConnectionError) and not isinstance(
                inner, TimeoutError):
            return inner
        inner = inner.__cause__ or inner.__context__
    return None
