"""One episode id from every command: a cache recorded by ``accord run`` replays under
``accord bench`` and the other way round; a scenario file is keyed by its content."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from accord.agents.spec import parse_agent_list
from accord.cli.main import app
from accord.domains import EpisodeSpec
from accord.domains.ids import episode_id, scenario_ref

runner = CliRunner()
SPLIT = Path(__file__).resolve().parents[2] / "src/accord/domains/bargaining/data/split.yaml"


def _bench_config(path: Path, scenario: str = "split") -> Path:
    path.write_text(f"name: rt\ndomain: bargaining\nscenarios: [{scenario}]\n"
                    "agents: [[llm:mock/negotiator, linear]]\nseeds: [3]\n")
    return path


def test_run_then_bench_replays_the_same_cache(tmp_path: Path) -> None:
    cache = tmp_path / "c.db"
    rec = runner.invoke(app, ["run", "bargaining/split", "--agents", "llm:mock/negotiator,linear",
                              "--seed", "3", "--cache", str(cache), "--json"])
    assert rec.exit_code == 0, rec.output
    cfg = _bench_config(tmp_path / "rt.yaml")
    rep = runner.invoke(app, ["bench", str(cfg), "--out", str(tmp_path / "s.db"), "--cache",
                              str(cache), "--cache-mode", "replay", "--json"])
    assert rep.exit_code == 0, rep.output  # a cache miss would be an episode error
    doc = json.loads(rep.stdout)
    assert doc["done"] == 1 and doc["errored"] == 0
    shown = json.loads(runner.invoke(app, ["results", str(tmp_path / "s.db"), "--episodes",
                                           "--json"]).stdout)["episodes"][0]
    assert shown["outcome"] == json.loads(rec.stdout)["status"]


def test_bench_then_run_replays_the_same_cache(tmp_path: Path) -> None:
    cache = tmp_path / "c.db"
    cfg = _bench_config(tmp_path / "rt.yaml")
    rec = runner.invoke(app, ["bench", str(cfg), "--out", str(tmp_path / "s.db"), "--cache",
                              str(cache), "--json"])
    assert rec.exit_code == 0, rec.output
    rep = runner.invoke(app, ["run", "bargaining/split", "--agents", "llm:mock/negotiator,linear",
                              "--seed", "3", "--cache", str(cache), "--cache-mode", "replay",
                              "--json"])
    assert rep.exit_code == 0, rep.output
    assert json.loads(rep.stdout)["status"] in ("agreement", "no_deal")


def test_a_scenario_file_is_keyed_by_content_not_path(tmp_path: Path) -> None:
    a, b = tmp_path / "a.yaml", tmp_path / "sub" / "b.yaml"
    b.parent.mkdir()
    shutil.copy(SPLIT, a)
    shutil.copy(SPLIT, b)
    agents = tuple(parse_agent_list("linear,linear"))
    ida = episode_id(EpisodeSpec("bargaining", str(a), agents, {}, 0))
    idb = episode_id(EpisodeSpec("bargaining", str(b), agents, {}, 0))
    assert ida == idb and scenario_ref(str(a)).startswith("sha256:")
    b.write_text(b.read_text().replace("batna: 0.2", "batna: 0.25", 1))
    assert episode_id(EpisodeSpec("bargaining", str(b), agents, {}, 0)) != ida
    assert episode_id(EpisodeSpec("bargaining", "split", agents, {}, 0)) != ida  # a name
    assert episode_id(EpisodeSpec("bargaining", "split", agents, {}, 0), repeat=1) != \
        episode_id(EpisodeSpec("bargaining", "split", agents, {}, 0))
