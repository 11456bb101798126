"""Safety rates asked for by name: ``accord results -m utility_leak,sycophancy,error_rate,
invalid_rate`` on episodes whose values are known by hand (issue 27)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.agents.spec import AgentSpec
from accord.bench import AggregateError, EpisodeRecord, Store, aggregate
from accord.bench.expand import PlannedEpisode
from accord.bench.store import EpisodeRow
from accord.cli.main import app
from accord.domains.base import EpisodeSpec

SAFETY = ["utility_leak", "sycophancy", "error_rate", "invalid_rate"]


def _row(outcome: str, flags: dict | None, metrics: dict, summary: bool = True) -> EpisodeRow:
    return EpisodeRow("r", "i", 0, {"domain": "bargaining", "scenario": "s",
                                    "agents": ["a", "b"]}, {}, "done", outcome,
                      {"flags": flags or {}} if summary else None, metrics, None, None,
                      None, 1, None)


def test_rates_from_flags_outcomes_and_counts() -> None:
    rows = [_row("agreement", {"utility_leak": {"buyer": 2}}, {"agreement": True}),
            _row("agreement", {"accepted_below_batna": {"buyer": True}},
                 {"agreement": True}),
            _row("error", {}, {"agreement": False}),
            _row("agreed", {}, {"invalid_total": 3}),
            _row("agreed", {}, {"invalid_total": 0})]
    agg = aggregate(rows, ["scenario"], SAFETY)
    st = agg.groups[0].stats
    assert agg.metrics == dict.fromkeys(SAFETY, "rate")
    assert (st["utility_leak"].n, st["utility_leak"].mean) == (5, pytest.approx(0.2))
    assert st["sycophancy"].mean == pytest.approx(0.2)
    assert st["error_rate"].mean == pytest.approx(0.2)
    assert (st["invalid_rate"].n, st["invalid_rate"].mean) == (2, pytest.approx(0.5))


def test_a_stored_metric_wins_and_unread_summaries_count_as_unknown() -> None:
    rows = [_row("agreement", {"sycophancy": True}, {"sycophancy": False}),
            _row("agreement", None, {}, summary=False)]
    st = aggregate(rows, ["scenario"], ["sycophancy", "utility_leak"]).groups[0].stats
    assert (st["sycophancy"].n, st["sycophancy"].mean) == (1, 0.0)  # the stored metric
    assert st["utility_leak"].n == 1  # the row without a summary is not counted as 0


def test_unknown_metric_lists_the_safety_rates() -> None:
    with pytest.raises(AggregateError, match=r"available: .*utility_leak.*error_rate"):
        aggregate([_row("agreement", {}, {"agreement": True})], None, ["nope"])


def test_results_cli_reports_the_leak_rate_from_a_store(tmp_path: Path) -> None:
    path = tmp_path / "leak.db"
    with Store.open(path) as st:
        prov = {"accord_version": "t", "git_commit": None}
        sid = st.begin_session("r", {"name": "r"}, "test", prov, "local", 1)
        plan, recs = [], []
        for k in range(4):
            spec = EpisodeSpec("bargaining", "buyer-seller",
                               (AgentSpec("llm", "mock/negotiator"), AgentSpec("linear")),
                               {}, k)
            plan.append(PlannedEpisode(f"e{k}", spec, 0, {}, k))
            flags = {"utility_leak": {"buyer": 1}} if k == 0 else {}
            recs.append(EpisodeRecord(f"e{k}", "done", "agreement",
                                      {"status": "agreement", "flags": flags},
                                      {"agreement": True}))
        st.add_planned("r", plan)
        for r in recs:
            st.write("r", r, sid)
    res = CliRunner().invoke(app, ["results", str(path), "-m", "utility_leak", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    stat = doc["groups"][0]["metrics"]["utility_leak"]
    assert stat["n"] == 4 and stat["mean"] == pytest.approx(0.25)
    # the streamed table reads the summaries too when a flag rate is asked for
    res = CliRunner().invoke(app, ["results", str(path), "-m", "utility_leak", "-f", "csv"])
    head, row = res.stdout.splitlines()[:2]
    cols = dict(zip(head.split(","), row.split(","), strict=True))
    assert cols["utility_leak.mean"] == "0.25" and cols["utility_leak.n"] == "4"
