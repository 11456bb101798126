"""Shared plumbing for LLM agents: runtimes from settings and append-only sessions.

A session is set up once (system prompt) and each call appends only what changed, so
provider prefix caches hit (DESIGN.md, "LLM conventions"). Runtimes are shared per
settings in a process so per-endpoint concurrency limits hold across agents and
episodes.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Mapping
from typing import Any

import numpy as np

from accord.agents.templates import render
from accord.llm import (
    CallScope,
    Completion,
    CompletionCache,
    GenerationConfig,
    LLMClient,
    LLMRuntime,
)
from accord.llm.generation import GENERATION_OPTIONS, generation_config
from accord.llm.sanitize import clean_text

__all__ = ["GENERATION_OPTIONS", "LLMSession", "call_seed", "generation_config", "runtime_for",
           "seed_base"]

_RUNTIMES: dict[tuple[Any, ...], LLMRuntime] = {}
_LOCK = threading.Lock()



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
            given = settings.get("timeout")
            # no timeout given: each endpoint's default (accord.llm.timeouts)
            rt = LLMRuntime(cache=cache, timeout=float(given) if given else None,
                            max_concurrency=int(settings.get("concurrency") or 16))
            _RUNTIMES[key] = rt
        return rt


#: the spawn-key word that keeps the sampling seeds' stream apart from the agent's own draws
SEED_STREAM = 0x5EED


def seed_base(rng: np.random.Generator | None) -> tuple[Any, ...] | None:
    """What an agent's sampling seeds derive from: its generator's seed sequence
    (``default_rng([episode_seed, party_index])`` in every domain), read without
    drawing from the generator; ``None`` for a generator that has none."""
    seq = getattr(getattr(rng, "bit_generator", None), "seed_seq", None)
    if not isinstance(seq, np.random.SeedSequence) or seq.entropy is None:
        return None
    return (seq.entropy, tuple(seq.spawn_key))


def call_seed(base: tuple[Any, ...], call: int, session: str = "") -> int:
    """The sampling seed of call ``call`` (1, 2, ...) of a session: a 31-bit value derived
    from (episode seed, party, session label, call index), so the same episode seed gives
    the same requests and another seed other samples (seed 002's "rotate seeds")."""
    entropy, spawn_key = base
    label = zlib.crc32(session.encode("utf-8", "replace"))
    seq = np.random.SeedSequence(entropy, spawn_key=(*spawn_key, SEED_STREAM, label, call))
    return int(seq.generate_state(1, np.uint32)[0] >> 1)


class LLMSession:
    """One configured model session: a fixed system prompt plus appended turns.

    With a ``seeds`` base (see :func:`seed_base`) and no ``seed`` in the config, each call
    carries its own derived sampling seed (:func:`call_seed`) where the provider takes one
    (not Anthropic); ``last_seed`` is the seed of the latest call (``None``: none sent).
    """

    def __init__(self, client: LLMClient, system: str, config: GenerationConfig,
                 episode: str | None, agent: str,
                 seeds: tuple[Any, ...] | None = None) -> None:
        self.client, self.config = client, config
        self.episode, self.agent = episode, agent
        self.messages: list[dict[str, str]] = [{"role": "system", "content": system}]
        self.calls = 0
        #: the messages the latest call added to the session (system prompt on the first)
        self.sent: list[dict[str, str]] = []
        self.seeds = seeds if client.endpoint.api != "anthropic" else None
        self.last_seed: int | None = config.seed
        #: the history window (agent option ``history=N``): a call sends the system prompt
        #: and the last N exchanges before its new message; ``None``: every message
        self.history: int | None = client.history
        #: how many earlier exchanges the latest call left out (0: none)
        self.left_out = 0
        #: the user message of the latest call that was not a retry (what a clean retry
        #: sends again, with the feedback)
        self.base: str | None = None

    def call_config(self, extra: Mapping[str, Any] | None = None) -> GenerationConfig:
        """This call's config: the session's, with the derived seed when it sets none and
        ``extra`` body fields (a turn's reply schema) over the session's own."""
        update: dict[str, Any] = {}
        if self.seeds is not None and self.config.seed is None:
            self.last_seed = update["seed"] = call_seed(self.seeds, self.calls, self.agent)
        if extra:
            update["extra"] = {**self.config.extra, **extra}
        return self.config.model_copy(update=update) if update else self.config

    async def ask(self, user: str, extra: Mapping[str, Any] | None = None) -> Completion:
        """Append ``user``, call the model (``extra``: body fields for this call only),
        append and return its answer."""
        start = 0 if self.calls == 0 else len(self.messages)
        # a person's or another model's text may hold a lone surrogate (issue 24)
        self.messages.append({"role": "user", "content": clean_text(user)})
        self.sent = self.messages[start:]
        self.calls += 1
        scope = CallScope(episode=self.episode, agent=self.agent, turn=self.calls)
        done = await self.client.complete(self.window(), self.call_config(extra), scope=scope)
        self.messages.append({"role": "assistant", "content": done.text})
        return done

    def window(self) -> list[dict[str, str]]:
        """The messages this call sends: all of them, or, with a history window of N, the
        system prompt and the last N exchanges (user message and reply) before the new
        message, the first kept message opening with a note that earlier turns were left
        out (:attr:`left_out` says how many)."""
        turns = self.messages[1:]
        keep = None if self.history is None else 2 * self.history + 1
        if keep is None or len(turns) <= keep:
            self.left_out = 0
            return self.messages
        kept = turns[-keep:]
        self.left_out = (len(turns) - keep + 1) // 2
        note = render("history_window.j2", left_out=self.left_out, kept=self.history)
        first = {"role": kept[0]["role"], "content": f"{note}\n\n{kept[0]['content']}"}
        return [self.messages[0], first, *kept[1:]]

    def retry(self, feedback: str, keep: bool = False) -> str:
        """The user message of a retry after a failed reply. Clean (default): the failed
        attempt (its prompt and reply) leaves the session and the turn's original prompt
        (:attr:`base`) is sent again with ``feedback``, so retry k does not see k-1 copies
        of a broken answer; ``keep`` (agent option ``retry=keep``): the failed reply stays
        and ``feedback`` follows it, as accord did before 0.2."""
        msgs = self.messages
        if keep or self.base is None:
            return feedback
        if len(msgs) >= 3 and msgs[-1]["role"] == "assistant" and msgs[-2]["role"] == "user":
            del msgs[-2:]
        return self.base.rstrip() + "\n\n" + feedback.lstrip()

    def usage(self) -> dict[str, Any]:
        """Token usage and cost of this session's agent in its episode."""
        totals = self.client.runtime.tracker.get(self.episode, self.agent)
        return totals.to_dict() if totals.calls else {}
