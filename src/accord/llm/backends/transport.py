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

:data:`TRANSPORTS`: ``auto`` (the first installed of httptools, aiohttp, httpx),
``httptools``, ``aiohttp`` (each an error when its package is missing) and ``httpx``
(the SDK's default httpx client, what accord used before issue 16; kept as the
benchmark's baseline and for users who cannot install aiohttp).
``$ACCORD_LLM_TRANSPORT`` picks one for a runtime left at ``auto``.

Plain OpenAI-compatible Chat Completions calls go out directly, without the SDK's
request layer (:mod:`accord.llm.backends.openai_compat`): over accord's own HTTP/1.1
client on ``httptools`` (:mod:`accord.llm.backends.http1`, issue 30: about a third of
aiohttp's client CPU per call) under ``httptools``, over an aiohttp session under
``aiohttp`` (:func:`direct_transport`). Everything else (the Anthropic API, calls
behind a proxy, token-provider auth) goes through the SDK over aiohttp when installed
(under ``httptools`` too), else httpx (:func:`resolve_transport`).
Either way the pool is sized so that the runtime's in-flight limit never queues in
the pool and every connection stays alive between calls (the SDKs' default keeps 100
idle connections, so 256 calls in flight would close and reopen connections).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from typing import Any, Literal

from accord.llm.errors import ConfigurationError

Transport = Literal["auto", "httptools", "aiohttp", "httpx"]
TRANSPORTS: tuple[str, ...] = ("auto", "httptools", "aiohttp", "httpx")
TRANSPORT_ENV = "ACCORD_LLM_TRANSPORT"
"""Environment variable naming the transport of a runtime left at ``auto``."""
#: the SDKs' own defaults (``DEFAULT_CONNECTION_LIMITS``); raised, never lowered
SDK_MAX_CONNECTIONS = 1000
SDK_MAX_KEEPALIVE = 100


def aiohttp_available() -> bool:
    """Whether ``aiohttp`` can be imported (without importing it)."""
    return importlib.util.find_spec("aiohttp") is not None


def httptools_available() -> bool:
    """Whether ``httptools`` can be imported (without importing it)."""
    return importlib.util.find_spec("httptools") is not None


def check_transport(name: str) -> str:
    """``name`` if it is one of :data:`TRANSPORTS`, else a :class:`ValueError` naming them."""
    if name not in TRANSPORTS:
        raise ValueError(f"unknown LLM HTTP transport {name!r}; use one of "
                         f"{', '.join(TRANSPORTS)}")
    return name


def transport_from_env(name: str, env: Mapping[str, str]) -> str:
    """``name``, or ``$ACCORD_LLM_TRANSPORT`` (checked, named in the error) when ``name``
    is ``auto`` and the variable is set."""
    check_transport(name)
    chosen = env.get(TRANSPORT_ENV, "").strip()
    if name != "auto" or not chosen:
        return name
    if chosen not in TRANSPORTS:
        raise ValueError(f"{TRANSPORT_ENV}={chosen!r} is not an LLM HTTP transport; use one "
                         f"of {', '.join(TRANSPORTS)}")
    return chosen


def resolve_transport(name: str) -> Literal["aiohttp", "httpx"]:
    """The transport under the SDKs for ``name``: aiohttp when installed (for ``auto``
    and ``httptools`` too: the SDK calls that ``httptools`` does not cover), else httpx."""
    check_transport(name)
    if name == "httpx":
        return "httpx"
    if aiohttp_available():
        return "aiohttp"
    if name == "aiohttp":
        raise ConfigurationError("the aiohttp LLM transport needs the aiohttp package: "
                                 "pip install 'accord[llm]' (or 'openai[aiohttp]')")
    return "httpx"


def direct_transport(name: str) -> Literal["httptools", "aiohttp"] | None:
    """The client of direct Chat Completions calls for ``name``: ``httptools``
    (accord's own, :mod:`accord.llm.backends.http1`), ``aiohttp``, or ``None`` (through
    the SDK over httpx). ``auto`` takes the first installed."""
    check_transport(name)
    if name == "httpx":
        return None
    if name == "httptools" or (name == "auto" and httptools_available()):
        if not httptools_available():
            raise ConfigurationError("the httptools LLM transport needs the httptools "
                                     "package: pip install 'accord[llm]' (or httptools)")
        return "httptools"
    return "aiohttp" if resolve_transport(name) == "aiohttp" else None


def effective_transport(name: str) -> str:
    """What carries a plain Chat Completions call under ``name``: ``httptools``,
    ``aiohttp`` or ``httpx`` (the SDK's)."""
    return direct_transport(name) or "httpx"


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
