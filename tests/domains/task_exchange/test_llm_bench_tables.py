"""Bench configs for Tables 1 and 2, run through the experiment runner (code and LLM
agents against the stub), and the table layouts printed from the results store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.bench import BenchOptions, expand, load_config, run_bench
from accord.cli.main import app as bench_app
from accord.domains.base import EpisodeSpec
from accord.domains.task_exchange import DOMAIN
from accord.domains.task_exchange.cli import app
from accord.domains.task_exchange.validation import PATTERNS
from accord.testing.stub import StubServer

CONFIGS = Path(__file__).resolve().parents[3] / "configs"
runner = CliRunner()


@pytest.mark.parametrize(("name", "episodes"), [("task_exchange_table1.yaml", 80),
                                                ("task_exchange_table2.yaml", 120)])
def test_shipped_configs_expand_and_validate(name: str, episodes: int) -> None:
    cfg = load_config(CONFIGS / name)
    plan = expand(cfg)
    assert len(plan.episodes) == episodes
    specs = {json.dumps(ep.spec.to_dict(), sort_keys=True): ep.spec for ep in plan.episodes}
    strategies = {s.params["strategy"] for s in specs.values()}
    assert strategies == {"utility-aware", "baseline"}
    assert {s.scenario for s in specs.values()} == {"cooperative", "competitive"}
    for spec in specs.values():
        assert isinstance(spec, EpisodeSpec)
        DOMAIN.validate(spec)


def test_bench_run_prints_table_layouts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                        ) -> None:
    config = tmp_path / "tx.yaml"
    config.write_text("""\
name: tx
domain: task-exchange
scenarios: [cooperative, competitive]
agents:
  - {name: code, agents: [utility-aware, utility-aware]}
  - {name: stub-llm, agents: ["llm:openai-api/stub/task-exchange",
                              "llm:openai-api/stub/task-exchange"]}
  - {name: sloppy, agents: ["scripted:UNK+MAT+OVL+ok+MPT+MET+MDA+EMP+reject", utility-aware]}
params:
  strategy: [utility-aware, baseline]
seeds: 2
""")
    store = tmp_path / "tx.db"
    with StubServer("task-exchange") as stub:
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("STUB_API_KEY", "sk-bench")
        rep = run_bench(load_config(config), BenchOptions(store=store, quiet=True))
        assert stub.completion_requests
    assert (rep.done, rep.failed) == (24, 0)
    res = runner.invoke(app, ["tables", str(store)])
    assert res.exit_code == 0, res.output
    text = res.output
    for head in ("Table 1(a) cooperative", "Table 1(b) competitive", "Table 1(c) Initial",
                 "Table 2(a) Proposed (utility-aware)", "Table 2(b) Baseline (baseline)"):
        assert head in text
    assert "| stub-llm | Proposed | 2 |" in text and "| code | Baseline | 2 |" in text
    assert "| cooperative | Alice 0.75, Bob 0.70 | 1.45 | 0.320 |" in text
    res = runner.invoke(app, ["tables", str(store), "--json"])
    data = json.loads(res.output)
    sloppy = [r for r in data["table2"]["utility-aware"] if r["lineup"] == "sloppy"]
    for row in sloppy:  # each of the seven patterns twice (two seeds), share of attempts
        for code in PATTERNS.values():
            assert row[code][0] == 2
            assert row[code][1] == pytest.approx(100 * 2 / row["attempts"])
    llm_rows = [r for r in data["table1"]["cooperative"] if r["lineup"] == "stub-llm"]
    assert [r["runs"] for r in llm_rows] == [2, 2] and llm_rows[0]["error"][0] == 0
    # the generic aggregate prints the same Table 1 cells
    res = runner.invoke(bench_app, [
        "results", str(store), "-g", "scenario,agents,strategy", "-m",
        "agreed,error,turns,utility_Alice,utility_Bob,social_welfare,l2_to_pareto", "-f", "json"])
    assert res.exit_code == 0, res.output
    groups = json.loads(res.output)["groups"]
    assert len(groups) == 12
    g = next(g for g in groups if g["key"] == {"scenario": "cooperative", "agents": "stub-llm",
                                               "params.strategy": "utility-aware"})
    row = llm_rows[0]
    assert g["metrics"]["social_welfare"]["mean"] == pytest.approx(row["social_welfare"][0])
    assert 100 * g["metrics"]["error"]["mean"] == pytest.approx(row["error"][0])


def test_tables_command_errors(tmp_path: Path) -> None:
    res = runner.invoke(app, ["tables", str(tmp_path / "missing.db")])
    assert res.exit_code == 2
    assert "missing.db" in res.output
