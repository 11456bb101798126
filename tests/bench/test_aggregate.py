"""Aggregation against hand-computed values, and the export formats."""

from __future__ import annotations

import csv
import io
import math

import pytest

from accord.bench import (
    AggregateError,
    EpisodeRow,
    aggregate,
    default_group_by,
    flat_rows,
    format_stat,
    summarize,
    to_csv,
    to_json,
    to_markdown,
)
from accord.bench.tables import rich_tables


def _row(i, scenario, lineup, seed, metrics, status="done", params=None, usage=None,
         outcome="agreement"):
    spec = {"domain": "d", "scenario": scenario, "agents": lineup.split(" vs "),
            "params": params or {}, "seed": seed, "repeat": 0}
    return EpisodeRow("r", f"id{i}", i, spec, {"lineup": lineup,
                                               "agents": lineup.split(" vs ")},
                      status, outcome if status == "done" else None, None,
                      metrics if status == "done" else None, usage,
                      None if status == "done" else "boom", 0.5, 1, 0.0)


ROWS = [
    _row(0, "s1", "a vs b", 0, {"x": 1, "ok": True, "kind": "big"}, params={"k": 1},
         usage={"p0": {"input_tokens": 10, "output_tokens": 2}, "p1": {"input_tokens": 5}}),
    _row(1, "s1", "a vs b", 1, {"x": 2, "ok": False, "kind": "small"}, params={"k": 1}),
    _row(2, "s1", "a vs b", 2, {"x": 3, "ok": True, "kind": "big"}, params={"k": 2}),
    _row(3, "s1", "a vs b", 3, {"x": 4, "ok": True, "kind": "big"}, params={"k": 2},
         usage={"p0": {"input_tokens": 1, "output_tokens": 1}}),
    _row(4, "s2", "a vs c", 0, {"x": 10, "ok": False, "kind": "small"}, params={"k": 1}),
    _row(5, "s2", "a vs c", 1, {"x": None, "ok": None, "kind": None}, params={"k": 1},
         outcome="no_deal"),
    _row(6, "s2", "a vs c", 2, {}, status="failed", params={"k": 2}),
    _row(7, "s2", "a vs c", 3, {}, status="pending", params={"k": 2}),
]


def test_summarize_matches_hand_computation():
    st = summarize([1.0, 2.0, 3.0, 4.0])
    assert st.n == 4 and st.mean == 2.5 and st.total == 10.0
    assert st.sd == pytest.approx(math.sqrt(5 / 3))          # sample SD: 1.2910
    assert st.se == pytest.approx(math.sqrt(5 / 3) / 2)      # 0.6455
    one = summarize([7.0])
    assert (one.mean, one.sd, one.se) == (7.0, None, None)
    assert summarize([]).mean is None


def test_grouped_means_sd_se_rates_and_counts():
    agg = aggregate(ROWS, ["scenario", "agents"])
    assert agg.group_by == ["scenario", "agents"]
    assert agg.metrics == {"x": "number", "ok": "rate"}  # 'kind' is categorical
    g1, g2 = agg.groups
    assert g1.key == ("s1", "a vs b") and (g1.episodes, g1.done, g1.failed) == (4, 4, 0)
    assert g1.stats["x"].mean == 2.5
    assert g1.stats["x"].sd == pytest.approx(1.2909944487)
    assert g1.stats["x"].se == pytest.approx(0.6454972244)
    # rate of True among [T, F, T, T] = 0.75; sample SD of 0/1 values = 0.5, SE = 0.25
    ok = g1.stats["ok"]
    assert (ok.kind, ok.mean, ok.total) == ("rate", 0.75, 3.0)
    assert ok.sd == pytest.approx(0.5) and ok.se == pytest.approx(0.25)
    assert g1.usage == {"input_tokens": 16.0, "output_tokens": 3.0}
    # group 2: one value (10), a None metric, one failed, one pending
    assert (g2.episodes, g2.done, g2.failed, g2.pending) == (4, 2, 1, 1)
    assert g2.outcomes == {"agreement": 1, "no_deal": 1}
    assert (g2.stats["x"].n, g2.stats["x"].mean, g2.stats["x"].sd) == (1, 10.0, None)
    assert agg.usage == {"input_tokens": 16.0, "output_tokens": 3.0}


def test_group_by_params_positions_seed_and_categorical_metrics():
    by_k = aggregate(ROWS, ["k"], ["x"])
    assert by_k.group_by == ["params.k"]
    assert {g.key: g.stats["x"].mean for g in by_k.groups} == {
        (1,): pytest.approx((1 + 2 + 10) / 3), (2,): 3.5}
    by_agent = aggregate(ROWS, ["agent1"], ["x"])
    assert [g.key for g in by_agent.groups] == [("b",), ("c",)]
    by_kind = aggregate(ROWS, ["kind"], ["x"])
    assert by_kind.group_by == ["metrics.kind"]
    means = {g.key: g.stats["x"].mean for g in by_kind.groups}
    assert means[("big",)] == pytest.approx(8 / 3) and means[("small",)] == 6.0
    assert aggregate(ROWS, ["seed"], ["x"]).groups[0].stats["x"].mean == 5.5
    with pytest.raises(AggregateError, match="unknown group-by key 'nope'; available:"):
        aggregate(ROWS, ["nope"])
    with pytest.raises(AggregateError, match="unknown metric"):
        aggregate(ROWS, None, ["zzz"])


def test_default_group_by_is_the_sweep_cell():
    assert default_group_by(ROWS) == ["scenario", "agents", "params.k"]


def test_exports():
    agg = aggregate(ROWS, ["scenario"], ["x", "ok"])
    rows = list(csv.DictReader(io.StringIO(to_csv(flat_rows(agg)))))
    assert rows[0]["scenario"] == "s1" and float(rows[0]["x.mean"]) == 2.5
    assert float(rows[0]["ok.se"]) == pytest.approx(0.25)
    assert rows[1]["failed"] == "1" and rows[1]["outcome.no_deal"] == "1"
    assert rows[0]["usage.input_tokens"] == "16.0"
    md = to_markdown(agg, "se").splitlines()
    assert md[0] == "| scenario | n | failed | x | ok |"
    assert md[2] == "| s1 | 4 | 0 | 2.50 ± 0.65 | 75% ± 25 |"
    obj = to_json(agg, ROWS, [], "store.db")
    assert [e["id"] for e in obj["episodes"]] == [f"id{i}" for i in range(8)]
    assert {e["status"] for e in obj["episodes"]} == {"done", "failed", "pending"}
    assert obj["groups"][0]["key"] == {"scenario": "s1"}
    assert obj["groups"][0]["metrics"]["x"]["mean"] == 2.5


def test_formatting_and_wide_tables_split_to_fit():
    assert format_stat(summarize([1.0, 2.0, 3.0, 4.0]), "sd") == "2.50 ± 1.29"
    assert format_stat(summarize([1.0, 0.0, 1.0], "rate"), "sd") == "67% ± 58"  # whole %
    assert format_stat(summarize([12345.6, 12345.6]), "sd") == "12,346 ± 0.00"
    assert format_stat(summarize([1.0, 0.0], "rate"), "se") == "50% ± 50"
    assert format_stat(summarize([]), "sd") == "–"
    rows = [_row(i, f"s{i % 2}", "a vs b", i, {f"m{j}": float(i + j) for j in range(12)})
            for i in range(40)]
    agg = aggregate(rows, ["seed"])  # 40 groups x 12 metrics: metrics are columns
    tables = rich_tables(agg, width=80)
    assert len(tables) > 1
    headers = [str(c.header) for t in tables for c in t.columns]
    assert [h for h in headers if h.startswith("m")] == [f"m{j}" for j in range(12)]
    assert all(t.row_count == 40 for t in tables)
    few = rich_tables(aggregate(rows, ["scenario"]), width=80)  # 2 groups: transposed
    assert [str(c.header) for c in few[0].columns] == ["metric", "s0", "s1"]


def test_categorical_metrics_are_for_grouping_not_averaging():
    with pytest.raises(AggregateError, match="categorical"):
        aggregate(ROWS, ["scenario"], ["kind"])
