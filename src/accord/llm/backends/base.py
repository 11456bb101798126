"""The backend interface: one provider API behind accord's client.

A backend sends one request and returns a :class:`RawReply`, or raises
:class:`~accord.llm.retry.Transient` (worth retrying) or an
:class:`~accord.llm.errors.LLMError` (not). Limits, retries, caching and accounting
live in :class:`~accord.llm.client.LLMClient`, not here.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass

from accord.llm.context import context_overflow
from accord.llm.errors import AuthenticationError, ContextOverflowError, LLMError, RequestError
from accord.llm.providers import Endpoint
from accord.llm.retry import RETRYABLE_STATUS, Transient, TransientKind, parse_retry_after
from accord.llm.types import ChatMessage, GenerationConfig, Usage


@dataclass(frozen=True)
class RawReply:
    """What a backend got back: text, usage and the provider's raw finish reason."""

    text: str
    usage: Usage
    finish_reason: str | None


class Backend(ABC):
    """Talks to one endpoint; created lazily by the runtime, one per event loop."""

    def __init__(self, endpoint: Endpoint, api_key: str | None, timeout: float, *,
                 transport: str = "auto", max_in_flight: int = 16) -> None:
        self.endpoint = endpoint
        self.timeout = timeout
        self._api_key = api_key
        #: HTTP transport under the SDK (:mod:`accord.llm.backends.transport`)
        self.transport = transport
        #: the runtime's in-flight limit for this endpoint; the connection pool holds as many
        self.max_in_flight = max_in_flight

    @abstractmethod
    async def send(self, messages: list[ChatMessage], config: GenerationConfig, *, model: str,
                   timeout: float, headers: Mapping[str, str]) -> RawReply:
        """One attempt for ``model``; raises :class:`Transient` for retryable failures.

        One backend serves every model of its endpoint (connections are shared), so
        the model name comes with each call.
        """

    async def aclose(self) -> None:  # noqa: B027  (optional hook)
        """Release connections."""


def status_failure(url: str, status: int, message: str, headers: Mapping[str, str],
                   body: object = None) -> Transient | LLMError:
    """The exception for an HTTP error answer: retryable or final. A prompt that exceeds
    the context window (:mod:`accord.llm.context`; ``body`` the decoded error body) is a
    final :class:`ContextOverflowError` whatever the status (old llama.cpp builds say it
    with a 500)."""
    if status >= 400 and status not in (401, 403, 429):
        overflow = context_overflow(message, body)
        if overflow is not None:
            return ContextOverflowError(url, status, message,
                                        context_tokens=overflow.context_tokens,
                                        prompt_tokens=overflow.prompt_tokens)
    if status in RETRYABLE_STATUS:
        kind: TransientKind = ("rate_limit" if status == 429
                               else "timeout" if status == 408 else "server")
        return Transient(kind, f"HTTP {status}: {message}", status, parse_retry_after(headers))
    if status in (401, 403):
        return AuthenticationError(url, status, message)
    return RequestError(url, status, message)


def error_message(body: object, fallback: str) -> str:
    """The human message of an SDK status error: ``body["error"]["message"]`` (OpenAI and
    Anthropic both nest it so), else the SDK's own text."""
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
    return fallback


def garbled_body(url: str, cause: BaseException | str) -> Transient:
    """A 2xx answer whose body is not the API's JSON (a proxy page, a truncated body):
    retried like a server error; the final error names the endpoint ``url``."""
    what = cause if isinstance(cause, str) else f"{type(cause).__name__}: {cause}"
    return Transient("server", f"body is not a valid API response ({str(what)[:200]})",
                     status=200)
