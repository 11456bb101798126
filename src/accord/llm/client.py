"""The one async client interface: ``await client.complete(messages, config)``.

:class:`LLMRuntime` holds what calls share: per-endpoint concurrency limits
(``asyncio.Semaphore`` keyed by base URL), the retry policy, the request timeout,
the cache, the usage tracker, and one SDK client per endpoint (connection reuse).
:class:`LLMClient` is a handle on one model string within a runtime::

    async with LLMRuntime(cache=CompletionCache("runs/cache.sqlite", "rw")) as rt:
        client = rt.client("openai/gpt-4.1-mini")
        done = await client.complete(messages, GenerationConfig(temperature=0),
                                     scope=CallScope(episode="e1", agent="buyer", turn=3))

A call: validate messages -> cache lookup (replay: a miss raises ``CacheMiss``) ->
wait for an endpoint slot -> one attempt -> on a transient failure release the slot,
wait (``Retry-After`` or jittered backoff) and retry within bounds -> record in the
cache and the tracker. Identical concurrent requests in one runtime are fetched once.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import threading
import time
import weakref
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import numpy as np

from accord.core.redact import Redactor, env_secret_values
from accord.llm.accounting import UsageTracker
from accord.llm.backends.base import Backend
from accord.llm.backends.transport import (
    Transport,
    check_transport,
    direct_transport,
    transport_from_env,
)
from accord.llm.cache import CacheMode, CompletionCache, cache_key
from accord.llm.errors import (
    CacheMiss,
    ContextOverflowError,
    EndpointUnreachableError,
    LLMError,
    LLMTimeoutError,
    RateLimitedError,
    ServerError,
)
from accord.llm.progress import watch
from accord.llm.providers import Endpoint, resolve_model
from accord.llm.redact import get_logger, register_secret
from accord.llm.replay import REPLIES, Replies
from accord.llm.retry import RetryPolicy, Transient
from accord.llm.sanitize import clean_text
from accord.llm.timeouts import default_timeout
from accord.llm.tokens import message_tokens
from accord.llm.types import (
    CallScope,
    ChatMessage,
    Completion,
    GenerationConfig,
    normalize_messages,
)

log = get_logger("accord.llm")
DEFAULT_CONCURRENCY = 16
BackendFactory = Callable[..., Backend]
"""``(endpoint, api_key, timeout, *, transport, max_in_flight) -> Backend``."""


def _backend_factory(api: str) -> BackendFactory:
    # imported lazily: the SDKs are heavy and only one is usually needed
    if api == "openai":
        from accord.llm.backends.openai_compat import OpenAIBackend

        return OpenAIBackend
    if api == "anthropic":
        from accord.llm.backends.anthropic_api import AnthropicBackend

        return AnthropicBackend
    from accord.llm.backends.mock import MockBackend

    return MockBackend


@dataclass
class _LoopState:
    """What belongs to one event loop: slot semaphores, SDK clients, in-flight fetches."""

    semaphores: dict[str, asyncio.Semaphore] = field(default_factory=dict)
    backends: dict[str, Backend] = field(default_factory=dict)
    pending: dict[str, asyncio.Future[Completion]] = field(default_factory=dict)
    #: suspended generator the loop closes at shutdown (see :func:`_arm_closer`)
    closer: AsyncGenerator[None, None] | None = None


async def _close_backends(state: _LoopState) -> None:
    """Close every SDK client of ``state`` (it stays usable: new ones open on demand)."""
    backends, state.backends = list(state.backends.values()), {}
    for backend in backends:
        await backend.aclose()


async def _close_at_shutdown(state: _LoopState) -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        try:
            await _close_backends(state)
        finally:
            # the generator holds its loop (the loop's finalizer hook) and the state held
            # the generator: a cycle through the runtime's loop table that kept every
            # finished loop, its state and its closed SDK clients alive for the runtime's
            # lifetime
            state.closer = None


def _arm_closer(state: _LoopState) -> AsyncGenerator[None, None]:
    """Have the running loop close ``state``'s connections when it shuts down.

    Runtimes are often shared and never closed (agents keep one per settings), and a
    loop can end with connections open: httpx dropped them silently, aiohttp reports
    every unclosed session on stderr. ``asyncio.run`` (and every ``asyncio.Runner``)
    calls ``loop.shutdown_asyncgens()`` before closing the loop, which ``aclose()``s
    each async generator the loop saw start; this one is started here (the loop's
    first-iteration hook registers it) and suspended at its ``yield``, so its
    ``finally`` closes the backends inside the loop, before it is closed.
    """
    agen = _close_at_shutdown(state)
    with contextlib.suppress(StopIteration):  # runs to the yield without awaiting anything
        agen.asend(None).send(None)
    return agen


def _no_loop() -> None:
    """The last loop and state before any: a dead weak reference."""
    return None


class LLMRuntime:
    """Shared limits, retries, cache, accounting and connections for many clients.

    ``max_concurrency`` is the default in-flight limit per endpoint; ``limits``
    overrides it per base URL (or ``mock://<policy>``). ``env`` (default
    ``os.environ``) is where model strings find URLs and keys. ``mock_policies``
    maps ``mock/<name>`` names to ready policy objects (e.g. a scripted policy).

    ``transport`` is the HTTP transport (``auto``: ``$ACCORD_LLM_TRANSPORT`` when set,
    else the first installed of httptools, aiohttp and httpx; see
    :mod:`accord.llm.backends.transport`); each endpoint's connection pool holds as many
    connections as its in-flight limit.

    Semaphores and SDK connections live per event loop: limits hold among the calls
    of one loop. A runtime may be used from several threads, each running its own
    loop (the cache and the tracker are thread-safe), but then each loop has its own
    limit; for one global limit run all calls on one loop.
    """

    def __init__(self, *, cache: CompletionCache | None = None,
                 tracker: UsageTracker | None = None, retry: RetryPolicy | None = None,
                 timeout: float | None = None, max_concurrency: int = DEFAULT_CONCURRENCY,
                 limits: Mapping[str, int] | None = None, env: Mapping[str, str] | None = None,
                 rng: np.random.Generator | None = None,
                 mock_policies: Mapping[str, Any] | None = None,
                 transport: Transport = "auto") -> None:
        if max_concurrency < 1 or any(v < 1 for v in (limits or {}).values()):
            raise ValueError("concurrency limits must be at least 1")
        # ``auto`` left to $ACCORD_LLM_TRANSPORT when set
        chosen = transport_from_env(transport, os.environ)
        if chosen in ("aiohttp", "httptools"):
            direct_transport(chosen)  # its package missing: say so now, not at a call
        self.transport = check_transport(chosen)
        self.cache = cache
        self.tracker = tracker if tracker is not None else UsageTracker()
        self.retry = retry or RetryPolicy()
        #: seconds per attempt for every endpoint; ``None``: each endpoint's default
        #: (:func:`~accord.llm.timeouts.default_timeout`: 600 s on this machine, else 60 s)
        self.timeout = timeout
        self.max_concurrency = max_concurrency
        self.limits = {k.rstrip("/"): v for k, v in (limits or {}).items()}
        self.env: Mapping[str, str] = os.environ if env is None else env
        self.rng = rng if rng is not None else np.random.default_rng()
        self.mock_policies = dict(mock_policies or {})
        self._states: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState] = (
            weakref.WeakKeyDictionary())
        self._states_lock = threading.Lock()
        self._last: tuple[Callable[[], asyncio.AbstractEventLoop | None],
                          Callable[[], _LoopState | None]] = (_no_loop, _no_loop)

    def client(self, model: str, config: GenerationConfig | None = None) -> LLMClient:
        """A client for ``model`` (``provider/model``) sharing this runtime."""
        return LLMClient(model, self, config=config)

    @property
    def replay_only(self) -> bool:
        """Whether every answer must come from the cache."""
        return self.cache is not None and self.cache.mode is CacheMode.REPLAY

    def timeout_for(self, endpoint: Endpoint) -> float:
        """Seconds one attempt on ``endpoint`` may take: the runtime's timeout, else the
        endpoint's default (local servers get longer: CPU inference is slow)."""
        return self.timeout if self.timeout is not None else default_timeout(endpoint)

    def limit_for(self, endpoint: Endpoint) -> int:
        """The in-flight limit for ``endpoint``."""
        return self.limits.get(endpoint.limit_key.rstrip("/"), self.max_concurrency)

    def _state(self) -> _LoopState:
        # asyncio primitives and SDK connections belong to one event loop
        loop = asyncio.get_running_loop()
        # fast path, several times per call: the loop this runtime served last (a tuple
        # swapped whole, so a thread reading it never sees one loop with another's state;
        # both held weakly, so a finished loop and its connections are not kept alive)
        last_loop, last_state = self._last
        if last_loop() is loop:
            state = last_state()
            if state is not None:
                return state
        with self._states_lock:
            state = self._states.get(loop)
            if state is None:
                state = self._states[loop] = _LoopState()
                state.closer = _arm_closer(state)
            self._last = (weakref.ref(loop), weakref.ref(state))
        return state

    def semaphore(self, endpoint: Endpoint) -> asyncio.Semaphore:
        """The endpoint's slot semaphore in the running loop."""
        semaphores = self._state().semaphores
        key = endpoint.limit_key
        semaphore = semaphores.get(key)
        if semaphore is None:
            semaphore = semaphores[key] = asyncio.Semaphore(self.limit_for(endpoint))
        return semaphore

    def backend(self, endpoint: Endpoint) -> Backend:
        """The (shared) backend for ``endpoint`` in the running loop."""
        backends = self._state().backends
        # one backend (one connection pool) per endpoint and key, shared by its models;
        # mock endpoints are per policy already (limit_key is mock://<policy>)
        key = f"{endpoint.api}|{endpoint.limit_key}|{endpoint.key_env}"
        backend = backends.get(key)
        if backend is None:
            api_key = endpoint.api_key(self.env)
            register_secret(api_key)
            if endpoint.api == "mock":
                from accord.llm.backends.mock import MockBackend

                policy = self.mock_policies.get(endpoint.model)
                backend = MockBackend(endpoint, api_key, self.timeout_for(endpoint), policy)
            else:
                backend = _backend_factory(endpoint.api)(
                    endpoint, api_key, self.timeout_for(endpoint), transport=self.transport,
                    max_in_flight=self.limit_for(endpoint))
            backends[key] = backend
        return backend

    async def aclose(self) -> None:
        """Close the running loop's SDK connections (the cache stays open; close it yourself)."""
        await _close_backends(self._state())

    async def __aenter__(self) -> LLMRuntime:
        return self

    async def __aexit__(self, et: type[BaseException] | None, ev: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()


class LLMClient:
    """A model string bound to a runtime; ``complete`` is the whole interface.

    Construction resolves the model string (unknown provider or missing base URL
    fail here) and checks the API key unless the runtime is replay-only.
    """

    def __init__(self, model: str, runtime: LLMRuntime | None = None, *,
                 config: GenerationConfig | None = None) -> None:
        self.runtime = runtime or LLMRuntime()
        self.model = model
        self.config = config or GenerationConfig()
        self.endpoint = resolve_model(model, self.runtime.env)
        if not self.runtime.replay_only:
            register_secret(self.endpoint.api_key(self.runtime.env))
        #: masks keys in every completion text before it reaches a cache, log or agent
        self._redactor = Redactor(env_secret_values(self.runtime.env))
        #: agents record the exact messages of each call in their ``llm_call`` notes
        #: (``--log-prompts``), keys masked like every completion
        self.log_prompts = False
        #: the agent's session options (agent spec ``history=N``, ``retry=keep``; see
        #: :mod:`accord.agents.llm_support`): how many earlier exchanges a call sends
        #: (``None``: all) and whether a retry keeps the failed reply in the session
        self.history: int | None = None
        self.retry_mode = "clean"

    def redact(self, text: str) -> str:
        """``text`` with every key this client knows masked."""
        return self._redactor.text(text)

    def __repr__(self) -> str:
        return f"LLMClient({self.model!r}, url={self.endpoint.public_url!r})"

    async def complete(self, messages: Sequence[Mapping[str, Any]],
                       config: GenerationConfig | None = None, *,
                       scope: CallScope | None = None) -> Completion:
        """The model's answer to ``messages`` (see the module docstring for the steps)."""
        msgs = normalize_messages(messages)
        cfg = config or self.config
        replayed = REPLIES.get()
        if replayed is not None:  # a forked episode's replayed turn: the parent's answer
            return await self._replayed(replayed, msgs, cfg, scope)
        rt = self.runtime
        cache = rt.cache if rt.cache is not None and rt.cache.enabled else None
        if cache is None:
            done = await self._fetch(msgs, cfg, scope)
        else:
            key = cache_key(self.endpoint, msgs, cfg, scope)
            hit = await cache.get(key)
            if hit is not None:
                done = self._clean(hit)
            elif cache.mode is CacheMode.REPLAY:
                raise CacheMiss(str(cache.path), key, self.model,
                                (scope or CallScope()).describe())
            else:
                done = await self._fetch_once(key, msgs, cfg, scope, cache)
        rt.tracker.record(done, scope)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("%s %s: %d+%d tokens (%d cached), %.3f s, %d attempt(s)%s", self.model,
                      (scope or CallScope()).describe(), done.usage.prompt_tokens,
                      done.usage.completion_tokens, done.usage.cached_tokens, done.latency,
                      done.attempts, " [cache]" if done.from_cache else "")
        return done

    async def _replayed(self, replayed: Replies, msgs: list[ChatMessage],
                        cfg: GenerationConfig, scope: CallScope | None) -> Completion:
        """The parent's answer in a fork's replayed turn (:mod:`accord.llm.replay`): the
        cache's entry for this very request when there is one (the whole reply, private
        reasoning included, as the parent's model gave it), else the logged public reply.
        Never a request; not counted as this episode's usage."""
        logged = replayed.completion(scope, self.model, self.endpoint.provider)
        cache = self.runtime.cache
        if cache is not None and cache.enabled:
            hit = await cache.get(cache_key(self.endpoint, msgs, cfg, scope))
            if hit is not None:
                return self._clean(hit)
        return logged

    async def _fetch_once(self, key: str, msgs: list[ChatMessage], cfg: GenerationConfig,
                          scope: CallScope | None, cache: CompletionCache) -> Completion:
        """Fetch and record, sharing one fetch between identical concurrent requests."""
        rt = self.runtime
        waiting = rt._state().pending
        pending = waiting.get(key)
        if pending is not None:
            done = await asyncio.shield(pending)
            return Completion(done.text, done.usage, done.latency, done.model, done.provider,
                              done.finish_reason, from_cache=True, attempts=0)
        future: asyncio.Future[Completion] = asyncio.get_running_loop().create_future()
        waiting[key] = future
        try:
            done = await self._fetch(msgs, cfg, scope)
            await cache.put(key, done, self.endpoint, scope)
            future.set_result(done)
            return done
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: waiters re-raise it, nobody else must
            raise
        finally:
            waiting.pop(key, None)

    async def _fetch(self, msgs: list[ChatMessage], cfg: GenerationConfig,
                     scope: CallScope | None) -> Completion:
        """Attempts with limits and retries until an answer or a final error."""
        rt, ep = self.runtime, self.endpoint
        backend = rt.backend(ep)
        session = scope.session() if scope else None
        headers = {"X-Accord-Session": session} if session else {}
        timeout = rt.timeout_for(ep)
        attempt = 0
        #: failed attempts per budget: 429s have their own, 5xx/timeouts/connection another
        failed = {"rate_limit": 0, "other": 0}
        while True:
            attempt += 1
            async with rt.semaphore(ep):
                started = time.monotonic()
                deadline = asyncio.timeout(timeout)
                try:
                    # a deadline on the whole attempt, not the SDK's per-read timeout: an
                    # endpoint that sends headers and then a byte every few seconds never
                    # trips a read timeout (issue 24)
                    async with deadline, watch(self.model, attempt, rt.retry.max_attempts):
                        raw = await backend.send(msgs, cfg, model=ep.model, timeout=timeout,
                                                 headers=headers)
                except Transient as exc:
                    failure = exc
                except TimeoutError:
                    if not deadline.expired():
                        raise
                    failure = Transient("timeout", f"no complete answer within "
                                                   f"{timeout:g} s")
                except ContextOverflowError as exc:  # final: name the model and the prompt
                    plain = [{"role": m["role"], "content": m["content"]} for m in msgs]
                    raise exc.for_model(self.model, len(message_tokens(plain)),
                                        sum(len(m["content"]) for m in plain)) from None
                else:
                    # lone surrogates replaced before the text is cached, stored or
                    # sent again (issue 24)
                    return Completion(clean_text(self._redactor.text(raw.text)), raw.usage,
                                      time.monotonic() - started, self.model, ep.provider,
                                      raw.finish_reason, attempts=attempt)
            budget = "rate_limit" if failure.kind == "rate_limit" else "other"
            failed[budget] += 1
            delay = rt.retry.delay_for(failure, failed[budget], rt.rng)
            if delay is None:
                raise self._final(failure, failed[budget], attempt) from None
            log.warning("%s: attempt %d failed (%s: %s); retrying in %.2f s", self.model,
                        attempt, failure.kind, failure.detail, delay)
            await asyncio.sleep(delay)

    def _clean(self, done: Completion) -> Completion:
        """``done`` with its text redacted (a cache written before redaction may hold a
        key a model echoed)."""
        text = self._redactor.text(done.text)
        if text == done.text:
            return done
        return dataclasses.replace(done, text=text)

    def _final(self, failure: Transient, attempts: int, total: int) -> LLMError:
        """The error after ``attempts`` failures of this kind (``total`` attempts in all)."""
        url = self.endpoint.public_url
        if total > attempts:
            failure.detail += f" ({total} attempts in all, counting other failures)"
        if failure.kind == "rate_limit":
            detail = failure.detail
            if failure.retry_after is not None and \
                    failure.retry_after > self.runtime.retry.max_retry_after:
                detail += (f" (Retry-After {failure.retry_after:g} s exceeds the allowed "
                           f"{self.runtime.retry.max_retry_after:g} s)")
            return RateLimitedError(url, attempts, detail)
        if failure.kind == "server":
            return ServerError(url, failure.status or 500, attempts, failure.detail)
        if failure.kind == "timeout":
            return LLMTimeoutError(url, attempts, self.runtime.timeout_for(self.endpoint))
        return EndpointUnreachableError(url, attempts, failure.detail)
