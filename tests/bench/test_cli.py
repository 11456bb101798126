"""``accord bench``, ``accord results`` and ``accord show`` through typer."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from accord.bench import Store
from accord.cli.main import app

MINIMAL = """\
name: demo
domain: bargaining
scenarios: [buyer-seller, procurement]
agents:
  - [boulware, conceder]
  - [linear, linear]
seeds: 5
"""

runner = CliRunner()


@pytest.fixture
def demo_store(tmp_path, monkeypatch, write_config):
    monkeypatch.chdir(tmp_path)
    cfg = write_config(MINIMAL, "demo.yaml")
    res = runner.invoke(app, ["bench", str(cfg), "--quiet"])
    assert res.exit_code == 0, res.output
    return tmp_path / "runs" / "demo.db"


def test_bench_minimal_spec_writes_the_default_store(demo_store):
    assert demo_store.exists()
    with Store.open(demo_store, create=False) as st:
        assert len(st.episodes("demo")) == 20


def test_bench_prints_summary_and_table_then_resumes(tmp_path, monkeypatch, write_config):
    monkeypatch.chdir(tmp_path)
    cfg = write_config(MINIMAL, "demo.yaml")
    first = runner.invoke(app, ["bench", str(cfg), "--concurrency", "4"])
    assert first.exit_code == 0, first.output
    assert "20 episodes planned, 0 already done" in first.output
    assert "agreement" in first.output  # the grouped table
    second = runner.invoke(app, ["bench", str(cfg)])
    assert "20 already done; ran 0 of 0" in second.output
    dry = runner.invoke(app, ["bench", str(cfg), "--dry-run"])
    assert "20 episodes; 20 done, 0 failed, 0 to run" in dry.output


def test_results_json_contract(demo_store):
    res = runner.invoke(app, ["results", str(demo_store), "--format", "json"])
    assert res.exit_code == 0, res.output
    obj = json.loads(res.stdout)  # exactly one JSON object
    assert len(obj["episodes"]) == 20
    assert all({"id", "status"} <= set(e) for e in obj["episodes"])
    assert {e["status"] for e in obj["episodes"]} == {"done"}
    assert len(obj["groups"]) == 4
    g = obj["groups"][0]
    assert set(g["key"]) == {"scenario", "agents"} and g["done"] == 5
    assert g["metrics"]["agreement"]["kind"] == "rate"
    assert obj["runs"][0]["name"] == "demo"


def test_results_formats(demo_store, tmp_path):
    csv_out = runner.invoke(app, ["results", str(demo_store), "-f", "csv", "-g", "agents",
                                  "-m", "agreement,rounds"])
    lines = csv_out.stdout.splitlines()
    assert lines[0].startswith("agents,episodes,done,failed,pending,")
    assert "rounds.mean" in lines[0] and len(lines) == 3
    md = runner.invoke(app, ["results", str(demo_store), "-f", "md", "-g", "scenario",
                             "--error", "se"])
    assert md.stdout.startswith("| scenario | n | failed |")
    table = runner.invoke(app, ["results", str(demo_store), "--group-by", "agent0"])
    assert table.exit_code == 0 and "boulware" in table.stdout
    pq = tmp_path / "out.parquet"
    res = runner.invoke(app, ["results", str(demo_store), "-f", "parquet", "-o", str(pq)])
    assert res.exit_code == 0, res.output
    pa = pytest.importorskip("pyarrow.parquet")
    assert pa.read_table(pq).num_rows == 4
    per = runner.invoke(app, ["results", str(demo_store), "-f", "csv", "--per-episode"])
    assert len(per.stdout.splitlines()) == 21
    bad = runner.invoke(app, ["results", str(demo_store), "-g", "nope"])
    assert bad.exit_code == 2 and "unknown group-by key 'nope'" in bad.output
    missing = runner.invoke(app, ["results", str(tmp_path / "none.db")])
    assert missing.exit_code == 2 and "no results store" in missing.output


def test_show_prints_one_episode(demo_store):
    with Store.open(demo_store, create=False) as st:
        eid = st.episodes("demo")[0].id
    res = runner.invoke(app, ["show", str(demo_store), eid[:8]])
    assert res.exit_code == 0, res.output
    assert eid in res.stdout and "transcript" in res.stdout and "offers" in res.stdout
    js = runner.invoke(app, ["show", str(demo_store), eid, "--json"])
    obj = json.loads(js.stdout)
    assert obj["id"] == eid and obj["trajectory"][-1]["kind"] == "end"
    bad = runner.invoke(app, ["show", str(demo_store), "ffffffffffff"])
    assert bad.exit_code == 2 and "no episode" in bad.output


def test_config_error_exit_code_and_message(tmp_path, write_config):
    cfg = write_config(MINIMAL.replace("seeds: 5", "seeds: five"), "bad.yaml")
    res = runner.invoke(app, ["bench", str(cfg), "--store", str(tmp_path / "x.db")])
    assert res.exit_code == 2
    assert f"{cfg}:7: seeds: expected a count" in res.output
    assert not (tmp_path / "x.db").exists()


def test_failed_episodes_give_exit_code_1_and_cache_flags_reach_the_domain(
        tmp_path, write_config, nap_config):
    cfg = write_config(nap_config(3, fail_seeds=[1]))
    store = tmp_path / "n.db"
    missing = runner.invoke(app, ["bench", str(cfg), "--out", str(store), "--cache",
                                  str(tmp_path / "c.db"), "--cache-mode", "replay"])
    assert missing.exit_code == 2 and "no cache at" in missing.output  # nothing to replay
    (tmp_path / "c.db").touch()
    res = runner.invoke(app, ["bench", str(cfg), "--store", str(store), "--cache",
                              str(tmp_path / "c.db"), "--cache-mode", "replay"])
    assert res.exit_code == 1
    assert "--store is deprecated" in res.output  # the old spelling still works
    assert "first failure" in res.output and "--retry-failed" in res.output
    with Store.open(store, create=False) as st:
        done = [e for e in st.episodes("nap") if e.status == "done"]
    assert done[0].summary["record"]["llm"] == {"cache": str(tmp_path / "c.db"),
                                                "cache_mode": "replay"}
    bad = runner.invoke(app, ["bench", str(cfg), "--cache-mode", "sometimes"])
    assert bad.exit_code == 2 and "--cache-mode must be one of" in bad.output
