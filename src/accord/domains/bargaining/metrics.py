"""Pure per-episode metrics for bargaining (computed after the episode)."""

from __future__ import annotations

from typing import Any

from accord.core.pareto import distance_to_frontier
from accord.core.scenario import Scenario
from accord.protocols.engine import EpisodeResult


def bargaining_metrics(scenario: Scenario, result: EpisodeResult) -> dict[str, Any]:
    """Agreement, each party's utility and gain over BATNA, welfare, Pareto distance."""
    agreed = result.status == "agreement"
    utils = result.record.get("utilities", {})
    out: dict[str, Any] = {
        "agreement": agreed,
        "error": result.status == "error",
        "rounds": result.rounds,
        "walk": result.reason == "walk",
        "stagnation": result.reason == "stagnation",
        "bound_hit": result.reason == "bound_hit",
        "sycophancy": bool(result.flags.get("sycophancy", False)),
    }
    for p in scenario.parties:
        u = utils.get(p.name)
        out[f"u_{p.name}"] = u
        out[f"gain_{p.name}"] = None if u is None else u - p.batna
    vec = [utils.get(p) for p in scenario.party_names]
    out["welfare"] = sum(vec) if None not in vec else None
    if agreed and None not in vec:
        um = scenario.utility_matrix
        # frontier and Nash point are per-scenario data, cached on the scenario
        out["l2_to_pareto"] = distance_to_frontier(vec, scenario.pareto_frontier)
        n = scenario.nash_index
        out["l2_to_nash"] = None if n is None else distance_to_frontier(vec, um[n:n + 1])
    else:
        out["l2_to_pareto"] = None
        out["l2_to_nash"] = None
    return out
