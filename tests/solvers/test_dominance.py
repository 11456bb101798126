"""Dominance and iterated elimination: known games and brute force."""

from __future__ import annotations

from itertools import product

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from accord.solvers.dominance import (
    dominance_matrix,
    dominant_action,
    dominated_actions,
    iterated_elimination,
)
from accord.solvers.nash import pure_nash

PD = np.array([[[3, 3], [0, 5]], [[5, 0], [1, 1]]])
DUOPOLY = np.array([[0, 0, 0, 0, 0, 0], [9, 7, 5, 3, 1, -1], [14, 10, 6, 2, -2, -2],
                    [15, 9, 3, -3, -3, -3], [12, 4, -4, -4, -4, -4], [5, -5, -5, -5, -5, -5]])


def test_prisoners_dilemma_defect_is_strictly_dominant() -> None:
    assert dominant_action(PD, 0) == 1 and dominant_action(PD, 1) == 1
    assert dominated_actions(PD, 0) == [0]
    elim = iterated_elimination(PD)
    assert elim.surviving == ((1,), (1,))
    assert elim.steps == ((1, 0, 0, 1), (1, 1, 0, 1))


def test_stag_hunt_has_no_dominance() -> None:
    sh = np.array([[[3, 3], [0, 1]], [[1, 0], [1, 1]]])
    assert dominant_action(sh, 0) is None
    assert iterated_elimination(sh).surviving == ((0, 1), (0, 1))


def test_duopoly_iterated_strict_elimination_reaches_the_equilibrium() -> None:
    u = np.stack([DUOPOLY, DUOPOLY.T], axis=-1)
    elim = iterated_elimination(u)
    assert elim.surviving == ((2,), (2,))
    assert pure_nash(u) == [(2, 2)]


def test_weak_dominance_golden_balls() -> None:
    j = 10
    u = np.array([[[j // 2, j // 2], [0, j]], [[j, 0], [0, 0]]])
    assert dominant_action(u, 0) is None                  # not strictly
    assert dominant_action(u, 0, strict=False) == 1       # steal weakly dominates split
    assert iterated_elimination(u, strict=False).surviving == ((1,), (1,))


def test_identical_actions_do_not_weakly_dominate_each_other() -> None:
    u = np.array([[[1, 0]], [[1, 0]]])
    assert not dominance_matrix(u, 0, strict=False).any()
    assert dominant_action(u, 0, strict=False) is None


@st.composite
def games(draw: st.DrawFn) -> np.ndarray:
    n = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)))
    return draw(arrays(np.int64, (*shape, n), elements=st.integers(-3, 3)))


def _others(u: np.ndarray, player: int) -> list[tuple[int, ...]]:
    return list(product(*(range(k) for j, k in enumerate(u.shape[:-1]) if j != player)))


def _pay(u: np.ndarray, player: int, action: int, rest: tuple[int, ...]) -> int:
    prof = list(rest)
    prof.insert(player, action)
    return int(u[(*prof, player)])


@settings(max_examples=100, deadline=None)
@given(games(), st.booleans())
def test_dominance_matrix_matches_brute_force(u: np.ndarray, strict: bool) -> None:
    for i in range(u.shape[-1]):
        d = dominance_matrix(u, i, strict=strict)
        for a, b in product(range(u.shape[i]), repeat=2):
            diffs = [_pay(u, i, a, r) - _pay(u, i, b, r) for r in _others(u, i)]
            want = (all(x > 0 for x in diffs) if strict
                    else all(x >= 0 for x in diffs) and any(x > 0 for x in diffs))
            assert d[a, b] == want


@settings(max_examples=100, deadline=None)
@given(games())
def test_strict_elimination_keeps_every_pure_equilibrium(u: np.ndarray) -> None:
    surv = iterated_elimination(u).surviving
    assert all(len(s) >= 1 for s in surv)
    for eq in pure_nash(u):
        assert all(a in s for a, s in zip(eq, surv, strict=True))
    # the reduced game has no strictly dominated action left
    sub = u[np.ix_(*[list(s) for s in surv])]
    for i in range(u.shape[-1]):
        assert dominated_actions(sub, i) == []
