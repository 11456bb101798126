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
With ``structured=json_schema|grammar`` each turn's reply schema (the phase's moves, the
valid splits of the tasks) goes with the call and the JSON reply becomes the same move
(:mod:`accord.domains.task_exchange.llm.structured`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from accord.agents.llm_base import LLMAgent, check_model_spec, llm_client
from accord.agents.spec import AgentSpec, AgentSpecError
from accord.core.moves import Move
from accord.domains.task_exchange.llm.prompts import render_system_prompt, render_turn_prompt
from accord.domains.task_exchange.llm.replies import considerations, parse_reply, strip_consider
from accord.domains.task_exchange.llm.structured import read_move, reply_schema, without_plan
from accord.domains.task_exchange.llm.templates import render
from accord.domains.task_exchange.protocol import TaskExchangeObservation
from accord.llm import GenerationConfig, LLMClient
from accord.protocols.base import Observation

#: spec options that configure the agent rather than the model
AGENT_OPTIONS = {"state"}


class TaskExchangeLLMAgent(LLMAgent):
    """A model negotiating task exchange through Figure 7 prompts and tagged replies."""

    name = "llm"
    detailed_notes = True  # finish reason and cached tokens in every llm_call note

    def __init__(self, client: LLMClient, config: GenerationConfig, *,
                 episode: str | None = None, machine_state: bool = True) -> None:
        self.machine_state = machine_state
        super().__init__(client, config, episode=episode)

    def reset(self, rng: np.random.Generator | None = None) -> None:
        super().reset(rng)
        self.considerations: list[str] = []
        self._seen = 0

    def check(self, observation: Observation) -> TaskExchangeObservation:
        if not isinstance(observation, TaskExchangeObservation) or observation.view is None:
            raise TypeError("the task-exchange llm agent plays task-exchange only")
        return observation

    def system_prompt(self, obs: TaskExchangeObservation) -> str:
        assert obs.view is not None
        return render_system_prompt(obs.view, obs.strategy, machine_state=self.machine_state)

    def turn_prompt(self, obs: TaskExchangeObservation) -> str:
        if obs.feedback is not None:  # a retry within the turn: the history has not moved
            return render_turn_prompt(obs, since=len(obs.history),
                                      machine_state=self.machine_state)
        text = render_turn_prompt(obs, since=self._seen, machine_state=self.machine_state,
                                  partner_only=True)
        self._seen = len(obs.history)
        return text

    def public_reply(self, text: str) -> str:
        """The reply without private reasoning: ``<CONSIDER>`` blocks, or with structured
        output the ``consider`` field (see :func:`.structured.without_plan`)."""
        if self.structured_mode() != "off":
            return without_plan(text)
        return strip_consider(text)

    def reply_schema(self, obs: TaskExchangeObservation) -> Mapping[str, Any]:
        """The phase's reply: the private plan, a valid split, or accept / reject (with the
        alternative split) - see :mod:`accord.domains.task_exchange.llm.structured`."""
        return reply_schema(obs)

    def structured_note(self, obs: TaskExchangeObservation) -> str | None:
        return render("structured_note.jinja", phase=obs.phase,
                      final=obs.final_response, partner=obs.view.partner if obs.view else "")

    def structured_move(self, data: Mapping[str, Any], obs: TaskExchangeObservation) -> Move:
        if obs.phase == "consider" and isinstance(data.get("consider"), str):
            self.considerations.append(data["consider"])
        return read_move(data, obs)

    def parse(self, text: str, obs: TaskExchangeObservation) -> Move:
        assert obs.view is not None
        self.considerations.extend(considerations(text))
        return parse_reply(text, (obs.view.role, obs.view.partner), obs.phase)


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
    check_model_spec(spec, AGENT_OPTIONS)
    # every endpoint, the stub included, gets the paper's Figure 7 prompt; the
    # <TX_SETUP>/<TX_STATE> blocks are a named option for external tools (``?state=true``)
    machine_state = _flag(spec, spec.options.get("state", False))
    client, config = llm_client(spec, ctx.get("llm"), AGENT_OPTIONS)
    episode = ctx.get("episode_id") or None
    return TaskExchangeLLMAgent(client, config, episode=episode, machine_state=machine_state)


__all__ = ["AGENT_OPTIONS", "TaskExchangeLLMAgent", "build_llm_agent"]
