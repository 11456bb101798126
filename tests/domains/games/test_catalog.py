"""Known equilibria of every catalog game (seed 003, sections 4.1 and 6)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from accord.domains.games import (
    ExtensiveGame,
    NormalFormGame,
    catalog_names,
    load_catalog_game,
    solve_game,
)
from accord.domains.games.catalog import catalog_entry
from accord.solvers.backward_induction import count_spe
from accord.solvers.perturbation import same_equilibria

F = Fraction

# name -> (pure Nash, Pareto-optimal Nash) as profiles of action names
NORMAL = {
    "prisoners-dilemma": ([("defect", "defect")], [("defect", "defect")]),
    "stag-hunt": ([("stag", "stag"), ("hare", "hare")], [("stag", "stag")]),
    "battle-of-the-sexes": ([("opera", "opera"), ("football", "football")],
                            [("opera", "opera"), ("football", "football")]),
    "wait-go": ([("wait", "go"), ("go", "wait")], [("wait", "go"), ("go", "wait")]),
    "duopolistic-competition": ([("action_3", "action_3")], [("action_3", "action_3")]),
    "rock-paper-scissors": ([], []),
    "golden-balls": ([("split", "steal"), ("steal", "split"), ("steal", "steal")],
                     [("split", "steal"), ("steal", "split")]),
    "prisoners-dilemma-v1": ([("action_2", "action_2")], [("action_2", "action_2")]),
    "prisoners-dilemma-v2": ([("action_2", "action_2")], [("action_2", "action_2")]),
    "stag-hunt-v1": ([("action_1", "action_1"), ("action_2", "action_2")],
                     [("action_1", "action_1")]),
    "stag-hunt-v2": ([("action_1", "action_1"), ("action_2", "action_2")],
                     [("action_1", "action_1")]),
}
# name -> (unique SPE path, its payoff)
SEQUENTIAL = {
    "escalation": (("choice_1",), (0, 0)),
    "monopoly": (("choice_2", "choice_1"), (2, 1)),
    "hot-cold": (("choice_1", "choice_2"), (2, 3)),
    "draco": (("choice_2", "choice_2", "choice_2"), (4, 1)),
    "trigame": (("choice_2", "choice_1", "choice_2"), (4, 10)),
}


def test_catalog_lists_table_1_then_extras() -> None:
    names = catalog_names()
    assert names[:10] == ["prisoners-dilemma", "stag-hunt", "battle-of-the-sexes", "wait-go",
                          "duopolistic-competition", "escalation", "monopoly", "hot-cold",
                          "draco", "trigame"]
    assert set(names) == set(NORMAL) | set(SEQUENTIAL)
    assert [n for n in names[:10] if catalog_entry(n).coordination] == [
        "stag-hunt", "battle-of-the-sexes", "wait-go"]


@pytest.mark.parametrize("name", sorted(NORMAL))
def test_normal_form_equilibria(name: str) -> None:
    game = load_catalog_game(name)
    assert isinstance(game, NormalFormGame)
    sol = solve_game(game)
    pure, pone = NORMAL[name]
    assert sorted(sol.pure_nash) == sorted(pure)
    assert sorted(sol.pareto_optimal_nash) == sorted(pone)
    assert game.info.description and game.info.notes


@pytest.mark.parametrize("name", sorted(SEQUENTIAL))
def test_sequential_unique_spe(name: str) -> None:
    game = load_catalog_game(name)
    assert isinstance(game, ExtensiveGame)
    assert count_spe(game.tree) == 1
    sol = solve_game(game)
    assert sol.spe is not None and len(sol.spe) == 1
    path, payoff = SEQUENTIAL[name]
    assert sol.spe[0].path == path and sol.spe[0].payoff == payoff
    assert path in sol.pure_nash  # an SPE outcome is a Nash outcome


def test_pareto_statements_of_the_seed() -> None:
    pd = solve_game(load_catalog_game("prisoners-dilemma"))
    assert ("cooperate", "cooperate") in pd.pareto_optimal
    assert ("defect", "defect") not in pd.pareto_optimal
    duo = solve_game(load_catalog_game("duopolistic-competition"))
    assert ("action_2", "action_2") in duo.pareto_optimal
    assert ("action_3", "action_3") not in duo.pareto_optimal
    game = load_catalog_game("duopolistic-competition")
    assert game.payoff(("action_3", "action_3")) == (6, 6)
    assert game.payoff(("action_2", "action_2")) == (7, 7)
    assert isinstance(game, NormalFormGame)
    a, b = game.matrices()
    assert (a == b.T).all()  # the table is symmetric, which fixes the garbled cell


def test_mixed_equilibria_of_the_catalog() -> None:
    rps = solve_game(load_catalog_game("rock-paper-scissors"))
    third = F(1, 3)
    assert rps.mixed_nash == [({"rock": third, "paper": third, "scissors": third},) * 2]
    sh = solve_game(load_catalog_game("stag-hunt"))
    assert sh.mixed_nash is not None
    assert ({"stag": F(1, 3), "hare": F(2, 3)},) * 2 in sh.mixed_nash
    bos = solve_game(load_catalog_game("battle-of-the-sexes"))
    assert bos.mixed_nash is not None
    assert ({"opera": F(2, 3), "football": F(1, 3)},
            {"opera": F(1, 3), "football": F(2, 3)}) in bos.mixed_nash


def test_monopoly_threat_outcome() -> None:
    sol = solve_game(load_catalog_game("monopoly"))
    assert sorted(sol.pure_nash) == [("choice_1",), ("choice_2", "choice_1")]


@pytest.mark.parametrize(("base", "variant"), [("prisoners-dilemma", "prisoners-dilemma-v1"),
                                               ("prisoners-dilemma", "prisoners-dilemma-v2"),
                                               ("stag-hunt", "stag-hunt-v1"),
                                               ("stag-hunt", "stag-hunt-v2")])
def test_variations_are_ne_invariant(base: str, variant: str) -> None:
    g0, g1 = load_catalog_game(base), load_catalog_game(variant)
    assert isinstance(g0, NormalFormGame) and isinstance(g1, NormalFormGame)
    assert same_equilibria(g0.payoffs, g1.payoffs)


def test_golden_balls_jackpot_parameter() -> None:
    game = load_catalog_game("golden-balls", {"jackpot": 13_601})
    assert isinstance(game, NormalFormGame)
    assert game.payoff(("split", "split")) == (F(13_601, 2), F(13_601, 2))
    assert game.payoff(("steal", "split")) == (13_601, 0)
    assert game.info.parameters == {"jackpot": 13_601}
    default = load_catalog_game("golden-balls")
    assert isinstance(default, NormalFormGame)
    assert np.array_equal(default.payoffs[1, 1], [0, 0])
