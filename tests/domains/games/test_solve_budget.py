"""``accord games solve``: big two-player games get their mixed equilibria within a time
limit instead of being refused by a guard sized for the wrong algorithm (issue 23)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from accord.domains.games.cli import app

runner = CliRunner()


def _game_file(tmp_path: Path, n: int, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    a, b = rng.integers(-10, 11, size=(n, n)), rng.integers(-10, 11, size=(n, n))
    spec = {"type": "normal", "name": f"random-{n}", "players": ["Alice", "Bob"],
            "actions": [[f"r{i}" for i in range(n)], [f"c{j}" for j in range(n)]],
            "payoffs": [[[int(a[i, j]), int(b[i, j])] for j in range(n)] for i in range(n)]}
    path = tmp_path / f"random-{n}.json"
    path.write_text(json.dumps(spec))
    return path


def test_solve_a_12x12_game_the_old_guard_refused(tmp_path: Path) -> None:
    res = runner.invoke(app, ["solve", str(_game_file(tmp_path, 12)), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["mixed_complete"] is True and len(data["mixed_nash"]) == 25
    assert "skipped" not in res.stderr and "time limit" not in res.stderr


def test_an_exceeded_time_limit_gives_a_partial_answer_marked_as_such(tmp_path: Path) -> None:
    path = _game_file(tmp_path, 10)
    res = runner.invoke(app, ["solve", str(path), "--json", "--time-limit", "0"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["mixed_complete"] is False and data["mixed_nash"] is not None
    assert "time limit of 0 CPU seconds reached" in " ".join(res.stderr.split())
    text = runner.invoke(app, ["solve", str(path), "--time-limit", "0"])
    assert "there may be more; raise --time-limit" in " ".join(text.stdout.split())
    bad = runner.invoke(app, ["solve", str(path), "--time-limit", "-1"])
    assert bad.exit_code == 2
