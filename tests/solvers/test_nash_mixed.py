"""Mixed equilibria: exact known values, nashpy cross-checks, degenerate games."""

from __future__ import annotations

import warnings
from fractions import Fraction

import nashpy
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.solvers.nash import pure_nash
from accord.solvers.nash_mixed import is_mixed_nash, mixed_nash

F = Fraction


def _key(x: object, y: object) -> tuple[float, ...]:
    vals = np.concatenate([np.asarray(x, dtype=float), np.asarray(y, dtype=float)])
    return tuple(np.round(vals, 7) + 0.0)


def _regret(a: np.ndarray, b: np.ndarray, x: np.ndarray, y: np.ndarray) -> float:
    scale = max(1.0, float(np.abs(a).max()), float(np.abs(b).max()))
    return max((a @ y).max() - x @ a @ y, (x @ b).max() - x @ b @ y) / scale


def test_rock_paper_scissors() -> None:
    a = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
    third = (F(1, 3),) * 3
    assert mixed_nash(a, -a) == [(third, third)]


def test_stag_hunt_has_two_pure_and_one_mixed() -> None:
    a = np.array([[3, 0], [1, 1]])
    eqs = mixed_nash(a, a.T)
    assert ((F(1), F(0)), (F(1), F(0))) in eqs
    assert ((F(0), F(1)), (F(0), F(1))) in eqs
    assert ((F(1, 3), F(2, 3)), (F(1, 3), F(2, 3))) in eqs
    assert len(eqs) == 3


def test_fractional_payoffs() -> None:
    a = np.array([["1/2", 0], [0, "1/3"]], dtype=object)
    eqs = mixed_nash(a, a)
    # player 2 mixes y with y/2 = (1-y)/3 -> y = 2/5
    assert ((F(2, 5), F(3, 5)), (F(2, 5), F(3, 5))) in eqs


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 4), st.integers(2, 4))
def test_matches_nashpy_on_random_games(seed: int, m: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.integers(-10**6, 10**6, (m, n))
    b = rng.integers(-10**6, 10**6, (m, n))
    mine = {_key(x, y) for x, y in mixed_nash(a, b)}
    game = nashpy.Game(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # nashpy's vertex enumeration may return near-equilibria; keep the genuine ones
        ref = {_key(x, y) for x, y in game.vertex_enumeration()
               if _regret(a, b, np.asarray(x), np.asarray(y)) < 1e-9}
        support = {_key(x, y) for x, y in game.support_enumeration(non_degenerate=True)}
    assert mine == ref
    assert support <= mine  # float support enumeration may miss some, never add


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.integers(1, 4))
def test_degenerate_games_give_exact_equilibria(seed: int, m: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.integers(-2, 3, (m, n))
    b = rng.integers(-2, 3, (m, n))
    eqs = mixed_nash(a, b)
    assert eqs, "every finite game has an equilibrium"
    for x, y in eqs:
        assert is_mixed_nash(a, b, x, y)
    pure = {(x.index(1), y.index(1)) for x, y in eqs if max(x) == 1 and max(y) == 1}
    assert pure == set(pure_nash(np.stack([a, b], axis=-1)))


def test_golden_balls_returns_the_extreme_points() -> None:
    j = 100
    a = np.array([[j // 2, 0], [j, 0]])
    b = np.array([[j // 2, j], [0, 0]])
    split, steal = (F(1), F(0)), (F(0), F(1))
    assert set(mixed_nash(a, b)) == {(split, steal), (steal, split), (steal, steal)}


def test_duplicate_rows_continuum() -> None:
    # identical rows: player 1 is indifferent, equilibria form a segment
    a = np.array([[1, 0], [1, 0]])
    b = np.array([[1, 0], [1, 0]])
    eqs = mixed_nash(a, b)
    for x, y in eqs:
        assert is_mixed_nash(a, b, x, y)
    assert {(x, y) for x, y in eqs} == {((F(1), F(0)), (F(1), F(0))),
                                        ((F(0), F(1)), (F(1), F(0)))}


def test_is_mixed_nash_rejects_non_equilibria() -> None:
    a = np.array([[3, 0], [5, 1]])
    assert not is_mixed_nash(a, a.T, (F(1), F(0)), (F(1), F(0)))
    assert is_mixed_nash(a, a.T, (F(0), F(1)), (F(0), F(1)))
    assert not is_mixed_nash(a, a.T, (F(1, 2), F(1, 3)), (F(0), F(1)))
