"""Exceptions raised by accord's LLM layer.

Every message is passed through :func:`accord.llm.redact.redact`, so an API key that
a server echoes back never reaches a traceback, a log or a results store.
"""

from __future__ import annotations

from collections.abc import Iterable

from accord.llm.redact import redact


class LLMError(Exception):
    """Base class of accord's LLM errors; the message is redacted."""

    def __init__(self, message: str) -> None:
        super().__init__(redact(message))


class ConfigurationError(LLMError):
    """A model string or environment that cannot work (e.g. a missing base URL)."""


class UnknownProviderError(ConfigurationError):
    """The provider part of a model string is not registered."""

    def __init__(self, provider: str, known: Iterable[str], model: str) -> None:
        self.provider = provider
        self.known = sorted(known)
        super().__init__(f"unknown LLM provider {provider!r} in model string {model!r}; "
                         f"known providers: {', '.join(self.known)}")


class MissingAPIKeyError(ConfigurationError):
    """The environment variable that must hold the API key is unset or empty."""

    def __init__(self, env_var: str, model: str) -> None:
        self.env_var = env_var
        super().__init__(f"model {model!r} needs an API key: set the environment variable "
                         f"{env_var}")


class InvalidMessagesError(LLMError, ValueError):
    """The chat messages are not a list of ``{role, content}`` with known roles."""


class EndpointUnreachableError(LLMError):
    """No connection could be made to the endpoint (after the allowed retries)."""

    def __init__(self, url: str, attempts: int, cause: str) -> None:
        self.url = url
        self.attempts = attempts
        super().__init__(f"cannot reach the LLM endpoint {url} after {attempts} attempt(s): "
                         f"{cause}")


class LLMTimeoutError(LLMError):
    """Every attempt timed out."""

    def __init__(self, url: str, attempts: int, timeout: float) -> None:
        self.url = url
        self.attempts = attempts
        super().__init__(f"LLM request to {url} timed out {attempts} time(s) "
                         f"(timeout {timeout:g} s per attempt)")


class RateLimitedError(LLMError):
    """The endpoint kept answering 429, or asked to wait longer than allowed."""

    def __init__(self, url: str, attempts: int, detail: str) -> None:
        self.url = url
        self.attempts = attempts
        super().__init__(f"rate limited by {url} after {attempts} attempt(s): {detail}")


class ServerError(LLMError):
    """The endpoint kept answering 5xx."""

    def __init__(self, url: str, status: int, attempts: int, detail: str) -> None:
        self.url = url
        self.status = status
        self.attempts = attempts
        super().__init__(f"LLM endpoint {url} answered HTTP {status} {attempts} time(s): "
                         f"{detail}")


class RequestError(LLMError):
    """The endpoint refused the request (4xx other than 408/429): not retried."""

    def __init__(self, url: str, status: int, detail: str) -> None:
        self.url = url
        self.status = status
        super().__init__(f"LLM endpoint {url} refused the request with HTTP {status}: {detail}")


class ContextOverflowError(RequestError):
    """The prompt does not fit the model's context window: not retried (the same prompt
    overflows again). Names the model, its context size when the server states it, and the
    prompt's size (the server's count, else an estimate)."""

    def __init__(self, url: str, status: int, detail: str, *,
                 context_tokens: int | None = None, prompt_tokens: int | None = None,
                 model: str | None = None, prompt_estimate: int | None = None,
                 prompt_chars: int | None = None) -> None:
        self.detail = detail
        self.model = model
        self.context_tokens = context_tokens
        self.prompt_tokens = prompt_tokens
        self.prompt_estimate = prompt_estimate
        self.prompt_chars = prompt_chars
        who = f"model {model!r}" if model else "the model"
        if prompt_tokens:
            size = f"the prompt ({prompt_tokens:,} tokens by the server's count)"
        elif prompt_estimate:
            size = (f"the prompt (about {prompt_estimate:,} tokens, estimated from "
                    f"{prompt_chars or 0:,} characters)")
        else:
            size = "the prompt"
        ctx = (f"the {context_tokens:,}-token context of {who}" if context_tokens
               else f"the context of {who} (the server did not state its size)")
        # the numbers first: a person's view of an error keeps only its first line's start
        LLMError.__init__(self, f"{size} exceeds {ctx}; not retried. Keep fewer turns with "
                          "the agent option history=N or give the model a larger context "
                          f"(llamacpp/ models: ACCORD_LLAMACPP_CTX). {url} answered HTTP "
                          f"{status}: {detail}")
        self.url = url
        self.status = status

    def for_model(self, model: str, prompt_estimate: int, prompt_chars: int
                  ) -> ContextOverflowError:
        """This error naming ``model`` and the estimated size of the prompt it was sent."""
        return ContextOverflowError(self.url, self.status, self.detail,
                                    context_tokens=self.context_tokens,
                                    prompt_tokens=self.prompt_tokens, model=model,
                                    prompt_estimate=prompt_estimate, prompt_chars=prompt_chars)


class AuthenticationError(RequestError):
    """HTTP 401/403: the key is wrong or lacks access (the key itself is never shown)."""


class CacheMiss(LLMError):
    """Replay-only mode and the request is not in the cache."""

    def __init__(self, path: str, key: str, model: str, scope: str) -> None:
        self.key = key
        super().__init__(f"replay-only cache {path} has no entry for model {model!r} "
                         f"{scope} (key {key[:16]}…): the request differs from the recorded "
                         "run; rerun with cache mode 'rw' to record it")


class CacheError(LLMError):
    """The cache file cannot be opened or has an unexpected format."""
