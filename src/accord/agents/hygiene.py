"""Model hygiene (seed 002, V15): a judge on the same model as a party is not independent.

Seed 002 advises running the termination judge (and, by the same reasoning, the mediator,
the Stagnation Scorer and an LLM leak judge) on a *different* model than the negotiating
parties: a judge that shares a party's model shares its blind spots. :func:`same_model_roles`
finds the supporting roles of a line-up that run on a party's model, so ``accord run``
and ``accord bench`` can warn; :func:`same_model_map` is the flag ``same_model`` every such
episode's record carries (``flags.same_model: {role: model}``), in the store too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from accord.agents.spec import AgentSpec, AgentSpecError, parse_agent_spec

#: episode parameters whose value is an agent spec of a supporting role
ROLE_PARAMS: tuple[str, ...] = ("mediator", "judge", "stagnation")


def _model(spec: AgentSpec | str | Mapping[str, Any] | None) -> str | None:
    """The model of an LLM agent spec (kind ``llm`` or ``llm-...``), else ``None``."""
    if spec is None:
        return None
    try:
        parsed = parse_agent_spec(spec)
    except AgentSpecError:
        return None
    return parsed.arg if parsed.kind.startswith("llm") and parsed.arg else None


def _parties(agents: Sequence[AgentSpec | str | Mapping[str, Any]]) -> dict[str, int]:
    """Each party model of a line-up and its first party (1-based)."""
    parties: dict[str, int] = {}
    for i, agent in enumerate(agents):
        model = _model(agent)
        if model is not None:
            parties.setdefault(model, i + 1)
    return parties


def same_model_map(agents: Sequence[AgentSpec | str | Mapping[str, Any]],
                   params: Mapping[str, Any]) -> dict[str, str]:
    """``{role: model}`` for each supporting role (``mediator``, ``judge``, ``stagnation``,
    ``leak judge``) that runs on the model of a party: the run-level flag ``same_model``
    of an episode's record."""
    parties = _parties(agents)
    roles: list[tuple[str, str | None]] = [(k, _model(params.get(k))) for k in ROLE_PARAMS]
    for agent in agents:
        try:
            judge = parse_agent_spec(agent).options.get("guard_judge")
        except AgentSpecError:
            judge = None
        if isinstance(judge, str):
            roles.append(("leak judge", judge))
    return {role: model for role, model in roles if model is not None and model in parties}


def same_model_roles(agents: Sequence[AgentSpec | str | Mapping[str, Any]],
                     params: Mapping[str, Any]) -> list[str]:
    """Sentences naming each supporting role that runs on the model of a party."""
    parties = _parties(agents)
    return [f"the {role} runs on {model}, the model of party {parties[model]}; "
            "seed 002 advises a different model for it (V15)"
            for role, model in same_model_map(agents, params).items()]


__all__ = ["ROLE_PARAMS", "same_model_map", "same_model_roles"]
