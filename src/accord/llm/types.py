"""The data that crosses accord's LLM interface: messages, configs, scopes, completions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field

from accord.llm.errors import InvalidMessagesError

Role = Literal["system", "user", "assistant"]
ROLES: tuple[str, ...] = ("system", "user", "assistant")


class ChatMessage(TypedDict):
    """One chat message: ``{"role": "system"|"user"|"assistant", "content": str}``."""

    role: Role
    content: str


def normalize_messages(messages: Sequence[Mapping[str, Any]]) -> list[ChatMessage]:
    """Validated plain ``{role, content}`` dicts (a clear error naming the bad message)."""
    # exact-type tests first: the ABC checks cost more than the rest of a call's
    # validation, and a session is a list of plain dicts
    sequence = type(messages) is list or (not isinstance(messages, str | bytes)
                                          and isinstance(messages, Sequence))
    if not sequence or not messages:
        raise InvalidMessagesError("messages must be a non-empty list of {role, content} dicts")
    out: list[ChatMessage] = []
    for i, m in enumerate(messages):
        if type(m) is not dict and not isinstance(m, Mapping):
            raise InvalidMessagesError(f"message #{i} is a {type(m).__name__}, not a mapping")
        role, content = m.get("role"), m.get("content")
        if role not in ROLES:
            raise InvalidMessagesError(f"message #{i} has role {role!r}; use one of {ROLES}")
        if type(content) is not str and not isinstance(content, str):
            raise InvalidMessagesError(f"message #{i} content must be a string, got "
                                       f"{type(content).__name__}")
        out.append({"role": role, "content": content})
    return out


class GenerationConfig(BaseModel):
    """How to sample: every field here is part of the cache key.

    ``None`` leaves the provider's default (:mod:`accord.llm.generation` reads them from
    agent-spec options and maps them per provider). ``prompt_cache`` asks providers that need
    explicit markers (Anthropic) to cache the session prefix; OpenAI-compatible
    endpoints cache prefixes automatically. ``extra`` is passed through as extra
    request-body fields.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(default=None, gt=0)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    seed: int | None = None
    stop: tuple[str, ...] | None = None
    #: OpenAI's name for the completion budget, sent as given (``max_tokens`` is mapped
    #: to it for OpenAI itself)
    max_completion_tokens: int | None = Field(default=None, gt=0)
    #: reasoning models' effort (``minimal``, ``low``, ``medium``, ``high``, ...)
    reasoning_effort: str | None = None
    #: internal thinking off (``False``), on (``True``) or a token budget (Anthropic)
    thinking: bool | int | None = None
    #: structured output (``off``, ``json_schema``, ``grammar``, ``auto``): read by the
    #: LLM agent, which adds the turn's schema or grammar to each request
    structured: str | None = None
    prompt_cache: bool = True
    extra: dict[str, Any] = Field(default_factory=dict)

    def key_data(self) -> dict[str, Any]:
        """The fields that identify a request, JSON-ready (defaults dropped)."""
        return self.model_dump(mode="json", exclude_defaults=True)


@dataclass(frozen=True)
class CallScope:
    """Where a call belongs: episode id, agent (role) and turn; part of the cache key.

    Two calls with identical prompts in different episodes are different samples
    (with temperature > 0), so the scope keeps them apart in the cache and attributes
    their tokens in the :class:`~accord.llm.accounting.UsageTracker`.
    """

    episode: str | None = None
    agent: str | None = None
    turn: int | None = None

    def session(self) -> str | None:
        """A session label ``episode/agent`` (sent as ``X-Accord-Session``), if known."""
        if self.episode is None and self.agent is None:
            return None
        return f"{self.episode or '-'}/{self.agent or '-'}"

    def describe(self) -> str:
        """Human-readable form for error messages."""
        return f"(episode={self.episode!r}, agent={self.agent!r}, turn={self.turn!r})"


@dataclass(frozen=True)
class Usage:
    """Token counts of one call: prompt (all input), completion, and cached prompt tokens.

    ``cached_tokens`` is the part of ``prompt_tokens`` the provider served from its
    prefix cache; ``cache_write_tokens`` the part written to it (Anthropic bills those).
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, int]:
        """Plain dict."""
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "cached_tokens": self.cached_tokens, "cache_write_tokens": self.cache_write_tokens}


@dataclass(frozen=True)
class Completion:
    """One model answer and what it cost.

    ``latency`` is the wall time of the successful attempt in seconds (for a cached
    answer, the latency recorded when it was first fetched); ``attempts`` counts HTTP
    attempts in this call (0 when served from accord's cache); ``finish_reason`` is
    the provider's raw value (``stop``, ``length``, ``end_turn``, ...).
    """

    text: str
    usage: Usage
    latency: float
    model: str
    provider: str
    finish_reason: str | None = None
    from_cache: bool = False
    attempts: int = 1
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (for logs and stores; never contains a key)."""
        return {"text": self.text, "usage": self.usage.to_dict(), "latency": self.latency,
                "model": self.model, "provider": self.provider,
                "finish_reason": self.finish_reason, "from_cache": self.from_cache,
                "attempts": self.attempts}
