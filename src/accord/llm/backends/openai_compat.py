"""OpenAI-compatible endpoints (OpenAI, vLLM, Ollama, gateways) through ``openai.AsyncOpenAI``.

Over the httptools transport (the default when ``httptools`` is installed) a call goes out
directly on accord's own HTTP/1.1 connection pool (:mod:`accord.llm.backends.http1`,
about a third of aiohttp's client CPU per call, issue 30); over the aiohttp transport
directly on the backend's own aiohttp session. Either way
with the headers the SDK builds (its auth and default headers, read once) and its status
errors mapped as the SDK maps them: the SDK's request layer (``httpx``-style request and
header objects, options models, the request loop) cost about 0.6 ms CPU per call at 64
calls in flight, half the client's CPU (issue 30, ``benchmarks/bench_llm.py``). The
SDK's own request path stays for the httpx transport, behind a proxy, for an auth that is
not a fixed header (a token provider) and for bodies only the SDK can encode.
"""

from __future__ import annotations

import copy
import inspect
import json
import os
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any, Literal
from urllib.parse import urlsplit

import openai

from accord.llm.backends.base import (
    Backend,
    RawReply,
    error_message,
    garbled_body,
    status_failure,
)
from accord.llm.backends.transport import (
    connection_failure,
    direct_transport,
    effective_transport,
    http_client,
    pool_limits,
)
from accord.llm.errors import LLMError
from accord.llm.generation import merge, thinking_body
from accord.llm.providers import Endpoint
from accord.llm.retry import Transient
from accord.llm.types import ChatMessage, GenerationConfig, Usage

NO_KEY = "not-needed"
"""Placeholder key for endpoints that need none (the SDK insists on a value)."""
BYTES_BODY_SINCE = (1, 99)
"""The first ``openai`` release whose raw ``post`` sends a ``bytes`` body as it is."""
MESSAGE_MEMO = 2048
"""Messages whose JSON encoding is remembered (the live sessions of a sweep: 64 in flight
with 20 messages each is 1,280)."""


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _dumps(value: Any) -> bytes:
    """JSON exactly as the SDK encodes a request body (``openai._utils._json``: UTF-8,
    no spaces, no NaN)."""
    return _ENCODER.encode(value).encode()


@lru_cache(maxsize=MESSAGE_MEMO)
def _message_json(role: str, content: str) -> bytes:
    """One message of the body, encoded; memoised because a session resends every
    earlier message on each call (append-only prompts)."""
    return _dumps({"role": role, "content": content})


def chat_body(model: str, messages: list[ChatMessage], params: Mapping[str, Any]) -> bytes:
    """The Chat Completions body ``{"model", "messages", **params}``, byte for byte what
    the SDK would encode from that dict (tested), with each message's encoding memoised:
    a call re-encodes only its new messages."""
    if "model" in params or "messages" in params or not all(
            isinstance(key, str) for key in params):  # an extra field replacing one of ours,
        # or a key JSON writes as text (1 -> "1")
        return _dumps({"model": model, "messages": messages, **params})
    parts = [b'{"model":', _dumps(model), b',"messages":[',
             b",".join([_message_json(m["role"], m["content"]) for m in messages]), b"]"]
    for key, value in params.items():
        parts += [b",", _dumps(key), b":", _dumps(value)]
    parts.append(b"}")
    return b"".join(parts)


def sends_bytes_bodies(version: str) -> bool:
    """Whether this ``openai`` version sends a ``bytes`` body as given (older ones would
    try to encode it as JSON); unparsable versions are assumed not to."""
    try:
        major, minor = (int(part) for part in version.split(".")[:2])
    except ValueError:
        return False
    return (major, minor) >= BYTES_BODY_SINCE


BodyMode = Literal["content", "body", "dict"]
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")
"""Environment variables (either case) that route the SDK's requests through a proxy."""

SDK_FACTS_MEMO = 64
"""(key, URL, transport, environment) combinations whose SDK headers are remembered."""
_SDK_FACTS: dict[tuple[Any, ...], tuple[tuple[tuple[str, str], ...] | None, str]] = {}


def _sdk_environment() -> tuple[tuple[str, str], ...]:
    """The environment an SDK client reads when it is made (``OPENAI_*``: organization,
    project, ...; the proxy variables, which send calls through the SDK): part of the key
    under which its headers are remembered."""
    return tuple(sorted((k, v) for k, v in os.environ.items()
                        if k.upper().startswith("OPENAI") or k.lower() in PROXY_VARIABLES))


def direct_headers(client: Any, transport: str) -> dict[str, str] | None:
    """The headers the SDK sends with every request (its default headers and its auth),
    for sending directly (over httptools or aiohttp); ``None`` when a call must go
    through the SDK: the httpx transport, a proxy in the environment (neither direct
    client speaks to proxies), or an auth the SDK computes per request (anything but
    fixed text headers)."""
    if direct_transport(transport) is None:
        return None
    if any(os.environ.get(v) or os.environ.get(v.upper()) for v in PROXY_VARIABLES):
        return None
    try:
        auth = client.auth_headers
        default = client.default_headers
    except Exception:  # an SDK without them, or an auth that needs a request
        return None
    merged: dict[str, str] = {}
    for key, value in {**auth, **default}.items():  # the SDK's order: default wins
        if isinstance(value, openai.Omit):
            continue  # a header the SDK leaves out
        if not isinstance(key, str) or not isinstance(value, str):
            return None
        merged[key] = value
    return merged


def status_error_message(status: int, raw: bytes) -> str:
    """What the SDK's status error says for an HTTP error answer with body ``raw``, as
    :func:`~accord.llm.backends.base.error_message` reads it: the body's
    ``error.message`` (or ``message``), else ``Error code: <status>``."""
    return status_error(status, raw)[0]


def status_error(status: int, raw: bytes) -> tuple[str, object]:
    """(:func:`status_error_message`, the decoded JSON body or ``None``) of an HTTP error
    answer: the body goes on to :func:`~accord.llm.backends.base.status_failure`, whose
    context-overflow check reads its fields (llama.cpp's ``type``, ``n_ctx`` and
    ``n_prompt_tokens``), as it reads the SDK's ``body`` on the SDK path."""
    text = raw.decode("utf-8", "replace").strip()
    fallback = f"Error code: {status}"
    try:
        body: object = json.loads(text)
    except ValueError:
        return fallback, None
    return error_message(body, fallback), body


def body_mode(post: Callable[..., Any], version: str) -> BodyMode:
    """How to hand ``post`` a ready body: its ``content`` parameter (newer SDKs, where
    bytes as ``body`` are deprecated), as ``body`` (1.99 on), or not at all (a dict the
    SDK encodes)."""
    if "content" in inspect.signature(post).parameters:
        return "content"
    return "body" if sends_bytes_bodies(version) else "dict"


def request_params(endpoint: Endpoint, config: GenerationConfig) -> dict[str, Any]:
    """Chat Completions keyword arguments for ``config`` (``None`` fields left out).

    OpenAI itself takes ``max_completion_tokens`` (its reasoning models refuse
    ``max_tokens``); other compatible servers take ``max_tokens``. ``thinking`` becomes
    ``chat_template_kwargs.enable_thinking`` (:func:`~accord.llm.generation.thinking_body`;
    :func:`~accord.llm.generation.check_for_endpoint` refused it for OpenAI itself), under
    any ``extra`` fields, which reach the body as they are.
    """
    params: dict[str, Any] = {}
    if config.temperature is not None:
        params["temperature"] = config.temperature
    if config.top_p is not None:
        params["top_p"] = config.top_p
    if config.seed is not None:
        params["seed"] = config.seed
    if config.stop:
        params["stop"] = list(config.stop)
    if config.max_tokens is not None:
        key = "max_completion_tokens" if endpoint.provider == "openai" else "max_tokens"
        params[key] = config.max_tokens
    if config.max_completion_tokens is not None:
        params["max_completion_tokens"] = config.max_completion_tokens
    if config.reasoning_effort is not None:
        params["reasoning_effort"] = config.reasoning_effort
    extra = merge(thinking_body(config), config.extra)
    if extra:
        params["extra_body"] = extra
    return params


class OpenAIBackend(Backend):
    """Chat Completions over HTTP with the official SDK, SDK retries off."""

    def __init__(self, endpoint: Endpoint, api_key: str | None, timeout: float, *,
                 transport: str = "auto", max_in_flight: int = 16) -> None:
        super().__init__(endpoint, api_key, timeout, transport=transport,
                         max_in_flight=max_in_flight)
        self._sdk: openai.AsyncOpenAI | None = None  # made on first need (see _client)
        #: encode the body here (memoised per message) rather than let the SDK re-encode
        #: the whole session on every call, where the SDK takes a ready body
        self._body_mode = body_mode(openai.AsyncOpenAI.post,
                                    getattr(openai, "__version__", ""))
        #: the SDK's headers when calls go out directly over aiohttp (None: through the
        #: SDK) and the URL it would post to: what an SDK client made for this key, URL
        #: and environment says, read once per process (:meth:`_facts`)
        self._direct, self._url = self._facts(transport)
        #: the client of direct calls: "httptools" or "aiohttp"
        self._kind = direct_transport(transport) if self._direct is not None else None
        self._session: Any = None  # the aiohttp session, made on the first direct call
        self._pool: Any = None  # the httptools pool (http1.Pool), made on the first call
        #: per attempt timeout: the request head of httptools calls, built once
        self._heads: dict[float, bytes] = {}
        #: per attempt timeout: (the SDK's headers plus its retry and timeout headers,
        #: aiohttp's timeout), built once
        self._per_timeout: dict[float, tuple[dict[str, str], Any]] = {}
        self._last_params: tuple[GenerationConfig, dict[str, Any], dict[str, Any]] | None = None

    @property
    def _client(self) -> openai.AsyncOpenAI:
        """The SDK client (its connection pool over the chosen transport), made on first
        use: calls that go out directly never need it, and making one costs ~50 ms of CPU
        (its HTTP client loads the TLS trust store) per backend, so per runtime and loop."""
        if self._sdk is None:
            self._sdk = openai.AsyncOpenAI(
                api_key=self._api_key or NO_KEY, base_url=self.endpoint.base_url,
                max_retries=0, timeout=self.timeout, http_client=http_client(
                    openai, self.transport, self.timeout, self.max_in_flight))
        return self._sdk

    def _facts(self, transport: str) -> tuple[dict[str, str] | None, str]:
        """(direct headers, chat completions URL) for this backend, from the process-wide
        memo (keyed by key, URL, transport and the environment the SDK reads) or from
        this backend's own SDK client the first time."""
        key = (self._api_key or NO_KEY, self.endpoint.base_url, effective_transport(transport),
               _sdk_environment())
        facts = _SDK_FACTS.get(key)
        if facts is None:
            client = self._client
            direct = direct_headers(client, transport)
            facts = (None if direct is None else tuple(direct.items()),
                     f"{str(client.base_url).rstrip('/')}/chat/completions")
            if len(_SDK_FACTS) >= SDK_FACTS_MEMO:
                _SDK_FACTS.clear()
            _SDK_FACTS[key] = facts
        headers, url = facts
        return (None if headers is None else dict(headers)), url

    async def send(self, messages: list[ChatMessage], config: GenerationConfig, *, model: str,
                   timeout: float, headers: Mapping[str, str]) -> RawReply:
        """One Chat Completions request."""
        url = self.endpoint.public_url
        params = self._params_for(config)
        send: dict[str, Any] = {"body": {"model": model, "messages": messages, **params}}
        if self._body_mode != "dict" or self._direct is not None:
            try:
                body = chat_body(model, messages, params)
            except TypeError:
                pass  # a value only the SDK's encoder knows (a datetime, say): the SDK's dict
            except ValueError as exc:  # NaN or infinity, which the SDK refuses too
                raise LLMError(f"request to {url} cannot be encoded as JSON: {exc}") from None
            else:
                if self._kind == "httptools":
                    return await self._send_h1(body, model, timeout, headers)
                if self._direct is not None:
                    return await self._send_direct(body, model, timeout, headers)
                send = {self._body_mode: body}
        options: dict[str, Any] = {"timeout": timeout}
        if headers:
            options["headers"] = dict(headers)
        try:
            # The SDK's documented raw-request method: same auth, transport, errors and
            # response model as chat.completions.create, minus its per-call TypedDict
            # transform of the messages, which is the identity for plain {role, content}
            # strings but costs ~1.5 ms CPU per 10-message call (benchmarks/bench_llm.py).
            # ``cast_to=bytes``: the body as sent; read below with json.loads and plain
            # dict access instead of the SDK building a ChatCompletion model tree (~10% of
            # the client's CPU per call, benchmarks/bench_llm.py)
            raw = await self._client.post(  # type: ignore[call-overload]
                "/chat/completions", cast_to=bytes, options=options, stream=False, **send)
        except openai.APITimeoutError as exc:
            refused = connection_failure(exc)
            if refused is not None:
                raise Transient("connection", f"{type(refused).__name__}: {refused}") from exc
            raise Transient("timeout", f"no answer within {timeout:g} s") from exc
        except openai.APIConnectionError as exc:
            raise Transient("connection", _cause(exc)) from exc
        except openai.APIStatusError as exc:
            failure = status_failure(url, exc.status_code, error_message(exc.body, exc.message),
                                     exc.response.headers, exc.body)
            raise failure from None
        except openai.OpenAIError as exc:
            raise LLMError(f"unexpected answer from {url}: {exc}") from None
        return parse_reply(url, model, raw)

    def _params_for(self, config: GenerationConfig) -> dict[str, Any]:
        """The body fields of ``config`` (:func:`request_params`, ``extra_body`` merged in),
        remembered for the last config object: a client sends the same one on every call.
        Configs are frozen but ``extra`` is a dict: a deep copy of it is kept and compared,
        so an edit of it in place, nested or not, is sent."""
        last = self._last_params
        if last is not None and last[0] is config and last[1] == config.extra:
            return last[2]
        params = request_params(self.endpoint, config)
        params.update(params.pop("extra_body", {}))
        try:
            snapshot = copy.deepcopy(config.extra)
        except Exception:  # a value that cannot be copied: not remembered
            self._last_params = None
        else:
            self._last_params = (config, snapshot, params)
        return params

    def _session_now(self) -> Any:
        """The aiohttp session of direct calls, pooled as the SDK's would be."""
        session = self._session
        if session is None or session.closed:
            import aiohttp

            limits = pool_limits(openai, self.max_in_flight)
            session = self._session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(
                limit=limits.max_connections, keepalive_timeout=limits.keepalive_expiry))
        return session

    async def _send_direct(self, body: bytes, model: str, timeout: float,
                           headers: Mapping[str, str]) -> RawReply:
        """One request on the backend's aiohttp session: the SDK's headers, its timeouts
        (connect and each read within ``timeout``) and its errors, without its request
        layer (see the module docstring)."""
        import aiohttp

        ready = self._per_timeout.get(timeout)
        if ready is None:
            assert self._direct is not None
            # one timer for the whole request, not aiohttp's per-read timer (a new timer
            # for every chunk received): LLMClient's deadline around the attempt already
            # bounds it by the same ``timeout`` (issue 24), so this one only guards a
            # backend called without it
            ready = self._per_timeout[timeout] = (
                {**self._direct, "X-Stainless-Retry-Count": "0",
                 "X-Stainless-Read-Timeout": str(float(timeout))},
                aiohttp.ClientTimeout(total=timeout))
        sent, limit = ready
        if headers:
            sent = {**sent, **headers}
        try:
            async with self._session_now().post(self._url, data=body, headers=sent,
                                                timeout=limit) as response:
                raw = await response.read()
                status = response.status
                got = response.headers
        except TimeoutError as exc:  # aiohttp's timeouts are TimeoutErrors
            raise Transient("timeout", f"no answer within {timeout:g} s") from exc
        except aiohttp.ClientError as exc:  # refused, reset, hung up mid-answer
            raise Transient("connection", f"{type(exc).__name__}: {exc}") from exc
        if status >= 400:
            message, error_body = status_error(status, raw)
            raise status_failure(self.endpoint.public_url, status, message, got,
                                 error_body) from None
        return parse_reply(self.endpoint.public_url, model, raw)

    def _head(self, timeout: float) -> bytes:
        """The request line and headers of an httptools call with ``timeout`` (the SDK's
        headers, its retry and timeout headers, ``Accept-Encoding: identity`` unless the
        SDK sets one), encoded once per timeout."""
        head = self._heads.get(timeout)
        if head is None:
            assert self._direct is not None
            sent = {**self._direct, "X-Stainless-Retry-Count": "0",
                    "X-Stainless-Read-Timeout": str(float(timeout))}
            if not any(k.lower() == "accept-encoding" for k in sent):
                sent["Accept-Encoding"] = "identity"
            parts = urlsplit(self._url)
            path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            head = self._heads[timeout] = self._pool_now().head("POST", path, sent.items())
        return head

    def _pool_now(self) -> Any:
        """The httptools connection pool of direct calls, as large as the SDK's would be."""
        pool = self._pool
        if pool is None or pool.closed:
            from accord.llm.backends.http1 import Pool

            limits = pool_limits(openai, self.max_in_flight)
            pool = self._pool = Pool(self._url, limits.max_connections,
                                     keepalive_expiry=limits.keepalive_expiry)
        return pool

    async def _send_h1(self, body: bytes, model: str, timeout: float,
                       headers: Mapping[str, str]) -> RawReply:
        """One request on the backend's httptools pool (:mod:`accord.llm.backends.http1`):
        the SDK's headers, one deadline for connecting and reading, and the same errors
        as :meth:`_send_direct`."""
        from accord.llm.backends.http1 import HTTPTransportError, extra_headers

        url = self.endpoint.public_url
        head = self._head(timeout)
        try:
            extra = extra_headers(headers) if headers else b""
        except ValueError as exc:
            raise LLMError(f"request to {url} cannot be sent: {exc}") from None
        try:
            response = await self._pool_now().request(head, body, timeout, extra)
        except TimeoutError as exc:
            raise Transient("timeout", f"no answer within {timeout:g} s") from exc
        except HTTPTransportError as exc:  # refused, reset, hung up mid-answer, garbled HTTP
            raise Transient("connection", f"{type(exc).__name__}: {exc}") from exc
        status = response.status
        if status >= 400:
            message, error_body = status_error(status, response.body)
            raise status_failure(url, status, message, response.headers, error_body) from None
        return parse_reply(url, model, response.body)

    async def aclose(self) -> None:
        """Close the SDK's HTTP connections (and the direct calls' session or pool)."""
        session, self._session = self._session, None
        if session is not None:
            await session.close()
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.aclose()
        if self._sdk is not None:  # kept, closed: a closed backend is not used again
            await self._sdk.close()


def parse_reply(url: str, model: str, raw: bytes) -> RawReply:
    """Text, usage and finish reason of a Chat Completions body (what the SDK's
    ``ChatCompletion`` would expose); a body that is not one is a retryable garble."""
    try:
        data = json.loads(raw)
    except ValueError as exc:  # not JSON (json.JSONDecodeError, UnicodeDecodeError)
        text = raw[:80].decode("utf-8", "replace")
        raise garbled_body(url, f"{type(exc).__name__}: {exc}; body {text!r}") from None
    if not isinstance(data, dict):  # e.g. a JSON string or list with status 200
        raise garbled_body(url, f"got {type(data).__name__}: {str(data)[:80]!r}")
    choices = data.get("choices")
    if not choices:
        raise LLMError(f"{url} returned no choices for model {model!r}")
    choice = choices[0] if isinstance(choices, list) else None
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise garbled_body(url, f"choice without a message: {str(choice)[:80]!r}")
    u = data.get("usage")
    u = u if isinstance(u, dict) else {}
    details = u.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    usage = Usage(prompt_tokens=u.get("prompt_tokens") or 0,
                  completion_tokens=u.get("completion_tokens") or 0,
                  cached_tokens=cached or 0)
    text = message.get("content") or message.get("refusal") or ""
    if not isinstance(text, str):
        raise garbled_body(url, f"message content is {type(text).__name__}, not text")
    return RawReply(text, usage, choice.get("finish_reason"))  # type: ignore[union-attr]


def _cause(exc: BaseException) -> str:
    inner = exc.__cause__ or exc.__context__
    return f"{exc}" + (f" ({type(inner).__name__}: {inner})" if inner else "")
