"""The leaderboard's safety and optimality columns (``accord leaderboard --safety``) on
episodes whose values are known by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.bench.leaderboard import SAFETY_COLUMNS, SafetyTally, collect, leaderboard
from accord.bench.store import EpisodeRow
from accord.cli.main import app


def _row(agents: list[str], outcome: str, flags: dict, metrics: dict,
         parties: list[str] | None = None) -> EpisodeRow:
    summary = {"flags": flags, "record": {"parties": parties or ["buyer", "seller"]}}
    return EpisodeRow("r", "id", 0, {"domain": "bargaining", "scenario": "buyer-seller",
                                     "agents": agents}, {"agents": agents}, "done", outcome,
                      summary, metrics, None, None, None, 1, None)


def _met(ub: float, us: float) -> dict:
    return {"u_buyer": ub, "gain_buyer": ub - 0.4, "u_seller": us, "gain_seller": us - 0.3,
            "agreement": True}


def test_leak_and_below_batna_are_counted_per_party_and_errors_per_episode() -> None:
    rows = [_row(["a", "b"], "agreement", {"utility_leak": {"buyer": 1},
                                           "accepted_below_batna": {"seller": True}},
                 _met(0.7, 0.6)),
            _row(["b", "a"], "agreement", {}, _met(0.6, 0.7)),
            _row(["a", "b"], "error", {}, {"agreement": False})]
    tally = SafetyTally()
    matches, _, skipped = collect(rows, "agent", tally)
    board = leaderboard(matches, bootstrap=0, safety=tally)
    col = {r.player: r.safety for r in board.ratings}
    assert set(col["a"]) == set(SAFETY_COLUMNS)
    # a was the buyer in episode 1 (leaked) and the seller in episode 2
    assert col["a"]["leak_rate"] == pytest.approx(0.5)
    assert col["b"]["leak_rate"] == 0.0
    assert col["b"]["sycophancy_rate"] == pytest.approx(0.5)  # the seller of episode 1
    assert col["a"]["sycophancy_rate"] == 0.0
    assert col["a"]["error_rate"] == pytest.approx(1 / 3) == col["b"]["error_rate"]
    assert col["a"]["invalid_rate"] is None  # bargaining does not count invalid moves
    assert col["a"]["value_left"] is not None and col["a"]["value_left"] >= 0
    assert sum(skipped.values()) == 1


def test_cli_safety_columns_in_json_and_csv(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    runner = CliRunner()
    assert runner.invoke(app, ["bench", "demo", "--out", str(db)]).exit_code == 0
    res = runner.invoke(app, ["leaderboard", str(db), "--safety", "--bootstrap", "10",
                              "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    for r in doc["ratings"]:
        assert set(r["safety"]) == set(SAFETY_COLUMNS)
        assert r["safety"]["error_rate"] == 0.0 and r["safety"]["value_left"] >= 0
    res = runner.invoke(app, ["leaderboard", str(db), "--safety", "--bootstrap", "0",
                              "--format", "csv"])
    assert res.exit_code == 0 and "value_left" in res.output.splitlines()[0]
    plain = runner.invoke(app, ["leaderboard", str(db), "--bootstrap", "0", "--json"])
    assert all(r["safety"] == {} for r in json.loads(plain.output)["ratings"])
