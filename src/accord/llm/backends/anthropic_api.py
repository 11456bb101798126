"""Anthropic's Messages API through ``anthropic.AsyncAnthropic``.

:func:`to_anthropic` converts accord's chat messages: leading system messages become
the ``system`` parameter, consecutive messages of one role are merged (the API wants
user and assistant turns to alternate, starting with the user), and with
``prompt_cache`` the system block and the last message carry
``cache_control: ephemeral`` breakpoints, so each call of a session reads the prefix
the previous call wrote.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anthropic

from accord.llm.backends.base import Backend, RawReply, error_message, garbled_body, status_failure
from accord.llm.backends.transport import connection_failure, http_client
from accord.llm.errors import InvalidMessagesError, LLMError
from accord.llm.generation import anthropic_thinking
from accord.llm.providers import Endpoint
from accord.llm.retry import Transient
from accord.llm.types import ChatMessage, GenerationConfig, Usage

DEFAULT_MAX_TOKENS = 1024
"""``max_tokens`` is mandatory for Anthropic; used when the config leaves it unset."""
_EPHEMERAL = {"type": "ephemeral"}


def to_anthropic(messages: list[ChatMessage], prompt_cache: bool = True
                 ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(system_blocks, messages)`` in the Messages API format."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for i, m in enumerate(messages):
        if m["role"] == "system":
            if turns:
                raise InvalidMessagesError(f"message #{i}: Anthropic takes system text only "
                                           "before the first user message")
            system.append(m["content"])
            continue
        if turns and turns[-1]["role"] == m["role"]:
            turns[-1]["content"][0]["text"] += "\n\n" + m["content"]
        else:
            turns.append({"role": m["role"], "content": [{"type": "text", "text": m["content"]}]})
    if not turns or turns[0]["role"] != "user":
        raise InvalidMessagesError("Anthropic needs a user message first after the system text")
    blocks: list[dict[str, Any]] = []
    if system:
        blocks.append({"type": "text", "text": "\n\n".join(system)})
    if prompt_cache:
        if blocks:
            blocks[-1]["cache_control"] = dict(_EPHEMERAL)
        turns[-1]["content"][-1]["cache_control"] = dict(_EPHEMERAL)
    return blocks, turns


def request_params(config: GenerationConfig) -> dict[str, Any]:
    """Messages API keyword arguments for ``config``: ``thinking`` as Anthropic's block
    (:func:`~accord.llm.generation.anthropic_thinking`); ``seed`` and ``reasoning_effort``
    are refused before any call (:func:`~accord.llm.generation.check_for_endpoint`), a
    derived per-call seed is never sent here."""
    thinking = anthropic_thinking(config)
    budget = thinking.get("budget_tokens", 0) if thinking else 0
    limit = config.max_tokens or config.max_completion_tokens
    # thinking counts against max_tokens, which must exceed the budget
    params: dict[str, Any] = {"max_tokens": limit or DEFAULT_MAX_TOKENS + budget}
    if thinking is not None:
        params["thinking"] = thinking
    if config.temperature is not None:
        params["temperature"] = min(config.temperature, 1.0)
    if config.top_p is not None:
        params["top_p"] = config.top_p
    if config.stop:
        params["stop_sequences"] = list(config.stop)
    if config.extra:
        params["extra_body"] = dict(config.extra)
    return params


class AnthropicBackend(Backend):
    """Messages API over HTTP with the official SDK, SDK retries off."""

    def __init__(self, endpoint: Endpoint, api_key: str | None, timeout: float, *,
                 transport: str = "auto", max_in_flight: int = 16) -> None:
        super().__init__(endpoint, api_key, timeout, transport=transport,
                         max_in_flight=max_in_flight)
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key, base_url=endpoint.base_url, max_retries=0, timeout=timeout,
            http_client=http_client(anthropic, transport, timeout, max_in_flight))

    async def send(self, messages: list[ChatMessage], config: GenerationConfig, *, model: str,
                   timeout: float, headers: Mapping[str, str]) -> RawReply:
        """One Messages request."""
        url = self.endpoint.public_url
        system, turns = to_anthropic(messages, config.prompt_cache)
        extra: dict[str, Any] = {"system": system} if system else {}
        try:
            response = await self._client.messages.create(
                model=model, messages=turns,  # type: ignore[arg-type]
                timeout=timeout, extra_headers=dict(headers) or None,
                **extra, **request_params(config))
        except anthropic.APITimeoutError as exc:
            refused = connection_failure(exc)
            if refused is not None:
                raise Transient("connection", f"{type(refused).__name__}: {refused}") from exc
            raise Transient("timeout", f"no answer within {timeout:g} s") from exc
        except anthropic.APIConnectionError as exc:
            raise Transient("connection", f"{exc} ({exc.__cause__!r})") from exc
        except anthropic.APIStatusError as exc:
            raise status_failure(url, exc.status_code, error_message(exc.body, exc.message),
                                 exc.response.headers, exc.body) from None
        except anthropic.AnthropicError as exc:
            raise LLMError(f"unexpected answer from {url}: {exc}") from None
        except ValueError as exc:  # the body is not JSON (json.JSONDecodeError)
            raise garbled_body(url, exc) from None
        if not hasattr(response, "content") or not hasattr(response, "usage"):
            raise garbled_body(url, f"got {type(response).__name__}: {str(response)[:80]!r}")
        text = "".join(getattr(b, "text", "") for b in response.content
                       if getattr(b, "type", None) == "text")
        u = response.usage
        read = getattr(u, "cache_read_input_tokens", None) or 0
        write = getattr(u, "cache_creation_input_tokens", None) or 0
        usage = Usage(prompt_tokens=u.input_tokens + read + write,
                      completion_tokens=u.output_tokens, cached_tokens=read,
                      cache_write_tokens=write)
        return RawReply(text, usage, response.stop_reason)

    async def aclose(self) -> None:
        """Close the SDK's HTTP connections."""
        await self._client.close()
