"""``accord games solve``: big two-player games get their mixed equilibria within a time
limit instead of being refused by a guard sized for the wrong algorithm (issue 23); deep
trees with ties and many-player games end early with what they found (issue 24)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from accord.domains.games.analysis import solution_json, solve_game
from accord.domains.games.cli import app
from accord.domains.games.load import parse_game
from accord.solvers.budget import TimeBudget

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


def _tied_tree(depth: int, who: int = 0) -> dict:
    if depth == 0:
        return {"payoff": [1, 1]}
    return {"player": ["Alice", "Bob"][who],
            "actions": {"a": _tied_tree(depth - 1, 1 - who), "b": _tied_tree(depth - 1, 1 - who)}}


def test_a_deep_tree_with_ties_lists_one_spe_and_says_how_many_there_are() -> None:
    """Depth 12, every payoff tied: 2^4095 subgame-perfect equilibria. Solving used to
    spend minutes comparing 4,096 tied leaves pairwise before refusing on the count."""
    game = parse_game({"type": "extensive", "name": "tied", "players": ["Alice", "Bob"],
                       "tree": _tied_tree(12)}, source="test")
    sol = solve_game(game)
    assert sol.spe_complete is False and sol.spe is not None and len(sol.spe) == 1
    assert sol.spe[0].path == ("a",) * 12  # the canonical one: ties towards the first action
    assert "about 10^1232 subgame-perfect equilibria" in sol.notes[0]
    assert sol.pareto_optimal is not None and len(sol.pareto_optimal) == 4096  # all tied
    data = solution_json(sol)
    assert data["spe_complete"] is False and len(data["spe"]) == 1 and data["notes"]
    small = solve_game(parse_game({"type": "extensive", "name": "t3", "players": ["Alice", "Bob"],
                                   "tree": _tied_tree(3)}, source="test"))
    assert small.spe_complete is True and small.spe is not None and len(small.spe) == 2 ** 7


def test_many_player_pareto_stops_at_the_time_limit() -> None:
    rng = np.random.default_rng(0)
    n = 5
    spec = {"type": "normal", "name": "five", "players": [f"P{i}" for i in range(n)],
            "actions": [["x", "y", "z"]] * n,
            "payoffs": rng.integers(0, 50, size=(3,) * n + (n,)).tolist()}
    game = parse_game(spec, source="test")
    full = solve_game(game)
    assert full.pareto_optimal and not full.notes
    cut = solve_game(game, budget=TimeBudget(0))
    assert cut.pareto_optimal is None and cut.pure_nash == full.pure_nash
    assert "Pareto-optimal profiles skipped" in cut.notes[0] and "time limit" in cut.notes[0]
    assert solution_json(cut)["pareto_optimal"] is None
