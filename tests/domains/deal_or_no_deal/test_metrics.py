"""Metrics: outcomes, Table 9 layout, estimation (Tables 14-16), human baseline, summaries."""

from __future__ import annotations

from pathlib import Path

import pytest

from accord.domains.deal_or_no_deal import (
    Datapoint,
    Outcome,
    dataset_stats,
    episode_metrics,
    estimation_metrics,
    human_metrics,
    load_split,
    outcome_metrics,
    play_datapoint,
)
from accord.domains.deal_or_no_deal.metrics import (
    belief_traces,
    difficulty_table,
    estimation_by_round,
    human_baseline,
    indistinguishable_set,
    summarize,
)


def test_outcome_metrics_known_values() -> None:
    m = outcome_metrics((1, 1, 1), (10, 0, 0), (0, 10, 0), (1, 0, 0))
    assert m == {"agreement": True, "alice": 10, "bob": 10, "pareto_optimal": True,
                 "envy_free": True, "total": 20}
    m = outcome_metrics((1, 1, 1), (10, 0, 0), (0, 10, 0), (0, 1, 0))
    assert m["alice"] == 0 and m["bob"] == 0 and not m["envy_free"]
    assert not m["pareto_optimal"]
    none = outcome_metrics((1, 1, 1), (10, 0, 0), (0, 10, 0), None)
    assert none["agreement"] is False and none["total"] == 0 and not none["pareto_optimal"]


def test_difficulty_table_cumulative_and_exact() -> None:
    yes = {"agreement": True, "envy_free": True, "pareto_optimal": True}
    no = {"agreement": False, "envy_free": False, "pareto_optimal": False}
    half = {"agreement": True, "envy_free": False, "pareto_optimal": True}
    rows = [(0, yes), (-2, no), (-2, half), (-5, yes)]
    cum = difficulty_table(rows)
    assert [c["difficulty"] for c in cum] == [0, -2, -5]
    assert [c["datapoints"] for c in cum] == [1, 3, 4]
    assert cum[1]["agreement"] == pytest.approx(2 / 3)
    assert cum[2]["envy_free_and_pareto_optimal"] == pytest.approx(0.5)
    exact = difficulty_table(rows, cumulative=False)
    assert [c["datapoints"] for c in exact] == [1, 2, 1]
    assert exact[1]["pareto_optimal"] == pytest.approx(0.5)


def test_estimation_metrics_formulas() -> None:
    support = [(1, 2, 3), (0, 0, 10), (2, 2, 2)]
    m = estimation_metrics(support, (0, 0, 10), 66, {(0, 0, 10), (2, 2, 2), (9, 9, 9)})
    assert m["precision"] == 1.0 and m["recall"] == pytest.approx(1 / 3)
    assert m["reduction"] == pytest.approx(1 - 3 / 66)
    assert m["precision_indist"] == 1.0 and m["recall_indist"] == pytest.approx(2 / 3)
    miss = estimation_metrics([(1, 2, 3)], (0, 0, 10), 66, {(0, 0, 10)})
    assert miss["precision"] == 0.0 and miss["recall"] == 0.0 and miss["precision_indist"] == 0


def test_indistinguishable_set_paper_example() -> None:
    # bob (values (1,0,3)) estimating alice, whose true values are (1,3,2): (0,4,2) leads to
    # a subset of the same optimal allocations, so it is indistinguishable
    got = indistinguishable_set((1, 1, 3), (1, 0, 3), (1, 3, 2), role="bob")
    assert (1, 3, 2) in got and (0, 4, 2) in got
    # a valuation under which no allocation is envy-free is excluded
    none_ef = indistinguishable_set((1, 2, 2), (10, 0, 0), (0, 5, 0), "alice")
    assert (10, 0, 0) not in none_ef  # both want only the book: L* is empty


def test_estimation_by_round_carries_final_support_forward() -> None:
    trace = [{"round": 1, "prior": 4, "support": [[1], [2], [3]]},
             {"round": 2, "prior": 4, "support": [[1]]}]
    late = [{"round": 2, "prior": 4, "support": [[1], [2]]}]
    table = estimation_by_round([(trace, (1,)), (late, (2,))], max_round=3)
    assert [r["round"] for r in table] == [1.0, 2.0, 3.0]
    assert table[0]["reduction"] == pytest.approx((1 / 4 + 0) / 2)  # late: prior at round 1
    assert table[2]["recall"] == pytest.approx((1 + 1 / 2) / 2)
    assert table[2]["precision"] == 1.0


def test_human_metrics_from_outcome() -> None:
    d = Datapoint("t/0", (1, 1, 1), (10, 0, 0), (0, 10, 0), (), Outcome(
        "agreement", (1, 0, 0), (0, 1, 1)), "x", (1,))
    m = human_metrics(d)
    assert m["alice"] == 10 and m["bob"] == 10 and m["envy_free"] and m["rounds"] == 0
    fail = Datapoint("t/1", (1, 1, 1), (10, 0, 0), (0, 10, 0), (), Outcome("disconnect"), "x",
                     (2,))
    base = human_baseline([d, fail])
    assert base["agreement"] == 0.5 and base["total"] == 10


async def test_episode_metrics_and_summary() -> None:
    d = Datapoint("t/0", (1, 2, 3), (4, 0, 2), (1, 3, 1), (), Outcome("disagree"), "x", (1,))
    res = await play_datapoint(d, ["workflow", "workflow"])
    m = episode_metrics(res.record, res.rounds)
    assert m["agreement"] and m["envy_free"] and m["difficulty"] == -7
    assert m["best_total"] is not None and m["total"] <= m["best_total"]
    for role in ("alice", "bob"):
        assert m[f"{role}_precision"] == 1.0 and 0 < m[f"{role}_recall"] <= 1
        assert m[f"{role}_precision_indist"] == 1.0
    s = summarize([m, m])
    assert s["episodes"] == 2 and s["agreement"] == 1.0
    assert s["estimation"]["precision"] == 1.0
    assert len(belief_traces([res.record])) == 2


def test_real_stats(dond_dir: Path) -> None:
    points = load_split(dond_dir / "test.txt")
    out = dataset_stats(points)
    assert out["datapoints"] == 545 and out["with_envy_free"] == 531
    assert out["human_all"]["agreement"] == pytest.approx(402 / 545)
    assert out["human"]["agreement"] > out["human_all"]["agreement"]  # over the 531 with EF
    assert out["best"]["total"] > out["human"]["total"]
    assert out["difficulty_table"][-1]["datapoints"] == 545


async def test_human_replay_matches_human_baseline(dond_dir: Path) -> None:
    points = load_split(dond_dir / "test.txt")[:120]
    rows = []
    for d in points:
        res = await play_datapoint(d, ["dataset-human", "dataset-human"], first="data")
        rows.append(episode_metrics(res.record, res.rounds))
    want = human_baseline(points)
    got = summarize(rows)
    for key in ("agreement", "alice", "bob", "pareto_optimal", "envy_free", "total"):
        assert got[key] == pytest.approx(want[key]), key
