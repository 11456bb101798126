"""Pareto optimality of profiles and Definition 13 perturbations (seed 003, Tables 20-21)."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from accord.solvers.game_pareto import (
    pareto_mask_of_vectors,
    pareto_optimal_mask,
    pareto_optimal_profiles,
    payoff_dominant_nash,
)
from accord.solvers.nash import pure_nash
from accord.solvers.nash_mixed import mixed_nash
from accord.solvers.payoff_arrays import exact_array
from accord.solvers.perturbation import (
    is_ne_invariant,
    nash_invariant_perturbation,
    same_equilibria,
)

PD = np.array([[[3, 3], [0, 5]], [[5, 0], [1, 1]]])
PD_V1 = np.array([[[300, 300], [0, 301]], [[301, 0], [1, 1]]])
PD_V2 = np.array([[[3, 3], [-300, 5]], [[5, -300], [-299, -299]]])
SH = np.array([[[3, 3], [0, 1]], [[1, 0], [1, 1]]])
SH_V1 = np.array([[[300, 300], [0, 1]], [[1, 0], [1, 1]]])
SH_V2 = np.array([[[3, 3], [-100, -99]], [[-99, -100], [-99, -99]]])


def brute_pareto(u: np.ndarray) -> np.ndarray:
    profs = list(product(*(range(k) for k in u.shape[:-1])))
    vecs = [tuple(int(v) for v in u[p]) for p in profs]
    mask = np.zeros(u.shape[:-1], dtype=bool)
    for p, v in zip(profs, vecs, strict=True):
        mask[p] = not any(all(a >= b for a, b in zip(w, v, strict=True)) and w != v
                          for w in vecs)
    return mask


@st.composite
def games(draw: st.DrawFn) -> np.ndarray:
    n = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)))
    return draw(arrays(np.int64, (*shape, n), elements=st.integers(-3, 3)))


def test_prisoners_dilemma_pareto() -> None:
    assert pareto_optimal_profiles(PD) == [(0, 0), (0, 1), (1, 0)]
    assert payoff_dominant_nash(PD) == [(1, 1)]  # the only NE counts (seed Tables 5-8)


def test_stag_hunt_payoff_dominant() -> None:
    assert payoff_dominant_nash(SH) == [(0, 0)]


@settings(max_examples=150, deadline=None)
@given(games())
def test_pareto_matches_brute_force(u: np.ndarray) -> None:
    assert (pareto_optimal_mask(u) == brute_pareto(u)).all()


def test_pareto_big_two_player_game_and_object_ints() -> None:
    rng = np.random.default_rng(3)
    pts = rng.integers(0, 50, size=(2000, 2))
    fast = pareto_mask_of_vectors(pts)
    obj = pareto_mask_of_vectors(pts.astype(object) * (2**70))  # beyond int64: exact path
    ge = (pts[:, None, :] >= pts[None, :, :]).all(axis=2)
    gt = (pts[:, None, :] > pts[None, :, :]).any(axis=2)
    assert (fast == ~(ge & gt).any(axis=0)).all()
    assert (obj == fast).all()


@pytest.mark.parametrize(("base", "variation"), [(PD, PD_V1), (PD, PD_V2), (SH, SH_V1),
                                                 (SH, SH_V2)])
def test_seed_variations_are_ne_invariant(base: np.ndarray, variation: np.ndarray) -> None:
    assert is_ne_invariant(base, variation - base)
    assert same_equilibria(base, variation)


def test_stag_hunt_variation_moves_the_mixed_equilibrium() -> None:
    assert not same_equilibria(SH, SH_V1, mixed=True)
    mixed = [e for e in mixed_nash(SH_V1[..., 0], SH_V1[..., 1]) if 0 < e[0][0] < 1]
    assert mixed == [((Fraction(1, 300), Fraction(299, 300)),) * 2]
    assert same_equilibria(PD, PD_V1, mixed=True)  # a unique pure NE stays unique


@settings(max_examples=40, deadline=None)
@given(games(), st.sampled_from(["affine", "opponent-shift", "noise"]),
       st.integers(0, 2**32 - 1))
def test_generated_perturbations_keep_the_pure_equilibria(u: np.ndarray, method: str,
                                                          seed: int) -> None:
    rng = np.random.default_rng(seed)
    try:
        pert = nash_invariant_perturbation(u, rng, method=method, max_attempts=200)  # type: ignore[arg-type]
    except RuntimeError:
        assert method == "noise"  # only rejection sampling may fail
        return
    assert pure_nash(pert.payoffs) == pure_nash(u)
    assert (exact_array(u + pert.delta) == pert.payoffs).all()


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["affine", "opponent-shift"]))
def test_structural_perturbations_keep_mixed_equilibria(seed: int, method: str) -> None:
    rng = np.random.default_rng(seed)
    u = rng.integers(-9, 10, size=(3, 3, 2))
    pert = nash_invariant_perturbation(u, rng, method=method, mixed=True,  # type: ignore[arg-type]
                                       max_attempts=1)
    assert mixed_nash(pert.payoffs[..., 0], pert.payoffs[..., 1]) == mixed_nash(u[..., 0],
                                                                                u[..., 1])


def test_perturbation_errors() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="unknown perturbation method"):
        nash_invariant_perturbation(PD, rng, method="bogus")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="magnitude"):
        nash_invariant_perturbation(PD, rng, magnitude=0)
