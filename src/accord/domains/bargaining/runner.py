"""Run one bargaining episode from a scenario, agent specs and protocol parameters."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from accord.agents.base import Agent
from accord.agents.registry import (
    build_judge,
    build_mediator,
    build_negotiator,
    build_stagnation_scorer,
)
from accord.agents.spec import AgentSpec, AgentSpecError, parse_agent_spec
from accord.core.scenario import Scenario
from accord.protocols.alternating import MEDIATOR, AlternatingConfig, AlternatingOffers
from accord.protocols.engine import Bounds, EpisodeResult, run_episode
from accord.protocols.stagnation import MEASURES, ORDERS, STAGNATION_ROLE

#: protocol parameters accepted in ``params`` (CLI flags and bench configs)
PARAMS = {
    "max_rounds": int, "acceptance": int, "turn_order": list, "stagnation_rounds": int,
    "stagnation_epsilon": float, "max_messages_per_turn": int, "mediator": str,
    "judge": str, "max_offers": int, "wall_clock": float, "max_retries": int,
    "max_outcomes": int,  # the outcome-space cap of a scenario file (default 10^6)
    "stagnation_measure": str,  # utility | issues (seed 002: "on any issue")
    "stagnation": str,  # code (default) | llm:MODEL (the Stagnation Scorer role)
    "stagnation_order": str,  # walk-first (seed 002, default) | mediator-first
}


class ParamError(ValueError):
    """A protocol parameter that is unknown or has the wrong type."""


#: parameters that must be at least this value when given
MINIMUM = {"max_rounds": 1, "acceptance": 1, "stagnation_rounds": 0, "stagnation_epsilon": 0,
           "max_messages_per_turn": 0, "max_offers": 1, "wall_clock": 0, "max_retries": 0,
           "max_outcomes": 1}


def check_params(params: Mapping[str, Any]) -> None:
    """Reject unknown or mistyped protocol parameters with a specific message."""
    for key, val in params.items():
        if key in MINIMUM and isinstance(val, (int, float)) and not isinstance(val, bool) \
                and val < MINIMUM[key]:
            raise ParamError(f"parameter {key!r} must be at least {MINIMUM[key]}, got {val!r}")
        if key not in PARAMS:
            raise ParamError(f"unknown bargaining parameter {key!r}; known: {sorted(PARAMS)}")
        want = PARAMS[key]
        if val is None:
            continue
        if want is float and isinstance(val, int) and not isinstance(val, bool):
            continue
        if not isinstance(val, want) or isinstance(val, bool):
            raise ParamError(f"parameter {key!r} must be {want.__name__}, got {val!r}")
    measure = params.get("stagnation_measure")
    if measure is not None and measure not in MEASURES:
        raise ParamError(f"parameter 'stagnation_measure' must be one of "
                         f"{', '.join(MEASURES)}; got {measure!r}")
    order = params.get("stagnation_order")
    if order is not None and order not in ORDERS:
        raise ParamError(f"parameter 'stagnation_order' must be one of {', '.join(ORDERS)}; "
                         f"got {order!r}")
    scorer = params.get("stagnation")
    if scorer is not None and scorer != "code" and not scorer.startswith("llm:"):
        raise ParamError(f"parameter 'stagnation' must be 'code' or 'llm:MODEL' (the seed's "
                         f"Stagnation Scorer); got {scorer!r}")


def build_agents(scenario: Scenario, specs: Sequence[AgentSpec | str], seed: int,
                 ctx: Mapping[str, Any] | None = None) -> dict[str, Agent]:
    """One reset agent per party, in scenario order, each with its own seeded generator."""
    names = scenario.party_names
    if len(specs) != len(names):
        raise AgentSpecError(f"scenario {scenario.name!r} has {len(names)} parties "
                             f"({', '.join(names)}); got {len(specs)} agent spec(s)")
    agents: dict[str, Agent] = {}
    for i, (name, raw) in enumerate(zip(names, specs, strict=True)):
        spec = parse_agent_spec(raw)
        agent = build_negotiator(spec, {**(ctx or {}), "party": name, "scenario": scenario})
        agent.reset(np.random.default_rng([seed, i]))
        agents[name] = agent
    return agents


def check_agents(scenario: Scenario, specs: Sequence[AgentSpec | str], seed: int) -> None:
    """Validate a line-up without running it: a kind with a spec check (e.g. ``human``,
    which needs a person at a seat) is checked, every other kind is built once."""
    from accord.agents.registry import NEGOTIATORS

    names = scenario.party_names
    if len(specs) != len(names):
        raise AgentSpecError(f"scenario {scenario.name!r} has {len(names)} parties "
                             f"({', '.join(names)}); got {len(specs)} agent spec(s)")
    for i, (name, raw) in enumerate(zip(names, specs, strict=True)):
        spec = parse_agent_spec(raw)
        entry = NEGOTIATORS.get(spec.kind)
        if entry is not None and entry.check is not None:
            NEGOTIATORS.check(spec)
            continue
        build_negotiator(spec, {"party": name, "scenario": scenario}).reset(
            np.random.default_rng([seed, i]))


async def run_negotiation(scenario: Scenario, specs: Sequence[AgentSpec | str], *,
                          params: Mapping[str, Any] | None = None, seed: int = 0,
                          ctx: Mapping[str, Any] | None = None) -> EpisodeResult:
    """Build protocol, agents, mediator and judge and run one negotiation."""
    params = dict(params or {})
    check_params(params)
    max_rounds = 20 if params.get("max_rounds") is None else int(params["max_rounds"])
    mediator = params.get("mediator")
    scorer = params.get("stagnation") or "code"
    order = params.get("turn_order")
    config = AlternatingConfig(
        max_rounds=max_rounds,
        acceptance=params.get("acceptance"),
        turn_order=tuple(order) if order else None,
        stagnation_rounds=int(params.get("stagnation_rounds", 3)),
        stagnation_epsilon=float(params.get("stagnation_epsilon", 1e-9)),
        max_messages_per_turn=int(params.get("max_messages_per_turn", 2)),
        mediator=bool(mediator),
        max_offers=params.get("max_offers"),
        stagnation_measure=str(params.get("stagnation_measure") or "utility"),
        stagnation_scorer=scorer != "code",
        stagnation_order=str(params.get("stagnation_order") or "walk-first"),
    )
    protocol = AlternatingOffers(scenario, config)
    context = dict(ctx or {})
    if not context.get("episode_id"):  # deterministic, so LLM cache entries replay
        from accord.domains.base import EpisodeSpec
        from accord.domains.ids import episode_id

        context["episode_id"] = episode_id(EpisodeSpec(
            "bargaining", scenario.name, tuple(parse_agent_spec(s) for s in specs),
            dict(params), seed))
    agents = build_agents(scenario, specs, seed, context)
    if mediator:
        # a trusted mediator (``pareto``) is built with the scenario; it never passes it on
        med = build_mediator(parse_agent_spec(mediator), {**context, "scenario": scenario})
        med.reset(np.random.default_rng([seed, 99]))
        agents[MEDIATOR] = med
    if scorer != "code":
        sc = build_stagnation_scorer(parse_agent_spec(scorer), context)
        sc.reset(np.random.default_rng([seed, 98]))
        agents[STAGNATION_ROLE] = sc
    judge = build_judge(parse_agent_spec(params.get("judge") or "rules"), context)
    bounds = Bounds(max_rounds=max_rounds, max_offers=params.get("max_offers"),
                    wall_clock=params.get("wall_clock"),
                    max_retries=int(params.get("max_retries", 5)))
    return await run_episode(protocol, agents, bounds=bounds, judge=judge)
