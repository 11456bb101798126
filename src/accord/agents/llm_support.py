"""Shared plumbing for LLM agents: runtimes from settings and append-only sessions.

A session is set up once (system prompt) and each call appends only what changed, so
provider prefix caches hit (DESIGN.md, "LLM conventions"). Runtimes are shared per
settings in a process so per-endpoint concurrency limits hold across agents and
episodes.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from accord.llm import (
    CallScope,
    Completion,
    CompletionCache,
    GenerationConfig,
    LLMClient,
    LLMRuntime,
)
from accord.llm.sanitize import clean_text

_RUNTIMES: dict[tuple[Any, ...], LLMRuntime] = {}
_LOCK = threading.Lock()

#: generation options an agent spec may set (``llm:MODEL?temperature=0.2``)
GENERATION_OPTIONS = {"temperature", "max_tokens", "top_p", "seed"}


def runtime_for(settings: Mapping[str, Any] | None) -> LLMRuntime:
    """The runtime for these LLM settings (``runtime``, or ``cache``/``cache_mode``...)."""
    settings = settings or {}
    given = settings.get("runtime")
    if isinstance(given, LLMRuntime):
        return given
    path = settings.get("cache")
    mode = str(settings.get("cache_mode") or "rw")
    if mode == "replay" and not path:
        # replaying nothing would silently call (and pay) the live endpoint
        raise ValueError("LLM cache mode 'replay' needs a cache path")
    key = (path, mode, settings.get("timeout"), settings.get("concurrency"))
    with _LOCK:
        rt = _RUNTIMES.get(key)
        if rt is None:
            cache = CompletionCache(path, mode) if path and mode != "off" else None
            rt = LLMRuntime(cache=cache, timeout=float(settings.get("timeout") or 60.0),
                            max_concurrency=int(settings.get("concurrency") or 16))
            _RUNTIMES[key] = rt
        return rt


def generation_config(options: Mapping[str, Any]) -> GenerationConfig:
    """A generation config from agent-spec options (unknown keys are rejected)."""
    bad = sorted(set(options) - GENERATION_OPTIONS)
    if bad:
        raise ValueError(f"unknown LLM option(s) {bad}; allowed: {sorted(GENERATION_OPTIONS)}")
    return GenerationConfig(**dict(options))


class LLMSession:
    """One configured model session: a fixed system prompt plus appended turns."""

    def __init__(self, client: LLMClient, system: str, config: GenerationConfig,
                 episode: str | None, agent: str) -> None:
        self.client, self.config = client, config
        self.episode, self.agent = episode, agent
        self.messages: list[dict[str, str]] = [{"role": "system", "content": system}]
        self.calls = 0

    async def ask(self, user: str) -> Completion:
        """Append ``user``, call the model, append and return its answer."""
        # a person's or another model's text may hold a lone surrogate (issue 24)
        self.messages.append({"role": "user", "content": clean_text(user)})
        self.calls += 1
        scope = CallScope(episode=self.episode, agent=self.agent, turn=self.calls)
        done = await self.client.complete(self.messages, self.config, scope=scope)
        self.messages.append({"role": "assistant", "content": done.text})
        return done

    def usage(self) -> dict[str, Any]:
        """Token usage and cost of this session's agent in its episode."""
        totals = self.client.runtime.tracker.get(self.episode, self.agent)
        return totals.to_dict() if totals.calls else {}
