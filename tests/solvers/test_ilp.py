"""The HiGHS ILP equals exhaustive search on small random instances of both kinds."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from accord.solvers.ilp import (
    max_value_assignment,
    max_weight_selection,
    solve_binary_program,
)


def _brute_selection(values, usage, capacity):
    best = Fraction(0)
    n = len(values)
    for x in itertools.product((0, 1), repeat=n):
        if all(sum(Fraction(str(u)) * xi for u, xi in zip(row, x, strict=True))
               <= Fraction(str(c)) for row, c in zip(usage, capacity, strict=True)):
            best = max(best, sum(Fraction(str(v)) * xi for v, xi in zip(values, x, strict=True)))
    return best


@pytest.mark.parametrize("seed", range(40))
def test_selection_matches_exhaustive_search(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 10)), int(rng.integers(1, 5))
    values = [round(float(v), 2) for v in rng.uniform(-1, 20, n)]
    usage = [[int(u) for u in rng.integers(0, 4, n)] for _ in range(m)]
    capacity = [int(c) for c in rng.integers(0, 8, m)]
    res = max_weight_selection(values, usage, capacity)
    assert Fraction(repr(res.objective)) == pytest.approx(_brute_selection(values, usage,
                                                                          capacity), abs=1e-9)
    for row, cap in zip(usage, capacity, strict=True):  # the solution itself is feasible
        assert sum(u * x for u, x in zip(row, res.x, strict=True)) <= cap


def _brute_assignment(values, pneed, pcap, uneed, ucap):
    n_a, n_t = len(values), len(values[0])
    best = 0.0
    for choice in itertools.product(range(-1, n_a), repeat=n_t):
        ok = True
        for a in range(n_a):
            for r in range(len(pneed)):
                used = sum(Fraction(str(pneed[r][t])) for t in range(n_t) if choice[t] == a)
                ok &= used <= Fraction(str(pcap[a][r]))
        for p in range(len(uneed)):
            used = sum(Fraction(str(uneed[p][t])) for t in range(n_t) if choice[t] >= 0)
            ok &= used <= Fraction(str(ucap[p]))
        if ok:
            best = max(best, sum(values[a][t] for t, a in enumerate(choice) if a >= 0))
    return best


@pytest.mark.parametrize("seed", range(30))
def test_assignment_matches_exhaustive_search(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    n_a, n_t = int(rng.integers(1, 4)), int(rng.integers(1, 6))
    values = [[round(float(v), 2) for v in rng.uniform(0, 1, n_t)] for _ in range(n_a)]
    pneed = [[round(float(v), 1) for v in rng.uniform(0, 3, n_t)] for _ in range(2)]
    pcap = [[round(float(v), 1) for v in rng.uniform(0, 6, 2)] for _ in range(n_a)]
    uneed = [[int(v) for v in rng.integers(0, 50, n_t)]]
    ucap = [int(rng.integers(0, 120))]
    res = max_value_assignment(values, pneed, pcap, uneed, ucap)
    assert res.objective == pytest.approx(_brute_assignment(values, pneed, pcap, uneed, ucap),
                                          abs=1e-9)


def test_decimal_capacities_are_exact() -> None:
    # 0.1 + 0.2 == 0.3 exactly: both items fit (floats would say 0.30000000000000004 > 0.3)
    res = max_weight_selection([1, 1, 1], [[0.1, 0.2, 0.3]], [0.3])
    assert res.objective == 2.0


def test_non_positive_values_are_never_chosen_and_shapes_are_checked() -> None:
    assert solve_binary_program([0, -1], [[1, 1]], [5]).x == (0, 0)
    with pytest.raises(ValueError, match="coefficients"):
        solve_binary_program([1, 2], [[1]], [1])
    with pytest.raises(ValueError, match="right-hand sides"):
        solve_binary_program([1], [[1]], [])
