"""Vertex enumeration of best-response polytopes: float walk = exact walk = support method."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.solvers.nash_mixed import MemoryBudgetError, is_mixed_nash, mixed_nash
from accord.solvers.pivoting import exact_vertices
from accord.solvers.polytope import polytope_vertices


def _labels(vertices: list) -> list[tuple[int, int]]:
    return sorted((v.zeros, v.replies) for v in vertices)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(4, 8), st.integers(4, 8),
       st.sampled_from([2, 4, 50, 2 * 10**6]))
def test_float_walk_finds_the_exact_walks_vertices(seed: int, r: int, c: int, span: int
                                                   ) -> None:
    # small spans give degenerate polytopes (ties), large ones nondegenerate ones
    p = np.random.default_rng(seed).integers(0, span, (r, c)).tolist()
    assert _labels(polytope_vertices(p)) == _labels(exact_vertices(p))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 5), st.integers(1, 5),
       st.sampled_from([3, 5, 2 * 10**6]))
def test_vertex_enumeration_equals_support_enumeration(seed: int, m: int, n: int, span: int
                                                       ) -> None:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, span, (m, n))
    b = rng.integers(0, span, (m, n))
    assert mixed_nash(a, b) == mixed_nash(a, b, method="support")


def test_larger_games_agree_with_support_enumeration() -> None:
    rng = np.random.default_rng(11)
    for lo, hi in ((-10**6, 10**6), (0, 3)):
        a = rng.integers(lo, hi, (7, 8))
        b = rng.integers(lo, hi, (7, 8))
        assert mixed_nash(a, b) == mixed_nash(a, b, method="support")


def test_13x13_game_all_equilibria_in_bounded_memory() -> None:
    rng = np.random.default_rng(15)
    a = rng.integers(-10**6, 10**6, (13, 13))
    b = rng.integers(-10**6, 10**6, (13, 13))
    tracemalloc.start()
    try:
        eqs = mixed_nash(a, b, max_memory=512 * 2**20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 256 * 2**20  # support enumeration's pairing matrices needed ~3 GiB
    assert len(eqs) % 2 == 1  # a nondegenerate game has an odd number of equilibria
    assert all(is_mixed_nash(a, b, x, y) for x, y in eqs)


def test_over_budget_request_raises_a_clear_error() -> None:
    rng = np.random.default_rng(3)
    a = rng.integers(-10**6, 10**6, (9, 9))
    b = rng.integers(-10**6, 10**6, (9, 9))
    with pytest.raises(MemoryBudgetError, match=r"9x9 game .* memory budget of 0\.06 GiB"):
        mixed_nash(a, b, max_memory=65 * 2**20)
    assert isinstance(MemoryBudgetError("x"), MemoryError)
    with pytest.raises(MemoryBudgetError, match="candidate strategies"):
        mixed_nash(a, b, max_memory=20_000, method="support")


def test_memory_budget_error_is_public():
    """Callers catch the budget error from the package face, the same class the solvers
    raise."""
    import accord.solvers as solvers
    from accord.solvers.pivoting import MemoryBudgetError

    assert solvers.MemoryBudgetError is MemoryBudgetError
    assert "MemoryBudgetError" in solvers.__all__
    assert issubclass(solvers.MemoryBudgetError, MemoryError)
