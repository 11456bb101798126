"""Run one bargaining episode from a scenario, agent specs and protocol parameters."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from accord.agents.base import Agent
from accord.agents.hygiene import same_model_map
from accord.agents.registry import (
    build_judge,
    build_mediator,
    build_negotiator,
    build_stagnation_scorer,
)
from accord.agents.spec import AgentSpec, AgentSpecError, parse_agent_spec
from accord.core.scenario import Scenario
from accord.domains.bargaining.settings import DEFAULT_SETTINGS, PARAM_NAMES, BargainingSettings
from accord.protocols.alternating import MEDIATOR, AlternatingOffers
from accord.protocols.engine import EpisodeResult, run_episode
from accord.protocols.stagnation import STAGNATION_ROLE

#: protocol parameters accepted in ``params`` (CLI flags and bench configs)
PARAMS = PARAM_NAMES


class ParamError(ValueError):
    """A protocol parameter that is unknown or has the wrong type or value."""


def check_params(params: Mapping[str, Any]) -> BargainingSettings:
    """The parameters read through
    :class:`~accord.domains.bargaining.params.BargainingParams` as the settings an episode
    runs on, or a :class:`ParamError` naming the unknown or wrong key, what is wrong and the
    value given.

    No parameters means every default: :data:`DEFAULT_SETTINGS`, without importing pydantic
    (a single ``accord run`` of code agents does not pay for the checker it does not need).
    """
    if not params:
        return DEFAULT_SETTINGS
    from accord.domains.bargaining.params import BargainingParams
    from accord.domains.params import read_params

    try:
        return read_params(BargainingParams, params, "bargaining").settings()
    except ValueError as exc:
        raise ParamError(str(exc)) from None


def with_rules(scenario: Scenario, params: Mapping[str, Any]) -> dict[str, Any]:
    """The episode's parameters: the scenario's own ``rules`` (an imported game's voting
    rules, opener, round cap) under the explicitly given ``params``, which win."""
    return {**scenario.rules, **params}


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
        agent.reset_seeded(seed, i)  # default_rng([seed, i]), made if the agent draws
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
        build_negotiator(spec, {"party": name, "scenario": scenario}).reset_seeded(seed, i)


async def run_negotiation(scenario: Scenario, specs: Sequence[AgentSpec | str], *,
                          params: Mapping[str, Any] | None = None, seed: int = 0,
                          ctx: Mapping[str, Any] | None = None) -> EpisodeResult:
    """Build protocol, agents, mediator and judge and run one negotiation.

    The stagnation rule's K is resolved for the line-up
    (:meth:`~accord.domains.bargaining.settings.BargainingSettings.stagnation_setting`) and
    recorded in the result's ``record["stagnation"]``.
    """
    params = dict(params or {})
    p = check_params(with_rules(scenario, params))
    p.check_parties(scenario.name, scenario.party_names)
    stagnation = p.stagnation_setting(specs)
    if "stagnation_rounds" in scenario.rules and "stagnation_rounds" not in params:
        stagnation = dataclasses.replace(stagnation, rule="scenario",
                                         why="set by the scenario's rules")
    protocol = AlternatingOffers(scenario, p.protocol_config(
        stagnation.rounds, {q.name: q.batna for q in scenario.parties}))
    context = dict(ctx or {})
    if not context.get("episode_id"):  # deterministic, so LLM cache entries replay
        from accord.domains.base import EpisodeSpec
        from accord.domains.ids import episode_id

        context["episode_id"] = episode_id(EpisodeSpec(
            "bargaining", scenario.name, tuple(parse_agent_spec(s) for s in specs),
            dict(params), seed))
    agents = build_agents(scenario, specs, seed, context)
    if p.mediator:
        # a trusted mediator (``pareto``) is built with the scenario; it never passes it on
        med = build_mediator(parse_agent_spec(p.mediator), {**context, "scenario": scenario})
        med.reset(np.random.default_rng([seed, 99]))
        agents[MEDIATOR] = med
    if protocol.config.stagnation_scorer:
        sc = build_stagnation_scorer(parse_agent_spec(p.stagnation), context)
        sc.reset(np.random.default_rng([seed, 98]))
        agents[STAGNATION_ROLE] = sc
    judge = build_judge(parse_agent_spec(p.judge), context)
    result = await run_episode(protocol, agents, bounds=p.bounds(), judge=judge)
    flags = result.flags
    same = same_model_map(specs, params)
    if same:  # V15: a judge or mediator on a party's model, flagged on the run's record
        flags = {**flags, "same_model": same}
    return dataclasses.replace(result, flags=flags, record={
        **result.record, "stagnation": stagnation.to_dict()})
