"""Exact Pareto frontiers over utility matrices.

``pareto_mask(U)`` takes an ``(n_outcomes, n_parties)`` array and marks every
outcome no other outcome dominates (at least as good for all, better for one).
Ties and duplicates are handled exactly: identical utility vectors never dominate
each other, so every outcome sharing a frontier vector is on the frontier.
Two parties take one sort (O(n log n)); more parties de-duplicate, sort
lexicographically and sweep in blocks, where any dominator precedes its victim.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def _pareto_2d(u: np.ndarray) -> np.ndarray:
    u0, u1 = u[:, 0], u[:, 1]
    order = np.lexsort((-u1, -u0))
    s0, s1 = u0[order], u1[order]
    start = np.empty(len(order), dtype=bool)
    start[0] = True
    np.not_equal(s0[1:], s0[:-1], out=start[1:])
    group = np.cumsum(start) - 1
    gmax = s1[start]  # best second utility inside each group of equal first utility
    before = np.empty_like(gmax)
    before[0] = -np.inf
    if len(gmax) > 1:
        before[1:] = np.maximum.accumulate(gmax)[:-1]
    keep = (s1 == gmax[group]) & (gmax[group] > before[group])
    mask = np.zeros(len(u), dtype=bool)
    mask[order[keep]] = True
    return mask


def _pareto_nd(u: np.ndarray, block: int = 512) -> np.ndarray:
    uniq, inverse = np.unique(u, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    order = np.lexsort(tuple(-uniq[:, k] for k in range(uniq.shape[1] - 1, -1, -1)))
    pts = uniq[order]
    frontier = np.empty((0, pts.shape[1]))
    keep_sorted = np.zeros(len(pts), dtype=bool)
    for lo in range(0, len(pts), block):
        chunk = pts[lo:lo + block]
        alive = np.ones(len(chunk), dtype=bool)
        if len(frontier):
            # a frontier point dominates if it is >= everywhere (it differs: de-duplicated)
            dom = np.asarray((frontier[None, :, :] >= chunk[:, None, :]).all(axis=2)).any(axis=1)
            alive &= ~dom
        cand = np.flatnonzero(alive)
        c = chunk[cand]
        ge = np.asarray((c[:, None, :] >= c[None, :, :]).all(axis=2))  # ge[j, i]: j >= i
        np.fill_diagonal(ge, False)
        inner = ge.any(axis=0)
        survivors = cand[~inner]
        keep_sorted[lo + survivors] = True
        frontier = np.concatenate([frontier, chunk[survivors]])
    uniq_keep = np.zeros(len(uniq), dtype=bool)
    uniq_keep[order[keep_sorted]] = True
    return uniq_keep[inverse]


def pareto_mask(utilities: np.ndarray) -> np.ndarray:
    """Boolean mask of Pareto-optimal rows of an ``(n, k)`` utility array, ``k >= 1``."""
    u = np.asarray(utilities, dtype=np.float64)
    if u.ndim != 2:
        raise ValueError(f"expected an (outcomes, parties) array, got shape {u.shape}")
    if len(u) == 0:
        return np.zeros(0, dtype=bool)
    if u.shape[1] == 1:
        return u[:, 0] == u[:, 0].max()
    if u.shape[1] == 2:
        return _pareto_2d(u)
    return _pareto_nd(u)


def pareto_indices(utilities: np.ndarray) -> np.ndarray:
    """Indices of the Pareto-optimal rows, ascending."""
    return np.flatnonzero(pareto_mask(utilities))


def pareto_mask_bruteforce(utilities: np.ndarray) -> np.ndarray:
    """O(n^2) reference implementation, for tests."""
    u = np.asarray(utilities, dtype=np.float64)
    ge = (u[:, None, :] >= u[None, :, :]).all(axis=2)
    gt = (u[:, None, :] > u[None, :, :]).any(axis=2)
    dominated = np.asarray((ge & gt).any(axis=0))
    return ~dominated


def distance_to_frontier(point: npt.ArrayLike, frontier: npt.ArrayLike) -> float:
    """Euclidean distance from a utility vector to the nearest frontier point (seed 000's L2)."""
    f = np.asarray(frontier, dtype=np.float64)
    p = np.asarray(point, dtype=np.float64)
    if f.ndim != 2 or f.shape[1] != p.shape[-1] or len(f) == 0:
        raise ValueError("frontier must be a non-empty (points, parties) array matching the point")
    return float(np.sqrt(((f - p) ** 2).sum(axis=1)).min())
