"""The frontier's size-dependent paths give identical masks: the direct block method (few
outcomes, 3+ parties), the pre-filter on raw utilities with a rounding margin (many
outcomes), and the one-sort exact frontier of two parties; and NegMAS's frontier set."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.core import pareto as P
from accord.core.pareto import canonical_utilities, pareto_mask, pareto_mask_bruteforce


@contextmanager
def _direct_below(n: int) -> Iterator[None]:
    """Every party count takes the direct method below ``n`` outcomes (0: never), the
    small-size skyline never."""
    with mock.patch.object(P, "_DIRECT_ND", {}), mock.patch.object(P, "_DIRECT_MANY", n), \
            mock.patch.object(P, "_SKYLINE_ND", {}), mock.patch.object(P, "_SKYLINE_MANY", 0):
        yield


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 400), st.integers(3, 5),
       st.sampled_from([3, 10, 10**6]), st.booleans())
def test_small_skyline_path_equals_direct_and_bruteforce(seed: int, n: int, k: int,
                                                        levels: int, noise: bool) -> None:
    """A few hundred outcomes take the skyline alone (below the size for each party
    count), or the direct method above it: the same mask as brute force either way."""
    u = _points(seed, n, k, levels, noise)
    with _direct_below(10**9):
        direct = pareto_mask(u)
    assert np.array_equal(pareto_mask(u), direct)
    assert np.array_equal(direct, pareto_mask_bruteforce(u))
    if n <= P._SKYLINE_ND.get(k, P._SKYLINE_MANY):
        with mock.patch.object(P, "_pareto_direct", None):  # the skyline path alone
            assert np.array_equal(pareto_mask(u), direct)


def _points(seed: int, n: int, k: int, levels: int, noise: bool) -> np.ndarray:
    """Few levels make many ties; ``noise`` adds float noise the rounding must remove
    (a tenth of the points get it, so noisy and clean copies of a vector coexist)."""
    rng = np.random.default_rng(seed)
    u = rng.integers(0, levels, (n, k)) / levels
    if n > 4:
        u[rng.integers(0, n, n // 4)] = u[rng.integers(0, n, n // 4)]  # exact duplicates
    if noise:
        rows = rng.integers(0, n, max(1, n // 10))
        u[rows] += rng.choice([-1, 1], (len(rows), k)) * 2.0 ** -52 * 3
    return u


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1025, 1400), st.integers(3, 5),
       st.sampled_from([3, 10, 10**6]), st.booleans())
def test_prefilter_path_equals_direct_and_bruteforce(seed: int, n: int, k: int, levels: int,
                                                    noise: bool) -> None:
    u = _points(seed, n, k, levels, noise)
    with _direct_below(0):
        fast = pareto_mask(u)
    with _direct_below(10**9):
        direct = pareto_mask(u)
    assert np.array_equal(fast, direct)
    assert np.array_equal(direct, pareto_mask_bruteforce(u))


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 6), st.integers(3, 5),
       st.sampled_from([4, 50, 10**6]), st.booleans())
def test_masks_agree_across_the_threshold(seed: int, width: int, k: int, levels: int,
                                          noise: bool) -> None:
    """Prefixes of one data set on both sides of the threshold: each mask equals brute
    force, whichever path it took. The threshold is patched, so a few hundred outcomes
    show the switch as well as a thousand would (the pre-filter path at 1,025-1,400
    outcomes is checked above), at a tenth of the brute force's quadratic cost."""
    threshold = 400
    u = _points(seed, threshold + width, k, levels, noise)
    with _direct_below(threshold):
        for n in range(threshold - width, threshold + width + 1):
            assert np.array_equal(pareto_mask(u[:n]), pareto_mask_bruteforce(u[:n])), n


@pytest.mark.parametrize("k", [3, 4])
def test_real_threshold_both_sides(k: int) -> None:
    """At the shipped threshold: the pre-filter path (n >= threshold) and the direct
    method (below) give the direct method's mask of the rounded utilities."""
    threshold = P._DIRECT_ND[k]
    u = _points(7, threshold + 1, k, 40, True)
    for n in (threshold - 1, threshold, threshold + 1):
        expected = P._pareto_direct(canonical_utilities(u[:n]))
        assert np.array_equal(pareto_mask(u[:n]), expected), n


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(4090, 4300), st.sampled_from([5, 60, 10**6]),
       st.booleans())
def test_two_parties_across_the_prefilter(seed: int, n: int, levels: int, noise: bool) -> None:
    assert 4090 < P._PREFILTER_2D <= 4300  # the range above straddles the threshold
    u = _points(seed, n, 2, levels, noise)
    r = canonical_utilities(u)
    expected = P._pareto_2d_exact(np.ascontiguousarray(r[:, 0]), np.ascontiguousarray(r[:, 1]))
    assert np.array_equal(pareto_mask(u), expected)
    assert np.array_equal(pareto_mask(r, rounded=True), expected)


def _noise_tie(n: int, k: int) -> tuple[np.ndarray, int]:
    """An anchor that beats a point everywhere by float noise only (0.1 + 0.2 against
    0.3): rounded, the two are equal, so the point stays on the frontier."""
    u = np.random.default_rng(0).random((n, k)) * 0.2  # all dominated by the two below
    u[0] = 0.1 + 0.2  # 0.30000000000000004, in the pre-filter's sample (index 0)
    u[0, 1:] = 0.5 + 2.0 ** -53 * 2
    u[n // 2] = 0.3
    u[n // 2, 1:] = 0.5
    return u, n // 2


@pytest.mark.parametrize("k", [2, 3, 5])
def test_prefilter_does_not_remove_a_noise_tie(k: int) -> None:
    n = 2 * P._PREFILTER_2D + 808 if k == 2 else 2000
    u, tied = _noise_tie(n, k)
    with _direct_below(0):
        mask = pareto_mask(u)
    assert mask[tied] and mask[0] and mask.sum() == 2
    expected = np.zeros(n, dtype=bool)
    expected[[0, tied]] = True  # every other point is below 0.2 on every axis
    assert np.array_equal(mask, expected)
    if n <= 2000:  # brute force is quadratic: 9,000 points took 6 s for the same answer
        assert np.array_equal(expected, pareto_mask_bruteforce(u))


def test_rounded_input_is_taken_as_is() -> None:
    """``rounded=True``: no rounding, so a float-noise difference decides (and an equal
    float sum does not hide a dominator from the direct method)."""
    u = np.array([[0.0, 1.0, 0.0]] * 20 + [[1.0, 0.0, 0.0]] * 15 + [[1.0, 1e-20, 0.0]])
    assert pareto_mask(u, rounded=True)[-16:].tolist() == [False] * 15 + [True]
    assert pareto_mask(u)[-16:].all()  # rounded, 1e-20 is 0: sixteen equal vectors
    r = canonical_utilities(np.random.default_rng(2).random((3000, 3)))
    assert np.array_equal(pareto_mask(r, rounded=True), pareto_mask(r))


def test_bad_shapes_are_named() -> None:
    with pytest.raises(ValueError, match="outcomes, parties"):
        pareto_mask(np.zeros(3))
    with pytest.raises(ValueError, match="at least one party"):
        pareto_mask(np.zeros((3, 0)))


@pytest.mark.parametrize("n_issues,k", [(3, 2), (3, 3), (3, 5), (4, 2), (4, 3), (4, 4)])
def test_frontier_set_equals_negmas(n_issues: int, k: int) -> None:
    """The set of frontier utility vectors equals NegMAS's ``pareto_frontier_numpy`` on the
    same (rounded) utilities; NegMAS keeps one copy of a duplicated vector, accord all."""
    pytest.importorskip("negmas")
    from negmas.preferences.ops import pareto_frontier_numpy

    rng = np.random.default_rng(n_issues * 10 + k)
    u = canonical_utilities(rng.integers(0, 12, (10**n_issues, k)) / 11.0)
    u[: len(u) // 3] = canonical_utilities(rng.random((len(u) // 3, k)))
    mine = {tuple(row) for row in u[pareto_mask(u)].tolist()}
    theirs = {tuple(row) for row in u[pareto_frontier_numpy(u)].tolist()}
    assert mine == theirs
