"""Metrics against hand-computed values (Tables 1 and 2 conventions)."""

from __future__ import annotations

import math
from fractions import Fraction as F
from typing import Any

import numpy as np
import pytest

from accord.core.pareto import pareto_mask
from accord.core.trajectory import Trajectory
from accord.domains.task_exchange import (
    MainTask,
    TaskUniverse,
    episode_metrics,
    get_scenario,
    table1_row,
    table2_row,
)
from accord.domains.task_exchange.generation import build_scenario
from accord.domains.task_exchange.metrics import (
    initial_row,
    l2_to_front,
    pareto_front,
    scenario_front,
)
from accord.domains.task_exchange.scenario import AtomicTask, Scenario


def tiny(alice: list[int], bob: list[int]) -> Scenario:
    """Two atomic tasks; Alice holds task 0 (mask 01), Bob task 1 (mask 10)."""
    uni = TaskUniverse("tiny", (AtomicTask(0, "t0", "t0()", "task zero"),
                                AtomicTask(1, "t1", "t1()", "task one")),
                       (MainTask("zero", 1, "do zero"), MainTask("one", 2, "do one")),
                       ("nothing", "zero", "one", "both"))
    return build_scenario("tiny", uni, [
        {"role": "A", "main_task": "zero", "raw_scores": dict(enumerate(alice))},
        {"role": "B", "main_task": "one", "raw_scores": dict(enumerate(bob))}])


def test_pareto_front_exact() -> None:
    pts = [(F(1, 2), F(1, 2)), (F(1), F(0)), (F(1, 2), F(1, 4)), (F(0), F(1)), (F(1), F(0))]
    assert pareto_front(pts) == [(F(0), F(1)), (F(1, 2), F(1, 2)), (F(1), F(0))]
    # weakly dominated points drop out, ties stay once
    assert pareto_front([(F(1), F(1)), (F(1), F(1, 2))]) == [(F(1), F(1))]


def test_l2_to_front_hand_computed() -> None:
    front = [(F(0), F(1)), (F(1, 2), F(1, 2)), (F(1), F(0))]
    assert l2_to_front((0.5, 0.5), front) == 0
    assert l2_to_front((0.2, 0.3), front) == pytest.approx(math.hypot(0.3, 0.2))
    with pytest.raises(ValueError):
        l2_to_front((0, 0), [])


@pytest.mark.parametrize("name", ["cooperative", "competitive"])
def test_exact_front_agrees_with_core_pareto(name: str) -> None:
    sc = get_scenario(name)
    pts = np.array([[float(a), float(b)] for _, (a, b) in sc.outcomes()])
    core = {tuple(p) for p in pts[pareto_mask(pts)]}
    assert core == {(float(a), float(b)) for a, b in scenario_front(sc)}


def test_tiny_scenario_numbers() -> None:
    # Alice: zero=40, one=100 (max 100); Bob: zero=80, one=20 (max 80)
    sc = tiny([0, 40, 100, 50], [0, 80, 20, 50])
    # splits: A=01,B=10 -> (0.4, 0.25); A=10,B=01 -> (1.0, 1.0)
    assert list(scenario_front(sc)) == [(F(1), F(1))]
    row = initial_row(sc)
    assert row["utilities"] == {"A": 0.4, "B": 0.25}
    assert row["social_welfare"] == pytest.approx(0.65)
    assert row["l2_to_pareto"] == pytest.approx(math.sqrt(0.6 ** 2 + 0.75 ** 2))


def test_cooperative_front_and_a_swap() -> None:
    sc = get_scenario("cooperative")
    assert [(float(a), float(b)) for a, b in scenario_front(sc)] == [(0.88, 1.0), (1.0, 0.9)]
    # initial (0.75, 0.70) is nearest to (1.0, 0.9): sqrt(0.25^2 + 0.2^2)
    assert initial_row(sc)["l2_to_pareto"] == pytest.approx(math.hypot(0.25, 0.2))


def _record(status: str, turns: int, masks: dict[str, str] | None) -> dict[str, Any]:
    alloc = None if masks is None else {r: {"mask": m, "description": ""}
                                        for r, m in masks.items()}
    return {"status": status, "turns": turns, "allocation": alloc, "proposals": []}


def test_episode_metrics_counts_and_utilities() -> None:
    sc = tiny([0, 40, 100, 50], [0, 80, 20, 50])
    log = Trajectory()
    log.add(2, "A", "invalid", reason="overlap")
    log.add(2, "A", "invalid", reason="overlap")
    log.add(3, "B", "invalid", reason="malformed_proposal")
    m = episode_metrics(sc, _record("agreed", 3, {"A": "10", "B": "01"}), log)
    assert m["agreed"] is True and m["error"] is False and m["turns"] == 3
    assert (m["utility_A"], m["utility_B"], m["social_welfare"]) == (1.0, 1.0, 2.0)
    assert m["l2_to_pareto"] == 0
    assert m["invalid_overlap"] == 2 and m["invalid_other"] == 1 and m["invalid_total"] == 3
    assert m["attempts"] == 6
    err = episode_metrics(sc, _record("error", 2, None), log)
    assert err["agreed"] is None and err["turns"] is None and err["utility_A"] is None
    assert err["social_welfare"] is None and err["attempts"] == 5


def test_table1_row_matches_paper_conventions() -> None:
    # 10 runs: 4 errors; of 6 valid runs 5 agreed -> 83.3 +- 15.2 %, error 40 +- 15 %
    runs: list[dict[str, Any]] = [{"error": True, "agreed": None}] * 4
    runs += [{"error": False, "agreed": True, "turns": t, "utility_A": 0.8, "utility_B": 0.7,
              "social_welfare": 1.5, "l2_to_pareto": 0.2} for t in (2, 2, 3, 4, 5)]
    runs += [{"error": False, "agreed": False, "turns": 10, "utility_A": 0.75,
              "utility_B": 0.7, "social_welfare": 1.45, "l2_to_pareto": 0.32}]
    row = table1_row(runs, ["A", "B"])
    assert row["valid"] == 6
    assert row["agreement"][0] == pytest.approx(83.333, abs=1e-3)
    assert row["agreement"][1] == pytest.approx(15.2, abs=0.05)
    assert row["error"] == (pytest.approx(40.0), pytest.approx(15.49, abs=0.01))
    mean_t = (2 + 2 + 3 + 4 + 5 + 10) / 6
    sd_t = math.sqrt(sum((t - mean_t) ** 2 for t in (2, 2, 3, 4, 5, 10)) / 6)
    assert row["turns"] == (pytest.approx(mean_t), pytest.approx(sd_t))
    assert row["A"][0] == pytest.approx((5 * 0.8 + 0.75) / 6)
    empty = table1_row([{"error": True, "agreed": None}], ["A", "B"])
    assert empty["agreement"] == (None, None) and empty["A"] == (None, None)


def test_table2_row_shares_of_attempts() -> None:
    base = {f"invalid_{r}": 0 for r in ("unknown_task", "missing_atomic_tasks", "overlap",
                                        "missing_proposal_open_tag",
                                        "missing_proposal_close_tag",
                                        "multiple_descriptions", "empty_agent")}
    runs = [{**base, "invalid_missing_atomic_tasks": 4, "invalid_other": 0, "attempts": 20},
            {**base, "invalid_missing_atomic_tasks": 0, "invalid_other": 1, "attempts": 22}]
    row = table2_row(runs)
    assert row["attempts"] == 42
    assert row["MAT"] == (4, pytest.approx(9.5238, abs=1e-4))  # 4/42, as in Table 2(a)
    assert row["UNK"] == (0, 0.0) and row["OTH"][0] == 1
