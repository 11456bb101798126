"""The n-d skyline against the O(n^2) brute force, ties and duplicates included."""

from __future__ import annotations

from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.core import pareto
from accord.core.pareto import canonical_utilities, pareto_mask, pareto_mask_bruteforce
from accord.core.skyline import filter_dominated, skyline_mask


def _points(seed: int, n: int, k: int, levels: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    u = rng.integers(0, levels, (n, k)).astype(float)  # few levels: many ties
    if n > 4:
        u[rng.integers(0, n, n // 4)] = u[rng.integers(0, n, n // 4)]  # exact duplicates
    return u


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 700), st.integers(2, 5),
       st.sampled_from([2, 3, 5, 20, 10**6]))
def test_skyline_equals_bruteforce(seed: int, n: int, k: int, levels: int) -> None:
    u = _points(seed, n, k, levels)
    assert np.array_equal(skyline_mask(u), pareto_mask_bruteforce(u))


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1025, 1500), st.integers(3, 5),
       st.sampled_from([3, 8, 10**6]))
def test_pareto_mask_with_prefilter_equals_bruteforce(seed: int, n: int, k: int, levels: int
                                                      ) -> None:
    u = _points(seed, n, k, levels)
    # at this size pareto_mask takes the direct method: force the pre-filter and skyline
    with mock.patch.object(pareto, "_DIRECT_ND", {}), mock.patch.object(pareto,
                                                                        "_DIRECT_MANY", 0):
        assert np.array_equal(pareto_mask(u), pareto_mask_bruteforce(u))


def test_anti_correlated_points_keep_every_copy() -> None:
    rng = np.random.default_rng(5)
    x = rng.random((1200, 3))
    x /= x.sum(axis=1, keepdims=True)  # on a simplex: everything is on the frontier
    u = np.concatenate([x, x[:200], x[:300] * 0.5])
    got = pareto_mask(u)
    assert np.array_equal(got, pareto_mask_bruteforce(u))
    assert got[:1400].all() and not got[1400:].any()


def test_filter_dominated_is_strict() -> None:
    u = np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 0.0], [2.0, 0.0, 0.0]])
    kept = sorted(filter_dominated(u, np.arange(4), np.array([0])).tolist())
    assert kept == [0, 1, 3]  # the copy of the dominator stays, [1, 1, 0] goes


def test_canonical_utilities_equals_numpy_round() -> None:
    rng = np.random.default_rng(1)
    for scale in (1e-30, 1e-3, 0.7, 1.0, 3.3, 1e5, 1e9, 1e30):
        u = rng.random((500, 3)) * scale
        u[::3] = 0.1 * scale + 0.2 * scale  # float noise the rounding must remove
        decimals = 12 - int(np.ceil(np.log10(np.abs(u).max())))
        assert np.array_equal(canonical_utilities(u), np.round(u, decimals))
    special = np.array([[np.inf, 0.3], [np.nan, 0.1 + 0.2]])
    assert np.array_equal(canonical_utilities(special), np.round(special, 12), equal_nan=True)
