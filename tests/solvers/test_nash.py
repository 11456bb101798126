"""Pure Nash equilibria and best responses: known games and brute force on random games."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from accord.solvers.nash import (
    action_values,
    best_response_mask,
    best_responses,
    is_pure_nash,
    pure_nash,
    pure_nash_mask,
)
from accord.solvers.payoff_arrays import exact_array, integer_payoffs, to_fraction

PD = np.array([[[3, 3], [0, 5]], [[5, 0], [1, 1]]])


def brute_force_pure_nash(u: np.ndarray) -> list[tuple[int, ...]]:
    """Reference: check every unilateral deviation of every profile with Fractions."""
    n = u.shape[-1]
    out = []
    for prof in product(*(range(k) for k in u.shape[:-1])):
        stable = True
        for i in range(n):
            mine = to_fraction(u[(*prof, i)])
            for dev in range(u.shape[i]):
                alt = list(prof)
                alt[i] = dev
                if to_fraction(u[(*alt, i)]) > mine:
                    stable = False
        if stable:
            out.append(prof)
    return out


@st.composite
def games(draw: st.DrawFn, max_players: int = 3, max_actions: int = 4) -> np.ndarray:
    n = draw(st.integers(1, max_players))
    shape = tuple(draw(st.lists(st.integers(1, max_actions), min_size=n, max_size=n)))
    return draw(arrays(np.int64, (*shape, n), elements=st.integers(-3, 3)))


def test_prisoners_dilemma() -> None:
    assert pure_nash(PD) == [(1, 1)]
    assert is_pure_nash(PD, (1, 1)) and not is_pure_nash(PD, (0, 0))


def test_matching_pennies_has_no_pure_equilibrium() -> None:
    a = np.array([[1, -1], [-1, 1]])
    assert pure_nash(np.stack([a, -a], axis=-1)) == []


@settings(max_examples=150, deadline=None)
@given(games())
def test_pure_nash_matches_brute_force(u: np.ndarray) -> None:
    assert pure_nash(u) == brute_force_pure_nash(u)


@settings(max_examples=60, deadline=None)
@given(games(max_players=3, max_actions=3))
def test_fraction_payoffs_are_exact(u: np.ndarray) -> None:
    # dividing every payoff by 3 keeps the equilibria; floats 1/3 would create fake ties
    thirds = exact_array(np.vectorize(lambda v: Fraction(int(v), 3), otypes=[object])(u))
    assert thirds.dtype == object or np.all(u % 3 == 0)
    assert pure_nash(thirds) == pure_nash(u)


def test_near_ties_are_not_confused() -> None:
    # 1/3 + 1e-17 style trouble: 0.1 + 0.2 versus 0.3 is exact with Fractions
    u = exact_array([[["0.3", 0], ["3/10", 0]], [[Fraction(1, 10) + Fraction(2, 10), 0],
                                                 [0, 0]]])
    mask = best_response_mask(u)
    assert mask[0, 0, 0] and mask[1, 0, 0]


def test_integer_rescaling_is_per_player() -> None:
    u = exact_array([[["1/2", "1/3"]]])
    ints, scales = integer_payoffs(u)
    assert scales == (2, 3)
    assert ints.tolist() == [[[1, 1]]]


def test_best_responses_to_pure_and_mixed() -> None:
    assert best_responses(PD, 0, [0, 0]) == [1]
    half = [Fraction(1, 2), Fraction(1, 2)]
    sh = np.array([[[3, 3], [0, 1]], [[1, 0], [1, 1]]])
    assert action_values(sh, 0, [0, half]) == [Fraction(3, 2), Fraction(1)]
    third = [Fraction(1, 3), Fraction(2, 3)]
    assert best_responses(sh, 0, [0, third]) == [0, 1]  # indifferent at the mixed NE


def test_three_player_action_values() -> None:
    rng = np.random.default_rng(7)
    u = rng.integers(-5, 6, size=(2, 3, 2, 3))
    x = [Fraction(1, 4), Fraction(3, 4)]
    z = [Fraction(1, 2), Fraction(1, 2)]
    got = action_values(u, 1, [x, 0, z])
    want = [sum(x[a] * z[c] * int(u[a, b, c, 1]) for a in range(2) for c in range(2))
            for b in range(3)]
    assert got == want


def test_large_game_mask_shape() -> None:
    rng = np.random.default_rng(0)
    u = rng.integers(0, 1000, size=(300, 300, 2))
    mask = pure_nash_mask(u)
    assert mask.shape == (300, 300)
    for prof in np.argwhere(mask)[:20]:
        assert is_pure_nash(u, tuple(prof))


def test_bad_inputs() -> None:
    with pytest.raises(ValueError, match="payoffs per profile"):
        pure_nash(np.zeros((2, 2, 3)))
    with pytest.raises(ValueError, match="not a probability"):
        action_values(PD, 0, [0, [Fraction(1, 2), Fraction(1, 3)]])
    with pytest.raises(TypeError, match="boolean"):
        exact_array([[[True, 1]]])
