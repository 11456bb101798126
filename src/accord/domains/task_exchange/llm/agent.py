"""The LLM agent of the task-exchange domain (seed 000, Figure 7, Appendix A.4-A.5, B.1).

One append-only session per agent and episode (:class:`~accord.agents.llm_support.LLMSession`):
the standing Figure 7 prompt (identity, original task, mask legend, every composite with
the agent's own utility and its complement, flow, rules 1-7, tags) is the system prompt,
rendered once for the episode's strategy (Rule 5 only under ``utility-aware``, B.1). Each
call appends only what changed: the turn counters, the partner's dialogue history entries
not shown before (the agent's own messages are already its answers in the session), the
expected reply, and after an invalid attempt the targeted feedback of the
engine's retry (``observation.feedback``, B.2). Replies are parsed with
:func:`~accord.domains.task_exchange.llm.replies.parse_reply`, which removes ``<CONSIDER>``
before anything becomes a move; the agent's own reasoning stays in its session (the model
sees it again next turn) and in :attr:`TaskExchangeLLMAgent.considerations`, never in a
move, a note or the partner's prompt.

Agent spec: ``llm:MODEL?temperature=0&max_tokens=800`` (generation options, see
:func:`~accord.agents.llm_support.generation_config`) plus ``state=true|false`` for the
machine-readable ``<TX_SETUP>``/``<TX_STATE>`` blocks, a named prompt option for external
tools, off by default for every endpoint: models, the in-process mock and the stub server
all get the paper's Figure 7 prompt, which the stub's rule-based policy reads as text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from accord.agents.base import Agent
from accord.agents.llm_support import LLMSession, generation_config, runtime_for
from accord.agents.spec import AgentSpec, AgentSpecError
from accord.core.moves import Move
from accord.domains.task_exchange.llm.prompts import render_system_prompt, render_turn_prompt
from accord.domains.task_exchange.llm.replies import considerations, parse_reply, strip_consider
from accord.domains.task_exchange.protocol import TaskExchangeObservation
from accord.llm import GenerationConfig, LLMClient, LLMError
from accord.protocols.base import Observation

#: spec options that configure the agent rather than the model
AGENT_OPTIONS = {"state"}


class TaskExchangeLLMAgent(Agent):
    """A model negotiating task exchange through Figure 7 prompts and tagged replies."""

    name = "llm"

    def __init__(self, client: LLMClient, config: GenerationConfig, *,
                 episode: str | None = None, machine_state: bool = True) -> None:
        self.client, self.config = client, config
        self.episode = episode
        self.machine_state = machine_state
        self.reset()

    def reset(self, rng: np.random.Generator | None = None) -> None:
        super().reset(rng)
        self.session: LLMSession | None = None
        self.considerations: list[str] = []
        self._seen = 0
        self._notes: list[dict[str, Any]] = []

    def describe(self) -> str:
        return f"llm:{self.client.model}"

    def _prompt(self, obs: TaskExchangeObservation) -> str:
        if obs.feedback is not None:  # a retry within the turn: the history has not moved
            return render_turn_prompt(obs, since=len(obs.history),
                                      machine_state=self.machine_state)
        text = render_turn_prompt(obs, since=self._seen, machine_state=self.machine_state,
                                  partner_only=True)
        self._seen = len(obs.history)
        return text

    async def act(self, observation: Observation) -> Move:
        if not isinstance(observation, TaskExchangeObservation) or observation.view is None:
            raise TypeError("the task-exchange llm agent plays task-exchange only")
        obs = observation
        view = obs.view
        assert view is not None
        if self.session is None:
            system = render_system_prompt(view, obs.strategy, machine_state=self.machine_state)
            self.session = LLMSession(self.client, system, self.config, self.episode, obs.role)
        try:
            done = await self.session.ask(self._prompt(obs))
        except LLMError as exc:
            raise RuntimeError(
                f"LLM call failed for {obs.role}: {type(exc).__name__}: {exc}") from exc
        self.considerations.extend(considerations(done.text))
        public = strip_consider(done.text)
        self._notes.append({"name": "llm_call", "data": {
            "model": done.model, "latency": round(done.latency, 4),
            "from_cache": done.from_cache, "finish_reason": done.finish_reason,
            "prompt_tokens": done.usage.prompt_tokens,
            "completion_tokens": done.usage.completion_tokens,
            "cached_tokens": done.usage.cached_tokens,
            "reply": public[:2000]}})
        return parse_reply(done.text, (view.role, view.partner), obs.phase)

    def drain_notes(self) -> list[dict[str, Any]]:
        notes, self._notes = self._notes, []
        return notes

    def usage(self) -> dict[str, Any]:
        return self.session.usage() if self.session else {}


def _flag(spec: AgentSpec, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise AgentSpecError(f"agent {spec}: option state must be true or false, got {value!r}")


def build_llm_agent(spec: AgentSpec, ctx: Mapping[str, Any]) -> TaskExchangeLLMAgent:
    """The ``llm`` agent kind: model from ``spec.arg``, LLM settings from ``ctx["llm"]``
    (:func:`~accord.agents.llm_support.runtime_for`), cache scope ``ctx["episode_id"]``."""
    if not spec.arg:
        raise AgentSpecError(f"{spec.kind} needs a model: e.g. llm:openai/gpt-4.1-mini")
    opts = {k: v for k, v in spec.options.items() if k not in AGENT_OPTIONS}
    try:
        config = generation_config(opts)
    except ValueError as exc:
        raise AgentSpecError(f"agent {spec}: {exc}") from None
    # every endpoint, the stub included, gets the paper's Figure 7 prompt; the
    # <TX_SETUP>/<TX_STATE> blocks are a named option for external tools (``?state=true``)
    machine_state = _flag(spec, spec.options.get("state", False))
    runtime = runtime_for(ctx.get("llm"))
    try:
        client = runtime.client(spec.arg, config)
    except LLMError as exc:  # unknown provider, missing key or base URL: a usage error
        raise AgentSpecError(f"agent {spec}: {exc}") from None
    episode = ctx.get("episode_id") or None
    return TaskExchangeLLMAgent(client, config, episode=episode, machine_state=machine_state)


__all__ = ["AGENT_OPTIONS", "TaskExchangeLLMAgent", "build_llm_agent"]
