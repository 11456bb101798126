"""Scenario analysis: the Pareto frontier and bargaining solution points, as records."""

from __future__ import annotations

from typing import Any

import numpy as np

from accord.core.pareto import canonical_utilities, pareto_indices
from accord.core.scenario import Scenario
from accord.core.solutions import (
    individually_rational,
    kalai_point,
    kalai_smorodinsky_point,
    max_welfare_point,
    nash_point,
)


def _point(scenario: Scenario, u: np.ndarray, index: int | None) -> dict[str, Any] | None:
    if index is None:
        return None
    return {"outcome": scenario.space.package(index),
            "utilities": {p: float(x) for p, x in zip(scenario.party_names, u[index],
                                                       strict=True)}}


def _frontier_point(scenario: Scenario, u: np.ndarray, d: np.ndarray,
                    index: int) -> dict[str, Any]:
    """A frontier point with its individual-rationality marker: which parties (if any) it
    leaves below their BATNA."""
    point = _point(scenario, u, index)
    assert point is not None
    below = [p for p, x, b in zip(scenario.party_names, u[index], d, strict=True) if x < b]
    point["individually_rational"] = not below
    point["below_batna"] = below
    return point


def passing_under_rules(scenario: Scenario, u: np.ndarray) -> dict[str, Any] | None:
    """Under the scenario's voting rules (``rules.acceptance``, ``rules.thresholds``): how
    many outcomes pass when every party says yes exactly when the outcome meets its
    minimum (its BATNA without a threshold rule; a unanimity bonus added when every other
    party says yes), as LLM-Deliberation counts a game's feasible deals; ``None`` for a
    scenario without voting rules."""
    if not scenario.rules:
        return None
    from accord.domains.bargaining.params import BargainingParams
    from accord.domains.params import read_params

    p = read_params(BargainingParams, scenario.rules, "bargaining")
    names = scenario.party_names
    batnas = {q.name: q.batna for q in scenario.parties}
    floors = {**batnas, **p.minimums(batnas)}
    yes = u >= np.array([floors[n] for n in names])
    for name, points in (p.unanimity_bonus or {}).items():
        i = names.index(name)
        others = np.delete(yes, i, axis=1).all(axis=1)
        yes[:, i] |= others & (u[:, i] + points >= floors[name])
    k = len(names) if p.k is None else p.k
    ok = yes.sum(axis=1) >= k
    for r in p.required:
        ok &= yes[:, names.index(r)]
    return {"outcomes": int(ok.sum()), "k": k, "required": list(p.required)}


def analyze(scenario: Scenario, time: float = 0.0) -> dict[str, Any]:
    """Every Pareto-optimal outcome (not filtered by BATNA) and the solution points.

    ``time`` is the relative time (in [0, 1], Genius's: round ``r`` of ``R`` is at
    ``r / (R + 1)``) at which the utilities and BATNAs of parties with a time discount
    are taken (``u * delta ** time``); by default 0, the undiscounted game. A scenario
    with a discount reports ``time`` and ``discount`` (per party). Scaling one party's
    utilities and BATNA by the same factor keeps the Pareto-optimal outcomes, the Nash
    and the Kalai-Smorodinsky points; the egalitarian (Kalai) and max-welfare points can
    move with time.

    Each frontier point carries ``individually_rational`` (every party at or above its
    BATNA) and ``below_batna`` (the parties it leaves below theirs, in party order);
    ``pareto_individually_rational`` counts the frontier points that are.

    Nash, Kalai (egalitarian), Kalai-Smorodinsky and max-welfare points are computed over
    individually rational outcomes; each is ``None`` when there is none. ``max_welfare``
    then falls back to all outcomes and is marked ``"individually_rational": false``, so
    the most efficient outcome is always reported.

    Utilities are rounded to 12 significant decimals of their scale
    (:func:`~accord.core.pareto.canonical_utilities`) before anything is compared or
    reported: a scenario's weights and scores are decimals, so the sum of products
    ``0.9624999999999999`` is reported as the ``0.9625`` it stands for, and a package worth
    exactly a party's BATNA is individually rational rather than a rounding error below.

    A scenario with voting rules also gets ``passing_under_rules``
    (:func:`passing_under_rules`).
    """
    if not 0.0 <= time <= 1.0:
        raise ValueError(f"the relative time must be between 0 and 1, got {time!r}")
    scale = scenario.multipliers_at(time)
    u = canonical_utilities(scenario.utility_matrix * scale if scenario.discounted
                            else scenario.utility_matrix)
    d = np.asarray(scenario.batnas * scale, dtype=np.float64)
    pareto = [_frontier_point(scenario, u, d, int(i)) for i in pareto_indices(u)]
    ir = individually_rational(u, d)
    mw = _point(scenario, u, max_welfare_point(u, d))
    if mw is None:
        mw = _point(scenario, u, max_welfare_point(u))
        assert mw is not None
        mw["individually_rational"] = False
    out: dict[str, Any] = {
        "scenario": scenario.name,
        "parties": list(scenario.party_names),
        "batna": {p.name: float(b) for p, b in zip(scenario.parties, d, strict=True)},
        "outcomes": scenario.space.size,
        "individually_rational": int(ir.sum()),
        "pareto_individually_rational": sum(1 for p in pareto if p["individually_rational"]),
        "pareto": pareto,
        "nash": _point(scenario, u, nash_point(u, d)),
        "kalai": _point(scenario, u, kalai_point(u, d)),
        "kalai_smorodinsky": _point(scenario, u, kalai_smorodinsky_point(u, d)),
        "max_welfare": mw,
    }
    if scenario.discounted or time:
        out["time"] = time
        out["discount"] = {p.name: p.discount for p in scenario.parties}
    # the rules count votes on the undiscounted scores (the game has no clock)
    passing = passing_under_rules(scenario, u if not scenario.discounted
                                  else canonical_utilities(scenario.utility_matrix))
    if passing is not None:
        out["passing_under_rules"] = passing
    return out
