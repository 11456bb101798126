"""Pure per-episode metrics for bargaining (computed after the episode)."""

from __future__ import annotations

from typing import Any

from accord.core.pareto import distance_to_frontier
from accord.core.scenario import Scenario
from accord.protocols.engine import EpisodeResult


def bargaining_metrics(scenario: Scenario, result: EpisodeResult) -> dict[str, Any]:
    """Agreement, each party's utility and gain over BATNA, welfare, Pareto distance.

    With time discounts the utilities are those of the record (discounted to the time
    the episode ended); the gain is over the BATNA discounted to the same time, and the
    distances are to the frontier and Nash point as worth at that time.
    """
    agreed = result.status == "agreement"
    utils = result.record.get("utilities", {})
    t = result.record.get("time") if scenario.discounted else None
    scale = scenario.multipliers_at(float(t)) if t is not None else None
    out: dict[str, Any] = {
        "agreement": agreed,
        "error": result.status == "error",
        "rounds": result.rounds,
        "walk": result.reason == "walk",
        "stagnation": result.reason == "stagnation",
        "bound_hit": result.reason == "bound_hit",
        "sycophancy": bool(result.flags.get("sycophancy", False)),
    }
    for k, p in enumerate(scenario.parties):
        u = utils.get(p.name)
        out[f"u_{p.name}"] = u
        floor = p.batna if scale is None else p.batna * float(scale[k])
        out[f"gain_{p.name}"] = None if u is None else u - floor
    vec = [utils.get(p) for p in scenario.party_names]
    out["welfare"] = sum(vec) if None not in vec else None
    if agreed and None not in vec:
        um = scenario.utility_matrix
        # frontier and Nash point are per-scenario data, cached on the scenario
        front = scenario.pareto_frontier
        n = scenario.nash_index
        nash = None if n is None else um[n:n + 1]
        if scale is not None:  # the same points, each party's utility worth delta ** t
            front = front * scale
            nash = None if nash is None else nash * scale
        out["l2_to_pareto"] = distance_to_frontier(vec, front)
        out["l2_to_nash"] = None if nash is None else distance_to_frontier(vec, nash)
    else:
        out["l2_to_pareto"] = None
        out["l2_to_nash"] = None
    return out
