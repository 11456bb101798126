"""Registry of negotiation agent kinds, built from :class:`~accord.agents.spec.AgentSpec`.

Registration is explicit (DESIGN.md principle 10): each kind maps to a factory taking
the spec and a context dict (LLM settings, episode id). ``llm`` is added by
``accord.agents.llm`` when the LLM extra is importable.
"""

from __future__ import annotations

import contextlib
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
from accord.agents.mediator import MidpointMediator
from accord.agents.spec import AgentSpec, AgentSpecError
from accord.core.names import unknown_name
from accord.protocols.judge import RuleJudge, TerminationJudge

Factory = Callable[[AgentSpec, Mapping[str, Any]], Agent]


def _opts(spec: AgentSpec, allowed: set[str]) -> dict[str, Any]:
    bad = sorted(set(spec.options) - allowed)
    if bad:
        raise AgentSpecError(f"agent {spec.kind!r} has no option(s) {bad}; "
                             f"options: {sorted(allowed) or 'none'}")
    return dict(spec.options)


def _time_based(default_e: float, name: str) -> Factory:
    def make(spec: AgentSpec, ctx: Mapping[str, Any]) -> Agent:
        o = _opts(spec, {"e"})
        return TimeBasedAgent(float(o.get("e", spec.arg or default_e)), name=name)
    return make


NEGOTIATORS: dict[str, Factory] = {
    "boulware": _time_based(0.2, "boulware"),
    "linear": _time_based(1.0, "linear"),
    "conceder": _time_based(2.0, "conceder"),
    "time-based": _time_based(1.0, "time-based"),
    "tit-for-tat": lambda s, c: TitForTatAgent(**_opts(s, {"initial_concession"})),
    "hardliner": lambda s, c: HardlinerAgent(**_opts(s, set())),
    "random": lambda s, c: RandomAgent(**_opts(s, {"p_accept"})),
    "accept-all": lambda s, c: AcceptAllAgent(**_opts(s, set())),
    "human": lambda s, c: _human(s, c),
}


def _human(spec: AgentSpec, ctx: Mapping[str, Any]) -> Agent:
    """A person at the seat in ``ctx["seat"]`` (terminal or browser), see agents.human."""
    from accord.agents.human import HumanAgent, seat_from
    from accord.agents.human.bargaining import BargainingView

    _opts(spec, set())
    return HumanAgent(seat_from(ctx), BargainingView())

MEDIATORS: dict[str, Factory] = {
    "midpoint": lambda s, c: MidpointMediator(),
}

JudgeFactory = Callable[[AgentSpec, Mapping[str, Any]], TerminationJudge]

JUDGES: dict[str, JudgeFactory] = {
    "rules": lambda s, c: RuleJudge(),
}


def register_negotiator(kind: str, factory: Factory) -> None:
    """Add a negotiation agent kind."""
    NEGOTIATORS[kind] = factory


def register_mediator(kind: str, factory: Factory) -> None:
    """Add a mediator kind."""
    MEDIATORS[kind] = factory


def register_judge(kind: str, factory: JudgeFactory) -> None:
    """Add a termination judge kind."""
    JUDGES[kind] = factory


def build_judge(spec: AgentSpec, ctx: Mapping[str, Any] | None = None) -> TerminationJudge:
    """Instantiate a termination judge from its spec (``rules`` is the default)."""
    if spec.kind not in JUDGES:
        _load_optional()
    factory = JUDGES.get(spec.kind)
    if factory is None:
        raise AgentSpecError(unknown_name("judge", spec.kind, JUDGES))
    return factory(spec, ctx or {})


def _build(table: dict[str, Factory], what: str, spec: AgentSpec, ctx: Mapping[str, Any]) -> Agent:
    if spec.kind not in table:  # optional kinds (LLM agents) load only when asked for
        _load_optional()
    factory = table.get(spec.kind)
    if factory is None:
        raise AgentSpecError(unknown_name(what, spec.kind, table))
    try:
        return factory(spec, ctx)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, AgentSpecError):
            raise
        raise AgentSpecError(f"bad options for {what} {str(spec)!r}: {exc}") from None


def build_negotiator(spec: AgentSpec, ctx: Mapping[str, Any] | None = None) -> Agent:
    """Instantiate a negotiation agent from its spec."""
    return _build(NEGOTIATORS, "agent", spec, ctx or {})


def build_mediator(spec: AgentSpec, ctx: Mapping[str, Any] | None = None) -> Agent:
    """Instantiate a mediator from its spec."""
    return _build(MEDIATORS, "mediator", spec, ctx or {})


_optional_loaded = False


def _load_optional() -> None:
    """Import optional agent kinds (LLM agents) once, if their dependencies are present."""
    global _optional_loaded
    if _optional_loaded:
        return
    _optional_loaded = True
    import importlib

    for mod in ("accord.agents.llm_negotiator",):
        with contextlib.suppress(ImportError):
            importlib.import_module(mod)
