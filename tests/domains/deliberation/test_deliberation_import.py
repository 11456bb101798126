"""``accord deliberation import``: the seed-001 authors' games (recreated in their pickle
structure) become instance files whose ``accord deliberation solve`` is the stored
max_reward; a hostile pickle is refused without running."""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.bench.config import load_config
from accord.cli.main import app

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "formats"))
from seed001lib import Evil, cooking_game, task_game, write_cooking, write_task

COOK = "data/cooking/games/test_games/games/level_1_and_2"
TASKS = "data/task_allocation/games/task_allocation_games/games/level_1_and_2"


@pytest.fixture
def authors_data(tmp_path: Path) -> tuple[Path, dict[str, float]]:
    src = tmp_path / "repo" / "data"
    stored = {}
    for seed in range(2):
        c, t = cooking_game(seed), task_game(seed)
        write_cooking(src.parent / COOK / f"game_{seed:04d}.pkl", c)
        write_task(src.parent / TASKS / f"game_{seed:04d}.pkl", t)
        stored[f"seed001-test_games-level_1_and_2-game_{seed:04d}"] = c["max_reward"]
        stored[f"seed001-task_allocation_games-level_1_and_2-game_{seed:04d}"] = t["max_reward"]
    return src, stored


def test_import_then_solve_gives_the_stored_max_reward(tmp_path: Path, authors_data: tuple[
        Path, dict[str, float]]) -> None:
    src, stored = authors_data
    out = tmp_path / "out"
    runner = CliRunner()
    res = runner.invoke(app, ["deliberation", "import", str(src), "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    assert report["written"] == {"menu-numeric": 2, "menu-semantic": 2, "task-allocation": 2}
    for files in report["files"].values():
        for f in files:
            solved = runner.invoke(app, ["deliberation", "solve", f, "--json"])
            assert solved.exit_code == 0, solved.output
            reward = json.loads(solved.output)["reward"]
            assert reward == pytest.approx(stored[Path(f).stem], abs=1e-9)
            assert runner.invoke(app, ["deliberation", "check", f]).exit_code == 0
    spec = load_config(out / "table2.yaml")
    assert {s.domain for s in spec.sweeps} == {"deliberation"}
    assert len(spec.sweeps) == 6  # 3 settings x {deliberation, centralized}
    # both tool conditions x the 2 imported instances of the sweep's setting
    assert all(len(s.params) == 4 for s in spec.sweeps)


def test_import_human_output_and_setting_filter(tmp_path: Path, authors_data: tuple[
        Path, dict[str, float]]) -> None:
    src, _ = authors_data
    res = CliRunner().invoke(app, ["deliberation", "import", str(src), "--out",
                                   str(tmp_path / "o"), "--setting", "task-allocation"])
    assert res.exit_code == 0, res.output
    assert "wrote 2 task-allocation instances" in res.output
    assert not (tmp_path / "o" / "menu-numeric").exists()
    bad = CliRunner().invoke(app, ["deliberation", "import", str(src), "--setting", "menu"])
    assert bad.exit_code == 2 and "menu" in bad.output


def test_a_hostile_pickle_is_refused_without_running(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    evil = tmp_path / "game_0000.pkl"
    evil.write_bytes(pickle.dumps(Evil(f"touch {marker}"), protocol=4))
    res = CliRunner().invoke(app, ["deliberation", "import", str(evil), "--out",
                                   str(tmp_path / "out")])
    assert res.exit_code == 2
    assert "game_0000.pkl: refused pickle global" in res.output
    assert "system" in res.output
    assert not marker.exists()
    assert not (tmp_path / "out").exists()
