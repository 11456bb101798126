"""Registry of negotiation agent kinds, built from :class:`~accord.agents.spec.AgentSpec`.

Registration is explicit (DESIGN.md principle 10): each kind maps to a factory taking
the spec and a context dict (party, scenario, LLM settings, episode id), held in an
:class:`~accord.agents.kinds.AgentRegistry` like every domain's kinds. ``llm`` is added by
``accord.agents.llm_negotiator`` when the LLM extra is importable; installed packages add
kinds through the ``accord.agents`` entry points ``bargaining.<kind>``,
``bargaining.mediator.<kind>`` and ``bargaining.judge.<kind>``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from accord.agents.base import Agent
from accord.agents.concession import (
    AcceptAllAgent,
    HardlinerAgent,
    RandomAgent,
    TimeBasedAgent,
    TitForTatAgent,
)
from accord.agents.kinds import AgentRegistry, Randomness
from accord.agents.spec import AgentSpec, AgentSpecError
from accord.protocols.judge import RuleJudge, TerminationJudge

Factory = Callable[[AgentSpec, Mapping[str, Any]], Agent]


def _opts(spec: AgentSpec, allowed: set[str]) -> dict[str, Any]:
    bad = sorted(set(spec.options) - allowed)
    if bad:
        raise AgentSpecError(f"agent {spec.kind!r} has no option(s) {bad}; "
                             f"options: {sorted(allowed) or 'none'}")
    return dict(spec.options)


def _number(key: str, value: Any) -> float:
    """An option's value as a finite float, or a ``ValueError`` naming the option (a
    spec's options are read as YAML: ``abc`` is a string, ``true`` a bool)."""
    try:
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise ValueError
        out = float(value)
    except ValueError:
        raise ValueError(f"option {key} must be a number, got {value!r}") from None
    if not math.isfinite(out):
        raise ValueError(f"option {key} must be a finite number, got {value!r}")
    return out


def _numbers(spec: AgentSpec, allowed: set[str]) -> dict[str, float]:
    """:func:`_opts` with every value a number."""
    return {k: _number(k, v) for k, v in _opts(spec, allowed).items()}


def _time_based(default_e: float, name: str) -> Factory:
    def make(spec: AgentSpec, ctx: Mapping[str, Any]) -> Agent:
        o = _opts(spec, {"e"})
        return TimeBasedAgent(_number("e", o.get("e", spec.arg or default_e)), name=name)
    return make


#: the optional module that registers the LLM kinds (imported when a kind is missing)
_OPTIONAL = ("accord.agents.llm_negotiator", "accord.agents.llm_stagnation")

NEGOTIATORS: AgentRegistry[Mapping[str, Any], Agent] = AgentRegistry(
    "bargaining", "agent", lazy=_OPTIONAL, label="agent")
"""Bargaining negotiator kinds; ``ctx`` carries ``party``, ``scenario``, ``llm`` and
``episode_id``."""

# every concession strategy but ``random`` is a function of the offers alone (no draw from
# its generator), so its moves are the same for every seed
for _kind, _factory in {
    "boulware": _time_based(0.2, "boulware"),
    "linear": _time_based(1.0, "linear"),
    "conceder": _time_based(2.0, "conceder"),
    "time-based": _time_based(1.0, "time-based"),
    "tit-for-tat": lambda s, c: TitForTatAgent(**_numbers(s, {"initial_concession"})),
    "hardliner": lambda s, c: HardlinerAgent(**_opts(s, set())),
    "accept-all": lambda s, c: AcceptAllAgent(**_opts(s, set())),
}.items():
    NEGOTIATORS.register(_kind, _factory, stochastic=False)
NEGOTIATORS.register("random", lambda s, c: RandomAgent(**_numbers(s, {"p_accept"})),
                     stochastic=True)
# a person is neither: nothing is declared
NEGOTIATORS.register("human", lambda s, c: _human(s, c), check=lambda s: _no_options(s))


def _negmas(spec: AgentSpec, ctx: Mapping[str, Any]) -> Agent:
    """``negmas:CLASS?options``: a NegMAS negotiator (the ``accord[negmas]`` extra; NegMAS
    is imported only when such an agent is built)."""
    from accord.agents.negmas_adapter import make_negmas_agent

    return make_negmas_agent(spec, ctx)


# NegMAS negotiators draw from Python's global random module: not declared either way
NEGOTIATORS.register("negmas", _negmas)


def _no_options(spec: AgentSpec) -> None:
    _opts(spec, set())


def _human(spec: AgentSpec, ctx: Mapping[str, Any]) -> Agent:
    """A person at the seat in ``ctx["seat"]`` (terminal or browser), see agents.human."""
    from accord.agents.human import HumanAgent, seat_from
    from accord.agents.human.bargaining import BargainingView

    _opts(spec, set())
    scenario = ctx.get("scenario")
    return HumanAgent(seat_from(ctx), BargainingView(
        getattr(scenario, "name", ""), getattr(scenario, "description", "")))


def _pareto(spec: AgentSpec, ctx: Mapping[str, Any]) -> Agent:
    _opts(spec, set())
    scenario = ctx.get("scenario")
    if scenario is None:
        raise AgentSpecError("mediator 'pareto' needs the scenario (it is a trusted mediator "
                             "that sees the utilities); build it through run_negotiation")
    from accord.agents.pareto_mediator import ParetoMediator  # only when one is asked for

    return ParetoMediator(scenario)


def _midpoint(spec: AgentSpec, ctx: Mapping[str, Any]) -> Agent:
    from accord.agents.mediator import MidpointMediator  # only when one is asked for

    return MidpointMediator()


MEDIATORS: AgentRegistry[Mapping[str, Any], Agent] = AgentRegistry(
    "bargaining.mediator", "mediator", lazy=_OPTIONAL, label="mediator")
MEDIATORS.register("midpoint", _midpoint, stochastic=False)
MEDIATORS.register("pareto", _pareto, stochastic=False)

JUDGES: AgentRegistry[Mapping[str, Any], TerminationJudge] = AgentRegistry(
    "bargaining.judge", "judge", lazy=_OPTIONAL, label="judge")
JUDGES.register("rules", lambda s, c: RuleJudge())

#: Stagnation Scorer kinds (seed 002's optional role); ``llm`` is added with the LLM layer
STAGNATION_SCORERS: AgentRegistry[Mapping[str, Any], Agent] = AgentRegistry(
    "bargaining.stagnation", "stagnation scorer", lazy=_OPTIONAL, label="stagnation scorer")

JudgeFactory = Callable[[AgentSpec, Mapping[str, Any]], TerminationJudge]


def register_negotiator(kind: str, factory: Factory, *, stochastic: Randomness = None) -> None:
    """Add a negotiation agent kind (``stochastic``: see
    :data:`~accord.agents.kinds.Randomness`)."""
    NEGOTIATORS.register(kind, factory, stochastic=stochastic)


def register_mediator(kind: str, factory: Factory, *, stochastic: Randomness = None) -> None:
    """Add a mediator kind (``stochastic``: see :data:`~accord.agents.kinds.Randomness`)."""
    MEDIATORS.register(kind, factory, stochastic=stochastic)


def register_judge(kind: str, factory: JudgeFactory) -> None:
    """Add a termination judge kind."""
    JUDGES.register(kind, factory)


def build_judge(spec: AgentSpec, ctx: Mapping[str, Any] | None = None) -> TerminationJudge:
    """Instantiate a termination judge from its spec (``rules`` is the default)."""
    return JUDGES.build(spec, ctx or {})


def build_negotiator(spec: AgentSpec, ctx: Mapping[str, Any] | None = None) -> Agent:
    """Instantiate a negotiation agent from its spec."""
    return NEGOTIATORS.build(spec, ctx or {})


def build_mediator(spec: AgentSpec, ctx: Mapping[str, Any] | None = None) -> Agent:
    """Instantiate a mediator from its spec."""
    return MEDIATORS.build(spec, ctx or {})


def register_stagnation_scorer(kind: str, factory: Factory) -> None:
    """Add a Stagnation Scorer kind."""
    STAGNATION_SCORERS.register(kind, factory)


def build_stagnation_scorer(spec: AgentSpec, ctx: Mapping[str, Any] | None = None) -> Agent:
    """Instantiate a Stagnation Scorer (``llm:MODEL``) from its spec."""
    return STAGNATION_SCORERS.build(spec, ctx or {})
