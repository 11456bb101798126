"""Envy-freeness for allocations of item counts (seed 003, section 5)."""

from __future__ import annotations

import numpy as np


def envy_matrix(shares: np.ndarray, unit_values: np.ndarray) -> np.ndarray:
    """``E[i, j]`` = how much party i prefers j's share to its own, under i's values.

    ``shares`` and ``unit_values`` are ``(parties, items)`` arrays.
    """
    s = np.asarray(shares, dtype=np.float64)
    v = np.asarray(unit_values, dtype=np.float64)
    worth = v @ s.T  # worth[i, j] = value of j's share to i
    return worth - np.diag(worth)[:, None]


def is_envy_free(shares: np.ndarray, unit_values: np.ndarray, tol: float = 1e-9) -> bool:
    """True when every party values its own share at least as much as any other's."""
    return bool((envy_matrix(shares, unit_values) <= tol).all())


def envy_free_mask_two_party(
    first_shares: np.ndarray, counts: np.ndarray, values_a: np.ndarray, values_b: np.ndarray
) -> np.ndarray:
    """Vectorised envy-freeness of many two-party allocations.

    ``first_shares`` is ``(n, items)``: units the first party receives; the second gets
    ``counts - first_shares``.
    """
    a = np.asarray(first_shares, dtype=np.float64)
    b = np.asarray(counts, dtype=np.float64)[None, :] - a
    ok_a = a @ values_a >= b @ values_a
    ok_b = b @ values_b >= a @ values_b
    return ok_a & ok_b
