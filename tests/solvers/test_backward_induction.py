"""Backward induction against exhaustive search over all pure strategy profiles."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.solvers.backward_induction import (
    canonical_spe,
    count_spe,
    nash_outcomes,
    punishment_values,
    subgame_perfect_equilibria,
)
from accord.solvers.game_tree import (
    Decision,
    Leaf,
    Node,
    Path,
    decision_nodes,
    follow,
    leaves,
    node_at,
    walk,
)

F = Fraction


def L(*p: int) -> Leaf:
    return Leaf(tuple(F(x) for x in p))


ESCALATION = Decision(0, ("c1", "c2"), (L(0, 0), Decision(1, ("c1", "c2"), (
    L(1, -2), Decision(0, ("c1", "c2"), (L(-2, 1), L(-1, -1)))))))
MONOPOLY = Decision(0, ("c1", "c2"), (L(0, 2), Decision(1, ("c1", "c2"), (L(2, 1), L(-1, -1)))))


def test_escalation() -> None:
    (eq,) = subgame_perfect_equilibria(ESCALATION)
    assert eq.path == ("c1",) and eq.payoff == (0, 0)
    assert eq.strategy == {(): "c1", ("c2",): "c2", ("c2", "c2"): "c2"}


def test_monopoly_threat_is_nash_but_not_subgame_perfect() -> None:
    (eq,) = subgame_perfect_equilibria(MONOPOLY)
    assert eq.path == ("c2", "c1")
    assert [p for p, _ in nash_outcomes(MONOPOLY, 2)] == [("c1",), ("c2", "c1")]


def test_ties_give_every_spe() -> None:
    tree = Decision(0, ("a", "b"), (Decision(1, ("x", "y"), (L(1, 0), L(0, 0))),
                                    Decision(1, ("x", "y"), (L(2, 1), L(-1, 1)))))
    eqs = subgame_perfect_equilibria(tree)
    assert count_spe(tree) == len(eqs) == 4
    assert {e.path for e in eqs} == {("a", "x"), ("a", "y"), ("b", "x")}
    assert canonical_spe(tree).strategy == {(): "b", ("a",): "x", ("b",): "x"}
    with pytest.raises(ValueError, match="more than limit"):
        subgame_perfect_equilibria(tree, limit=3)


# -- random trees versus exhaustive search ----------------------------------------------

def _trees(players: int) -> st.SearchStrategy[Node]:
    leaf = st.lists(st.integers(-2, 2), min_size=players, max_size=players).map(
        lambda p: Leaf(tuple(F(x) for x in p)))

    def extend(children: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
        return st.builds(
            lambda who, kids: Decision(who, tuple(f"a{i}" for i in range(len(kids))),
                                       tuple(kids)),
            st.integers(0, players - 1), st.lists(children, min_size=1, max_size=3))

    return st.recursive(leaf, extend, max_leaves=9)


def _profiles(tree: Node) -> list[dict[Path, str]]:
    nodes = decision_nodes(tree)
    return [dict(zip([p for p, _ in nodes], choice, strict=True))
            for choice in product(*(n.actions for _, n in nodes))]


def _is_nash(tree: Node, strategy: dict[Path, str], start: Path, players: int) -> bool:
    """No player gains by switching to ANY of their own strategies in the subtree at start."""
    base = follow(tree, strategy, start)[1].payoff
    sub_nodes = [(p, n) for p, n in decision_nodes(tree) if p[:len(start)] == start]
    for i in range(players):
        mine = [(p, n) for p, n in sub_nodes if n.player == i]
        for choice in product(*(n.actions for _, n in mine)):
            alt = dict(strategy)
            alt.update(zip([p for p, _ in mine], choice, strict=True))
            if follow(tree, alt, start)[1].payoff[i] > base[i]:
                return False
    return True


def _exhaustive_spe(tree: Node, players: int) -> list[dict[Path, str]]:
    subgames = [p for p, _ in decision_nodes(tree)]
    return [s for s in _profiles(tree)
            if all(_is_nash(tree, s, h, players) for h in subgames)]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3).flatmap(lambda n: st.tuples(st.just(n), _trees(n))))
def test_spe_equals_exhaustive_search(case: tuple[int, Node]) -> None:
    players, tree = case
    if len(_profiles(tree)) > 800:  # keep the brute force cheap
        return
    got = [e.strategy for e in subgame_perfect_equilibria(tree)]
    want = _exhaustive_spe(tree, players)
    assert sorted(sorted(s.items()) for s in got) == sorted(sorted(s.items()) for s in want)
    assert count_spe(tree) == len(want)
    for eq in subgame_perfect_equilibria(tree):
        assert follow(tree, eq.strategy)[0] == eq.path
    assert canonical_spe(tree).strategy in want


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3).flatmap(lambda n: st.tuples(st.just(n), _trees(n))))
def test_nash_outcomes_equal_exhaustive_search(case: tuple[int, Node]) -> None:
    players, tree = case
    profiles = _profiles(tree)
    if len(profiles) > 800:
        return
    want = {follow(tree, s)[0] for s in profiles if _is_nash(tree, s, (), players)}
    got = nash_outcomes(tree, players)
    assert {p for p, _ in got} == want
    for path, payoff in got:
        assert node_at(tree, path) == Leaf(payoff)


def test_punishment_values_and_tree_helpers() -> None:
    values = punishment_values(ESCALATION, 1)
    # Alice escalates; Bob then gets -2 by backing down or -1 once Alice escalates again
    assert values[()] == -1
    assert [p for p, _ in leaves(MONOPOLY)] == [("c1",), ("c2", "c1"), ("c2", "c2")]
    assert [p for p, _ in walk(MONOPOLY)][:2] == [(), ("c1",)]
    with pytest.raises(KeyError, match="no action"):
        node_at(MONOPOLY, ("c9",))
    with pytest.raises(ValueError, match="duplicate"):
        Decision(0, ("a", "a"), (L(0), L(1)))


def _full_tree(rng: np.random.Generator, depth: int, players: int) -> Node:
    if depth == 0:
        return Leaf(tuple(F(int(v)) for v in rng.integers(-1, 2, players)))
    return Decision(int(rng.integers(players)), ("l", "r"),
                    (_full_tree(rng, depth - 1, players), _full_tree(rng, depth - 1, players)))


@pytest.mark.parametrize("seed", range(8))
def test_depth_three_trees_with_many_ties(seed: int) -> None:
    rng = np.random.default_rng(seed)
    players = 2 + seed % 2
    tree = _full_tree(rng, 3, players)  # 7 decision nodes, 128 pure profiles
    want = _exhaustive_spe(tree, players)
    got = [e.strategy for e in subgame_perfect_equilibria(tree)]
    assert sorted(sorted(s.items()) for s in got) == sorted(sorted(s.items()) for s in want)
    assert {p for p, _ in nash_outcomes(tree, players)} == {
        follow(tree, s)[0] for s in _profiles(tree) if _is_nash(tree, s, (), players)}
