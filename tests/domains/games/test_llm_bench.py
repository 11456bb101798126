"""Negotiation-then-play studies through ``accord bench``: code agents offline, LLM agents
against the stub server over real HTTP; the shipped games configs; plots from the store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from accord.domains.games.studies import plot_action_share, plot_study, study_episodes, study_table
from accord.testing.stub import StubServer

REPO = Path(__file__).resolve().parents[3]
CONFIGS = sorted((REPO / "configs").glob("games_*.yaml"))
KEY = "sk-test-GAMES-bench"

bench = pytest.importorskip("accord.bench", reason="the experiment runner (issue 3) is absent")


def accord(*args: str, cwd: Path, env: dict[str, str] | None = None
           ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "accord", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def write_config(path: Path, **config: Any) -> Path:
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def rows(store: Path) -> list[Any]:
    with bench.Store.open(store, create=False) as s:
        return s.episodes()


def test_shipped_games_configs_load_and_expand() -> None:
    names = {p.name for p in CONFIGS}
    assert {"games_tables5_8.yaml", "games_section6_perturbations.yaml",
            "games_section6_personalities.yaml", "games_section6_rounds.yaml",
            "games_section6_prompts.yaml", "games_section6_first_speaker.yaml",
            "games_section6_golden_balls.yaml"} <= names
    for path in CONFIGS:
        plan = bench.expand(bench.load_config(path), validate=True)
        assert plan.episodes and plan.duplicates == 0, path.name
        assert {e.spec.domain for e in plan.episodes} == {"games"}
    tables = bench.expand(bench.load_config(REPO / "configs" / "games_tables5_8.yaml"))
    assert len(tables.episodes) == 10 * 3 * 2 * 10  # games x line-ups x {0, 4} rounds x trials
    assert {e.spec.params["negotiation_rounds"] for e in tables.episodes} == {0, 4}


def test_negotiation_then_play_study_with_code_agents_offline(tmp_path: Path) -> None:
    cfg = write_config(tmp_path / "code.yaml", name="games-code", domain="games",
                       scenarios=["prisoners-dilemma", "draco"],
                       agents=[["rational", "rational"], ["rational", "random"]],
                       params={"negotiation_rounds": [0, 2]}, seeds=3)
    store = tmp_path / "code.db"
    done = accord("bench", str(cfg), "--store", str(store), "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    episodes = study_episodes(rows(store))
    assert len(episodes) == 2 * 2 * 2 * 3
    table = study_table(episodes)
    rational = [c for c in table if c["key"]["agents"] == "rational vs rational"]
    assert rational and all(c["nash_rate"] == 1.0 for c in rational)
    talk = [e for e in episodes if e.fields["params.negotiation_rounds"] == 2]
    assert all(len(e.record["messages"]) == 4 for e in talk)
    summary = plot_study(rows(store), tmp_path / "plots")
    assert len(summary["cells"]) == 8
    for cell in summary["cells"]:
        png = (tmp_path / "plots" / cell["file"]).read_bytes()
        assert png.startswith(b"\x89PNG")
    saved = json.loads((tmp_path / "plots" / "summary.json").read_text())
    assert saved["episodes"] == 24


def test_negotiation_then_play_study_with_llm_agents_against_the_stub(tmp_path: Path) -> None:
    cfg = write_config(tmp_path / "llm.yaml", name="games-llm", domain="games",
                       scenarios=["stag-hunt", "escalation"],
                       agents=[{"name": "cot",
                                "agents": ["llm:openai-api/stub/games?temperature=1"] * 2},
                               {"name": "workflow",
                                "agents": ["llm-workflow:openai-api/stub/games", "rational"]}],
                       params={"negotiation_rounds": [0, 2]}, seeds=2,
                       llm={"cache": str(tmp_path / "llm.sqlite"), "cache_mode": "rw"})
    store = tmp_path / "llm.db"
    with StubServer("games", api_key=KEY) as stub:
        env = {**os.environ, "STUB_BASE_URL": stub.base_url, "STUB_API_KEY": KEY}
        done = accord("bench", str(cfg), "--store", str(store), "--quiet", cwd=tmp_path,
                      env=env)
        assert done.returncode == 0, done.stderr
        n_requests = len(stub.completion_requests)
        stub.reset()
        # the same study again from the cache only: nothing reaches the server
        again = accord("bench", str(cfg), "--store", str(tmp_path / "replay.db"), "--quiet",
                       "--cache-mode", "replay", cwd=tmp_path, env=env)
        assert again.returncode == 0, again.stderr
        assert stub.completion_requests == []
    assert n_requests > 0
    replayed = rows(tmp_path / "replay.db")
    assert len(replayed) == 16 and all(r.status == "done" for r in replayed)
    got = rows(store)
    assert [r.summary["record"] for r in replayed] == [r.summary["record"] for r in got]
    assert len(got) == 2 * 2 * 2 * 2 and all(r.status == "done" for r in got)
    assert all(r.outcome == "completed" and r.metrics["nash"] for r in got)
    workflow = [r for r in got if r.labels["lineup"] == "workflow"]
    assert all(r.metrics["workflow_correct"] == 1.0 for r in workflow)
    assert all(r.usage for r in got)
    # the results JSON of `accord results` feeds the plots too
    out = accord("results", str(store), "-f", "json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    listed = json.loads(out.stdout)["episodes"]
    lines = plot_action_share(listed, tmp_path / "stag.png", action="stag",
                              x="params.negotiation_rounds", series="agents")
    assert set(lines) == {"cot", "workflow"}
    assert (tmp_path / "stag.png").read_bytes().startswith(b"\x89PNG")
    assert KEY not in (tmp_path / "llm.db").read_bytes().decode("latin-1")
