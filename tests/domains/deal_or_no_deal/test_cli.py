"""``accord dond`` commands through typer's CliRunner (offline)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.dond import app
from accord.domains.deal_or_no_deal import fetch

runner = CliRunner()


def flat(text: str) -> str:
    """Output with rich's line wrapping undone."""
    return " ".join(text.split())


def test_stats_json_contract(dond_dir: Path) -> None:
    res = runner.invoke(app, ["stats", "--data", str(dond_dir), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert set(out) == {"datapoints", "with_envy_free", "best", "human", "difficulty_table"}
    assert out["datapoints"] == 545 and out["with_envy_free"] == 531
    assert set(out["best"]) == {"alice", "bob", "total"}
    assert set(out["human"]) == {"agreement", "alice", "bob", "pareto_optimal", "envy_free",
                                 "total"}
    row = out["difficulty_table"][0]
    assert set(row) == {"difficulty", "datapoints", "agreement", "envy_free", "pareto_optimal",
                        "envy_free_and_pareto_optimal"}


def test_stats_hardest_and_table(dond_dir: Path) -> None:
    res = runner.invoke(app, ["stats", "--data", str(dond_dir / "test.txt"), "--hardest", "44",
                              "--json"])
    out = json.loads(res.stdout)
    assert out["datapoints"] == 44 == out["with_envy_free"]
    res = runner.invoke(app, ["stats", "--data", str(dond_dir), "--hardest", "10"])
    assert res.exit_code == 0 and "human outcome by difficulty" in res.stdout


def test_play_json(dond_dir: Path) -> None:
    res = runner.invoke(app, ["play", "--data", str(dond_dir), "--agents", "workflow,workflow",
                              "--hardest", "5", "--json", "--details"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["agents"] == ["workflow", "workflow"] and out["errors"] == 0
    s = out["summary"]
    assert s["episodes"] == 5 and s["agreement"] == 1.0 and s["envy_free"] == 1.0
    assert s["estimation"]["precision"] == 1.0
    assert len(out["episodes"]) == 5 and out["estimation_by_round"][0]["round"] == 1.0
    res = runner.invoke(app, ["play", "--data", str(dond_dir), "--agents", "human,greedy",
                              "--limit", "3"])
    assert res.exit_code == 0 and "3 episodes" in res.stdout


def test_errors_are_clear(tmp_path: Path) -> None:
    res = runner.invoke(app, ["stats", "--data", str(tmp_path), "--json"])
    assert res.exit_code == 2 and "accord dond download" in flat(res.output)
    res = runner.invoke(app, ["play", "--data", str(tmp_path), "--agents", "workflow"])
    assert res.exit_code == 2 and "two specs" in flat(res.output)
    res = runner.invoke(app, ["play", "--data", str(tmp_path), "--agents", "workflow,boulware"])
    assert res.exit_code == 2 and "unknown agent kind 'boulware'" in flat(res.output)
    bad = tmp_path / "test.txt"
    bad.write_text("garbage\n", encoding="utf-8")
    res = runner.invoke(app, ["stats", "--data", str(bad)])
    assert res.exit_code == 2 and "test.txt:1:" in flat(res.output)


def test_download_from_file_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    up = tmp_path / "up"
    up.mkdir()
    files = {"test.txt": b"t\n", "val.txt": b"v\n", "data.txt": b"d\n",
             "sample50.txt": b"s\n"}
    for name, body in files.items():
        (up / name).write_bytes(body)
    monkeypatch.setattr(fetch, "expected_sums",
                        lambda: {n: hashlib.sha256(b).hexdigest() for n, b in files.items()})
    res = runner.invoke(app, ["download", "--dest", str(tmp_path / "d"), "--base-url",
                              up.as_uri() + "/", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert [f["status"] for f in out["files"]] == ["fetched"] * 4
    (up / "val.txt").write_bytes(b"evil\n")
    res = runner.invoke(app, ["download", "--dest", str(tmp_path / "e"), "--base-url",
                              up.as_uri() + "/"])
    assert res.exit_code == 1 and "does not match" in flat(res.output)


def test_meta_game_with_code_agents(dond_dir: Path) -> None:
    res = runner.invoke(app, ["meta", "--data", str(dond_dir), "--hardest", "8", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["use"] == "workflow" and out["raw"] == "greedy" and out["datapoints"] == 8
    assert set(out["payoffs"]) == {"workflow,workflow", "workflow,raw", "raw,workflow",
                                   "raw,raw"}
    assert out["pure_nash"] and all(len(p) == 2 for p in out["pure_nash"])
