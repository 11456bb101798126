"""Game files: the issue's exact JSON / YAML formats, round trips and precise errors."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from accord.domains.games import (
    ExtensiveGame,
    GameFileError,
    NormalFormGame,
    load_game,
    parse_game,
    save_game,
)
from accord.domains.games.load import dump_game
from accord.solvers.game_tree import Decision, Leaf

NORMAL = {"type": "normal", "players": ["Alice", "Bob"],
          "actions": [["cooperate", "defect"], ["cooperate", "defect"]],
          "payoffs": [[[3, 3], [0, 5]], [[5, 0], [1, 1]]]}
EXTENSIVE = {"type": "extensive", "players": ["Alice", "Bob"],
             "tree": {"player": "Alice", "actions": {
                 "choice_1": {"payoff": [0, 0]},
                 "choice_2": {"player": "Bob", "actions": {"choice_1": {"payoff": [1, -2]},
                                                           "choice_2": {"payoff": [-1, -1]}}}}}}


def test_issue_normal_form_example(tmp_path: Path) -> None:
    path = tmp_path / "pd.json"
    path.write_text(json.dumps(NORMAL))
    game = load_game(path)
    assert isinstance(game, NormalFormGame)
    assert game.players == ("Alice", "Bob")
    assert game.payoff(("defect", "cooperate")) == (5, 0)
    assert game.payoffs.dtype == np.int64
    assert dump_game(game) == NORMAL


def test_issue_extensive_form_example(tmp_path: Path) -> None:
    path = tmp_path / "tree.yaml"
    path.write_text(yaml.safe_dump(EXTENSIVE))
    game = load_game(path)
    assert isinstance(game, ExtensiveGame)
    assert game.mover(()) == "Alice" and game.mover(("choice_2",)) == "Bob"
    assert game.payoff(("choice_2", "choice_1")) == (1, -2)
    assert isinstance(game.tree, Decision) and isinstance(game.tree.children[0], Leaf)
    assert dump_game(game) == EXTENSIVE


def test_three_players_and_exact_numbers(tmp_path: Path) -> None:
    data = {"type": "normal", "players": ["A", "B", "C"],
            "actions": [["x", "y"], ["x"], ["x", "y"]],
            "payoffs": [[[[1, "1/3", 0.1], [2, 2, 2]]], [[[0, 0, 0], ["-7/2", 1.5, 3]]]]}
    game = parse_game(data)
    assert isinstance(game, NormalFormGame)
    assert game.payoffs.shape == (2, 1, 2, 3)
    assert game.payoff((0, 0, 0)) == (1, Fraction(1, 3), Fraction(1, 10))
    for suffix in (".json", ".yaml"):
        path = tmp_path / f"g{suffix}"
        save_game(game, path)
        again = load_game(path)
        assert isinstance(again, NormalFormGame)
        assert (again.payoffs == game.payoffs).all()
    assert dump_game(game)["payoffs"][0][0][0] == [1, "1/3", 0.1]


def test_parameters_and_terms() -> None:
    data = {**NORMAL, "parameters": {"j": {"default": 10, "description": "jackpot"}},
            "payoffs": [[["j/2", "j/2"], [0, "j"]], [["2*j", 0], ["-j", "3/4*j"]]]}
    game = parse_game(data)
    assert isinstance(game, NormalFormGame)
    assert game.payoff((0, 0)) == (5, 5)
    game2 = parse_game(data, params={"j": 3})
    assert isinstance(game2, NormalFormGame)
    assert game2.payoff((0, 0)) == (Fraction(3, 2), Fraction(3, 2))
    assert game2.payoff((1, 1)) == (-3, Fraction(9, 4))
    assert game2.payoff((1, 0)) == (6, 0)
    with pytest.raises(GameFileError, match="no parameter 'k'"):
        parse_game(data, params={"k": 1})


def _err(data: Any, tmp_path: Path | None = None, suffix: str = ".json") -> str:
    if tmp_path is None:
        with pytest.raises(GameFileError) as info:
            parse_game(data, source="g.json")
        return str(info.value)
    path = tmp_path / f"g{suffix}"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    with pytest.raises(GameFileError) as info:
        load_game(path)
    return str(info.value)


def test_errors_name_the_key_and_problem() -> None:
    bad = json.loads(json.dumps(NORMAL))
    bad["payoffs"][1][0] = [5, 0, 9]
    assert "key 'payoffs[1][0]'" in _err(bad) and "2 payoffs" in _err(bad)
    bad = {**NORMAL, "payoffs": [[[3, 3], [0, 5]]]}
    assert "key 'payoffs'" in _err(bad) and "expected 2 entries" in _err(bad)
    bad = {**NORMAL, "type": "normel"}
    assert "key 'type'" in _err(bad)
    bad = {**NORMAL, "extra": 1}
    assert "key 'extra'" in _err(bad) and "unknown key" in _err(bad)
    bad = {**NORMAL, "players": ["Alice", "Alice"]}
    assert "duplicate player names" in _err(bad)
    bad = json.loads(json.dumps(NORMAL))
    bad["payoffs"][0][0][0] = "three"
    assert "key 'payoffs[0][0][0]'" in _err(bad) and "'three'" in _err(bad)
    bad = json.loads(json.dumps(NORMAL))
    bad["payoffs"][0][0][0] = True
    assert "boolean" in _err(bad)
    bad = json.loads(json.dumps(EXTENSIVE))
    bad["tree"]["actions"]["choice_2"]["player"] = "Carol"
    assert "key 'tree.actions.choice_2.player'" in _err(bad) and "'Carol'" in _err(bad)
    bad = json.loads(json.dumps(EXTENSIVE))
    bad["tree"]["actions"]["choice_1"] = {"payoff": [0]}
    assert "key 'tree.actions.choice_1.payoff'" in _err(bad)
    bad = json.loads(json.dumps(EXTENSIVE))
    bad["tree"]["actions"]["choice_1"] = {"player": "Bob"}
    assert "missing ['actions']" in _err(bad)
    missing = {k: v for k, v in NORMAL.items() if k != "payoffs"}
    assert "missing required keys ['payoffs']" in _err(missing)


def test_file_errors_carry_file_and_line(tmp_path: Path) -> None:
    text = ("type: normal\nplayers: [Alice, Bob]\nactions: [[a, b], [a, b]]\npayoffs:\n"
            "  - [[1, 1], [0, 0]]\n  - [[0, 0], [1, x]]\n")
    msg = _err(text, tmp_path, ".yaml")
    assert "g.yaml, line 6" in msg and "payoffs[1][1][1]" in msg
    msg = _err("{\"type\": \"normal\",\n \"players\": [}", tmp_path, ".json")
    assert "g.json, line 2: invalid JSON" in msg
    msg = _err("a: [1, 2\n", tmp_path, ".yaml")
    assert "invalid YAML" in msg
    with pytest.raises(GameFileError, match="unknown game file type"):
        load_game(tmp_path / "g.txt")
    with pytest.raises(GameFileError, match="cannot read"):
        load_game(tmp_path / "missing.json")
