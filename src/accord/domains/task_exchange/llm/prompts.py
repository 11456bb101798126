"""Rendering the Figure 7 prompts (seed 000, Appendix A.5, B.1) from template files.

The standing part (identity, original task, mask legend, all composites with the
agent's own utility and the complement, flow, rules, tags) is rendered once per
session by :func:`render_system_prompt`; :func:`render_turn_prompt` renders what changes
each turn (counters, new dialogue history, feedback after an invalid attempt).
:func:`render_prompt` concatenates both for a single Figure 7 style prompt. The only
difference between the strategies is Rule 5 (present for ``utility-aware``).

LLM sessions also carry two machine-readable JSON blocks (``machine_state=True``):
``<TX_SETUP>`` in the standing prompt (:func:`setup_block`) and ``<TX_STATE>`` at the
end of every turn prompt (:func:`state_block`). They repeat what the Figure 7 text says
in a form tools can read; the stub server's rule-based ``task-exchange`` policy plays
from them (the contract is documented in :mod:`accord.domains.task_exchange.stub`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from accord.domains.task_exchange.llm.templates import render
from accord.domains.task_exchange.protocol import STRATEGIES, TaskExchangeObservation
from accord.domains.task_exchange.scenario import AtomicTask, MainTask, PrivateView, TaskUniverse


def system_context(view: PrivateView, strategy: str) -> dict[str, Any]:
    """Template context of the standing prompt for one agent."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; use one of {', '.join(STRATEGIES)}")
    uni = view.universe
    own = view.own_initial
    return {
        "role": view.role,
        "partner": view.partner,
        "roles": list(view.initial),
        "turn_limit": view.turn_limit,
        "n": uni.n,
        "full_mask": uni.fmt(uni.full),
        "original": {"description": uni.description(own), "mask": uni.fmt(own)},
        "legend": [{"bit": a.bit, "call": a.call} for a in uni.atomic],
        "composites": [{"description": uni.description(m), "mask": uni.fmt(m),
                        "util": f"{float(view.utility(m)):.2f}",
                        "complement": uni.description(uni.full ^ m)}
                       for m in range(1 << uni.n)],
        "utility_aware": strategy == "utility-aware",
    }


def setup_block(view: PrivateView) -> str:
    """The ``<TX_SETUP>`` JSON of one agent: roles, originals, every composite with its
    description and this agent's own utility (never the partner's)."""
    uni = view.universe
    data = {
        "role": view.role,
        "partner": view.partner,
        "roles": list(view.initial),
        "n": uni.n,
        "turn_limit": view.turn_limit,
        "original": {r: uni.fmt(m) for r, m in view.initial.items()},
        "composites": [{"mask": uni.fmt(m), "util": float(view.utility(m)),
                        "description": uni.description(m)} for m in range(1 << uni.n)],
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def state_block(obs: TaskExchangeObservation) -> str:
    """The ``<TX_STATE>`` JSON of one turn: counters, phase, the proposal on the table and
    the reason of the previous invalid attempt (``null`` on a first attempt)."""
    data = {
        "role": obs.role,
        "turn": obs.turn,
        "turn_limit": obs.turn_limit,
        "agent_turn": obs.agent_turn,
        "phase": obs.phase,
        "final": obs.final_response,
        "last_proposal": obs.last_proposal,
        "table": None if obs.table is None else {r: list(v) for r, v in obs.table.items()},
        "attempt": obs.attempt,
        "feedback": None if obs.feedback is None else obs.feedback.reason,
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def render_system_prompt(view: PrivateView, strategy: str, machine_state: bool = False) -> str:
    """The standing Figure 7 prompt for ``view.role`` under ``strategy``.

    ``machine_state`` adds the ``<TX_SETUP>`` block after the composite list.
    """
    setup = setup_block(view) if machine_state else ""
    return render("system.jinja", **system_context(view, strategy), setup=setup)


def render_turn_prompt(obs: TaskExchangeObservation, since: int = 0,
                       machine_state: bool = False, partner_only: bool = False) -> str:
    """The per-turn prompt: counters, history entries from index ``since``, expected reply.

    ``machine_state`` appends the ``<TX_STATE>`` block; ``partner_only`` leaves out the
    agent's own messages (an append-only session already holds them as its answers).
    """
    if obs.view is None:
        raise ValueError("observation carries no private view")
    history = [{"turn": h.turn, "speaker": h.speaker, "text": h.text}
               for h in obs.history[since:] if not (partner_only and h.speaker == obs.role)]
    return render(
        "turn.jinja", role=obs.role, partner=obs.view.partner, turn=obs.turn,
        turn_limit=obs.turn_limit, agent_turn=obs.agent_turn, phase=obs.phase,
        final=obs.final_response, last_proposal=obs.last_proposal, history=history,
        feedback=obs.feedback.feedback if obs.feedback is not None else None,
        attempt=obs.attempt, max_attempts=obs.max_attempts or obs.max_retries + 1,
        state=state_block(obs) if machine_state else "")


def render_prompt(obs: TaskExchangeObservation) -> str:
    """A single self-contained Figure 7 prompt (standing part plus the whole history)."""
    if obs.view is None:
        raise ValueError("observation carries no private view")
    return render_system_prompt(obs.view, obs.strategy) + "\n" + render_turn_prompt(obs)


def render_describe_request(universe: TaskUniverse, mask: int) -> str:
    """Generator prompt asking for the description of composite ``mask`` (A.1)."""
    return render_describe_prompt(universe.atomic, universe.main_tasks, mask)


def render_describe_prompt(atomic: Sequence[AtomicTask], main_tasks: Sequence[MainTask],
                           mask: int) -> str:
    """:func:`render_describe_request` from the task list alone (before any description)."""
    if not 0 < mask < 1 << len(atomic):
        raise ValueError(f"mask {mask} is not a non-empty composite of {len(atomic)} "
                         "atomic tasks")
    return render("describe_composite.jinja",
                  atomic=[atomic[i].call for i in range(len(atomic)) if mask >> i & 1],
                  main_tasks=[t.request for t in main_tasks])


def render_score_request(agent: str, preference: str, description: str) -> str:
    """Generator prompt asking for an agent's raw 0-100 score of one composite (A.2)."""
    return render("score_composite.jinja", agent=agent, preference=preference,
                  description=description)


def render_history(entries: Sequence[Any]) -> str:
    """Dialogue history lines as shown to agents (``[Turn t] speaker: text``)."""
    return "\n".join(f"[Turn {h.turn}] {h.speaker}: {h.text}" for h in entries)


__all__ = [
    "render_describe_prompt",
    "render_describe_request",
    "render_history",
    "render_prompt",
    "render_score_request",
    "render_system_prompt",
    "render_turn_prompt",
    "setup_block",
    "state_block",
    "system_context",
]
