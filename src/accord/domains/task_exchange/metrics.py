"""Task-exchange metrics (seed 000, Tables 1 and 2), pure functions of record and scenario.

Per episode: status, turns, each agent's normalised utility, social welfare (their sum),
the Euclidean (L2) distance from the final utility pair to the Pareto front, the same
three numbers for the initial allocation, and counts of invalid attempts per pattern.
Aggregates reproduce the paper's conventions: agreement rate over valid (non-error)
runs and error rate over all runs, each with the binomial standard error
``sqrt(p (1 - p) / n)``; other columns are mean and population SD over valid runs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

from accord.core.pareto import distance_to_frontier
from accord.core.trajectory import Trajectory
from accord.domains.task_exchange.masks import parse_mask
from accord.domains.task_exchange.scenario import Scenario
from accord.domains.task_exchange.validation import OTHER_REASONS, PATTERNS

Point = tuple[Fraction, Fraction]


def pareto_front(points: Iterable[Point]) -> list[Point]:
    """The distinct points not weakly dominated by another point (exact comparison), sorted."""
    pts = sorted(set(points))
    return [p for p in pts
            if not any(q[0] >= p[0] and q[1] >= p[1] and q != p for q in pts)]


def l2_to_front(point: Sequence[float | Fraction], front: Sequence[Point]) -> float:
    """Euclidean distance from ``point`` to the nearest point of ``front`` (0 on the front).

    The same definition as :func:`accord.core.pareto.distance_to_frontier`, which computes it.
    """
    if not front:
        raise ValueError("empty Pareto front")
    return distance_to_frontier([float(point[0]), float(point[1])],
                                [[float(a), float(b)] for a, b in front])


@lru_cache(maxsize=64)
def scenario_front(scenario: Scenario) -> tuple[Point, ...]:
    """Pareto front of all feasible final allocations (non-empty two-way splits)."""
    return tuple(pareto_front(p for _, p in scenario.outcomes()))


def outcome_numbers(scenario: Scenario, allocation: Mapping[str, int]) -> dict[str, Any]:
    """Utilities, social welfare and L2 to the Pareto front of one allocation."""
    point = scenario.point(allocation)
    return {"utilities": {r: float(u) for r, u in zip(scenario.roles, point, strict=True)},
            "social_welfare": float(point[0] + point[1]),
            "l2_to_pareto": l2_to_front(point, scenario_front(scenario))}


def initial_row(scenario: Scenario) -> dict[str, Any]:
    """Table 1(c): the numbers of the original allocation (each agent keeps its main task)."""
    return outcome_numbers(scenario, scenario.initial)


def record_allocation(scenario: Scenario, record: Mapping[str, Any]) -> dict[str, int] | None:
    """The final ``role -> mask`` of an episode record, or ``None`` (error)."""
    alloc = record.get("allocation")
    if not alloc:
        return None
    return {r: parse_mask(v["mask"], scenario.universe.n) for r, v in alloc.items()}


def invalid_counts(trajectory: Trajectory) -> dict[str, int]:
    """Invalid attempts per reason: engine-rejected attempts plus failed final checks."""
    counts = {r: 0 for r in (*PATTERNS, *OTHER_REASONS)}
    for ev in trajectory:
        reason = None
        if ev.kind == "invalid":
            reason = ev.reason
        elif ev.kind == "note" and ev.reason == "final_check_failed":
            reason = ev.data.get("pattern")
        if reason is not None:
            counts[reason] = counts.get(reason, 0) + 1
    return counts


def unchecked_counts(trajectory: Trajectory) -> dict[str, int]:
    """Baseline only: invalid proposals forwarded unchecked in intermediate turns, per pattern."""
    counts: dict[str, int] = {}
    for ev in trajectory:
        if ev.kind == "note" and ev.reason == "unchecked_invalid":
            pat = str(ev.data.get("pattern"))
            counts[pat] = counts.get(pat, 0) + 1
    return counts


def episode_metrics(scenario: Scenario, record: Mapping[str, Any],
                    trajectory: Trajectory) -> dict[str, Any]:
    """Flat per-episode metrics (numbers, bools or None) for aggregation."""
    status = record["status"]
    error = status == "error"
    out: dict[str, Any] = {"status": status, "error": error,
                           "agreed": None if error else status == "agreed",
                           "turns": None if error else record["turns"]}
    alloc = record_allocation(scenario, record)
    nums = outcome_numbers(scenario, alloc) if alloc is not None else None
    for role in scenario.roles:
        out[f"utility_{role}"] = nums["utilities"][role] if nums else None
    out["social_welfare"] = nums["social_welfare"] if nums else None
    out["l2_to_pareto"] = nums["l2_to_pareto"] if nums else None
    init = initial_row(scenario)
    for role in scenario.roles:
        out[f"initial_utility_{role}"] = init["utilities"][role]
    out["initial_social_welfare"] = init["social_welfare"]
    out["initial_l2_to_pareto"] = init["l2_to_pareto"]
    counts = invalid_counts(trajectory)
    total = sum(counts.values())
    for reason in PATTERNS:
        out[f"invalid_{reason}"] = counts[reason]
    out["invalid_other"] = sum(counts[r] for r in counts if r not in PATTERNS)
    out["invalid_total"] = total
    out["attempts"] = int(record["turns"]) + total
    out["unchecked_invalid"] = sum(unchecked_counts(trajectory).values())
    return out


def _rate(flags: Sequence[bool]) -> tuple[float | None, float | None]:
    if not flags:
        return None, None
    p = sum(flags) / len(flags)
    return 100 * p, 100 * math.sqrt(p * (1 - p) / len(flags))


def _mean_sd(vals: Sequence[float]) -> tuple[float | None, float | None]:
    if not vals:
        return None, None
    mean = sum(vals) / len(vals)
    return mean, math.sqrt(sum((v - mean) ** 2 for v in vals) / len(vals))


def table1_row(runs: Sequence[Mapping[str, Any]], roles: Sequence[str]) -> dict[str, Any]:
    """One Table 1 row from per-episode metrics: ``(mean, spread)`` pairs, None without data."""
    valid = [m for m in runs if not m["error"]]
    row: dict[str, Any] = {"runs": len(runs), "valid": len(valid),
                           "agreement": _rate([bool(m["agreed"]) for m in valid]),
                           "error": _rate([bool(m["error"]) for m in runs]),
                           "turns": _mean_sd([float(m["turns"]) for m in valid])}
    for role in roles:
        row[role] = _mean_sd([float(m[f"utility_{role}"]) for m in valid])
    row["social_welfare"] = _mean_sd([float(m["social_welfare"]) for m in valid])
    row["l2_to_pareto"] = _mean_sd([float(m["l2_to_pareto"]) for m in valid])
    return row


def table2_row(runs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One Table 2 row: attempts (turns + invalid attempts) and each pattern's count and share."""
    attempts = sum(int(m["attempts"]) for m in runs)
    row: dict[str, Any] = {"attempts": attempts}
    for reason, code in PATTERNS.items():
        count = sum(int(m[f"invalid_{reason}"]) for m in runs)
        row[code] = (count, 100 * count / attempts if attempts else None)
    other = sum(int(m["invalid_other"]) for m in runs)
    row["OTH"] = (other, 100 * other / attempts if attempts else None)
    return row


__all__ = [
    "Point",
    "episode_metrics",
    "initial_row",
    "invalid_counts",
    "l2_to_front",
    "outcome_numbers",
    "pareto_front",
    "record_allocation",
    "scenario_front",
    "table1_row",
    "table2_row",
    "unchecked_counts",
]
