"""Scenario analysis: the Pareto frontier and bargaining solution points, as records."""

from __future__ import annotations

from typing import Any

from accord.core.pareto import pareto_indices
from accord.core.scenario import Scenario
from accord.core.solutions import (
    individually_rational,
    kalai_point,
    kalai_smorodinsky_point,
    max_welfare_point,
    nash_point,
)


def _point(scenario: Scenario, index: int | None) -> dict[str, Any] | None:
    if index is None:
        return None
    u = scenario.utility_matrix[index]
    return {"outcome": scenario.space.package(index),
            "utilities": {p: float(x) for p, x in zip(scenario.party_names, u, strict=True)}}


def analyze(scenario: Scenario) -> dict[str, Any]:
    """Every Pareto-optimal outcome (not filtered by BATNA) and the solution points.

    Nash, Kalai (egalitarian), Kalai-Smorodinsky and max-welfare points are computed over
    individually rational outcomes; each is ``None`` when there is none. ``max_welfare``
    then falls back to all outcomes and is marked ``"individually_rational": false``, so
    the most efficient outcome is always reported.
    """
    u = scenario.utility_matrix
    d = scenario.batnas
    pareto = [_point(scenario, int(i)) for i in pareto_indices(u)]
    ir = individually_rational(u, d)
    mw = _point(scenario, max_welfare_point(u, d))
    if mw is None:
        mw = _point(scenario, max_welfare_point(u))
        assert mw is not None
        mw["individually_rational"] = False
    return {
        "scenario": scenario.name,
        "parties": list(scenario.party_names),
        "batna": {p.name: p.batna for p in scenario.parties},
        "outcomes": scenario.space.size,
        "individually_rational": int(ir.sum()),
        "pareto": pareto,
        "nash": _point(scenario, nash_point(u, d)),
        "kalai": _point(scenario, kalai_point(u, d)),
        "kalai_smorodinsky": _point(scenario, kalai_smorodinsky_point(u, d)),
        "max_welfare": mw,
    }
