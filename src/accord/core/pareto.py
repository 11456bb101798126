"""Exact Pareto frontiers over utility matrices.

``pareto_mask(U)`` takes an ``(n_outcomes, n_parties)`` array and marks every
outcome no other outcome dominates (at least as good for all, better for one).
Ties and duplicates are handled exactly: identical utility vectors never dominate
each other, so every outcome sharing a frontier vector is on the frontier.
Two parties take one sort (O(n log n)); more parties take a direct block method below
16,384 outcomes (3 parties; 32,768 for 4, 131,072 for 5 or more: no fixed cost) and above
it thin the points with the frontiers of small
samples and then run an exact divide-and-conquer skyline (:mod:`accord.core.skyline`),
which keeps every copy of a frontier vector.

Ties are judged on utilities rounded to 12 significant decimals
(:func:`canonical_utilities`). Rounding a million rows costs as much as the frontier
itself, so large inputs are thinned on the raw utilities first, with a margin of two
rounding steps (rounding is monotone: an outcome beaten by more than that stays beaten once
both are rounded), and only the survivors are rounded.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from accord.core.skyline import skyline_indices


def _pareto_2d_exact(u0: np.ndarray, u1: np.ndarray) -> np.ndarray:
    # no stable sort needed: each tie group of u0 is judged as a whole, in any inner order
    order = np.argsort(-u0)
    s0, s1 = u0[order], u1[order]
    start = np.empty(len(order), dtype=bool)
    start[0] = True
    np.not_equal(s0[1:], s0[:-1], out=start[1:])
    starts = np.flatnonzero(start)
    group = np.cumsum(start) - 1
    gmax = np.maximum.reduceat(s1, starts)  # best second utility per tie group of the first
    before = np.empty_like(gmax)
    before[0] = -np.inf
    if len(gmax) > 1:
        before[1:] = np.maximum.accumulate(gmax)[:-1]
    keep = (s1 == gmax[group]) & (gmax[group] > before[group])
    mask = np.zeros(len(u0), dtype=bool)
    mask[order[keep]] = True
    return mask


def _beaten_by(u0: np.ndarray, u1: np.ndarray, a0: np.ndarray, a1: np.ndarray) -> np.ndarray:
    """Which points some anchor beats in both utilities (strictly: a sufficient test for
    domination, exact for everything it removes; ties are left to the exact pass)."""
    order = np.argsort(a0)
    asc = a0[order]
    # best[j]: the highest a1 among anchors ranked j.. (those with a0 above u0 when j is
    # the insertion point of u0)
    best = np.empty(len(order) + 1)
    best[-1] = -np.inf
    best[:-1] = np.maximum.accumulate(a1[order][::-1])[::-1]
    return best[np.searchsorted(asc, u0, side="right")] > u1


def _pareto_2d(u: np.ndarray, decimals: int | None) -> np.ndarray:
    """Two parties; ``decimals``: round to that many (``None``: ``u`` is final)."""
    n = len(u)
    if n < _PREFILTER_2D:
        if decimals is not None:
            u = _round(u, decimals)
        return _pareto_2d_exact(np.ascontiguousarray(u[:, 0]), np.ascontiguousarray(u[:, 1]))
    u0, u1 = np.ascontiguousarray(u[:, 0]), np.ascontiguousarray(u[:, 1])
    # The frontier of a strided sample consists of real outcomes; every point one of them
    # beats (by more than the rounding can close) is off the frontier, which leaves few
    # candidates to round and sort.
    step = max(1, n // 2048)
    sample = np.arange(0, n, step)
    s0, s1 = u0[sample], u1[sample]
    anchors = sample[_pareto_2d_exact(s0, s1)]
    m = _margin(decimals)
    b0, b1 = u0[anchors] - m, u1[anchors] - m
    # First the one anchor whose box of beaten points holds the most of the sample: two
    # comparisons remove most outcomes before the binary search over all anchors.
    best = int(np.argmax((b0 - s0.min()) * (b1 - s1.min())))
    if math.isfinite(b0[best]) and math.isfinite(b1[best]):
        cand = u0 >= b0[best]
        cand |= u1 >= b1[best]
        alive = np.flatnonzero(cand)
    else:  # NaN utilities: no box
        alive = np.arange(n)
    alive = alive[~_beaten_by(u0[alive], u1[alive], b0, b1)]
    a0, a1 = u0[alive], u1[alive]
    if decimals is not None:
        a0, a1 = _round(a0, decimals), _round(a1, decimals)
    mask = np.zeros(n, dtype=bool)
    mask[alive[_pareto_2d_exact(a0, a1)]] = True
    return mask


_PREFILTER_2D = 4096  # outcomes from which two parties take the sample pre-filter (measured)


def _dominated_by_nd(u: np.ndarray, anchors: np.ndarray, margin: float = 0.0) -> np.ndarray:
    """Which rows of ``u`` some anchor dominates (one vectorised pass per anchor): at least
    as good everywhere, and better by more than ``margin`` somewhere (with ``margin`` the
    rounding step, that survives rounding both: rounding is monotone)."""
    cols = [np.ascontiguousarray(u[:, k]) for k in range(u.shape[1])]
    alive = np.arange(len(u))
    for a in anchors[np.argsort(-anchors.sum(axis=1))]:  # strong anchors first
        ge = np.ones(len(alive), dtype=bool)
        gt = np.zeros(len(alive), dtype=bool)
        for k, col in enumerate(cols):
            c = col[alive]
            ge &= a[k] >= c
            gt |= a[k] - margin > c
        alive = alive[~(ge & gt)]
    out = np.ones(len(u), dtype=bool)
    out[alive] = False
    return out


_SAMPLE = 512  # points per pre-filter sample
# below this many outcomes the direct block method is faster than pre-filter and skyline
# (measured on random linear additive utilities: its cost grows with outcomes x frontier
# size, and more parties have larger frontiers, which the skyline handles worse; at four
# parties 3-11x faster at 32,768-65,536 outcomes, even to 1.6x at 10^5, slower at 10^6)
_DIRECT_ND = {3: 32_768, 4: 131_072}
_DIRECT_MANY = 131_072  # the same, five parties or more
# up to this many outcomes the skyline alone is faster still: the direct method's blocks
# and tie check are a dozen numpy calls each, which a frontier holding a large share of a
# few hundred points makes many (at 100 outcomes, 5 parties: 0.20 ms against 0.43 ms)
_SKYLINE_ND = {3: 112, 4: 128}
_SKYLINE_MANY = 320  # the same, five parties or more
_BLOCK = 16  # candidates compared with every remaining point at once by the direct method


def _pareto_direct(u: np.ndarray) -> np.ndarray:
    """Three or more parties, few outcomes: by the sum of utilities, descending, blocks of
    the best remaining points remove every point they dominate. Each step keeps the
    block's undominated points, so the loop runs about (frontier size / block) times with
    no fixed cost of sampling or recursion.

    A dominator's float sum is at least its victim's (float addition is monotone), so it
    comes first unless the two sums are equal: the survivors that share a sum with another
    survivor are compared pairwise at the end (a dominator on the frontier survives).
    """
    n, k = u.shape
    total = u.sum(axis=1)
    order = np.argsort(-total)
    pts, ids = u[order], order
    start = 0
    while start < len(ids):
        block, rest = pts[start:start + _BLOCK], pts[start:]
        ge = block[:, 0, None] >= rest[:, 0]
        gt = block[:, 0, None] > rest[:, 0]
        for j in range(1, k):
            col = block[:, j, None]
            ge &= col >= rest[:, j]
            gt |= col > rest[:, j]
        ge &= gt
        beaten = np.asarray(ge.any(axis=0))
        if beaten.any():
            keep = np.ones(len(ids), dtype=bool)
            keep[start:] = ~beaten
            pts, ids = pts[keep], ids[keep]
        # the block's unbeaten points are final, up to equal sums: only points of a larger
        # sum, all of them already compared, or of an equal one could dominate them
        start += int(np.count_nonzero(~beaten[:len(block)]))
    mask = np.zeros(n, dtype=bool)
    mask[ids] = True
    sums = total[ids]  # descending
    tied = np.zeros(len(ids), dtype=bool)
    same = sums[1:] == sums[:-1]
    tied[1:] |= same
    tied[:-1] |= same
    if tied.any():
        group = ids[tied]
        mask[group] = False
        mask[skyline_indices(u, group)] = True
    return mask


def _pareto_nd(u: np.ndarray, decimals: int | None) -> np.ndarray:
    """Three or more parties: the skyline for a few hundred outcomes at most, the direct
    method for more, up to tens of thousands, else sample pre-filter
    rounds on the raw utilities (anchors must win by more than the rounding step), the
    survivors rounded, then the exact skyline."""
    if len(u) <= _SKYLINE_ND.get(u.shape[1], _SKYLINE_MANY):
        mask = np.zeros(len(u), dtype=bool)
        mask[skyline_indices(u if decimals is None else _round(u, decimals))] = True
        return mask
    if len(u) < _DIRECT_ND.get(u.shape[1], _DIRECT_MANY):
        return _pareto_direct(u if decimals is None else _round(u, decimals))
    m = _margin(decimals)
    idx = np.arange(len(u))
    # The frontier of a strided sample consists of real outcomes; every point they
    # dominate is off the frontier. Repeat while that removes at least half the points.
    while len(idx) > 2 * _SAMPLE:
        anchors = skyline_indices(u, idx[::len(idx) // _SAMPLE])
        alive = idx[~_dominated_by_nd(u[idx], u[anchors], m)]
        done = len(alive) * 2 > len(idx)
        idx = alive
        if done:
            break
    rest = u[idx] if decimals is None else _round(u[idx], decimals)
    mask = np.zeros(len(u), dtype=bool)
    mask[idx[skyline_indices(rest)]] = True
    return mask


def _decimals(u: np.ndarray) -> int:
    """Decimals that keep 12 significant digits of the largest finite magnitude in ``u``."""
    hi, lo = float(u.max()), float(u.min())
    if math.isfinite(hi) and math.isfinite(lo):
        scale = max(abs(hi), abs(lo))
    else:  # NaN or infinite entries: the scale of the finite ones
        finite = np.isfinite(u)
        scale = float(np.max(np.abs(u[finite]))) if finite.any() else 0.0
    return 12 - int(np.ceil(np.log10(scale))) if scale > 0 else 12


def _round(u: np.ndarray, decimals: int) -> np.ndarray:
    """``np.round(u, decimals)`` (a new array), with one buffer where powers of ten are
    exact."""
    if not 0 <= decimals <= 22:  # beyond exact powers of ten: numpy's own rounding
        return np.round(u, decimals)
    # what np.round does (multiply, round half to even, divide) without its temporaries
    factor = 10.0 ** decimals
    out = np.multiply(u, factor)
    np.rint(out, out=out)
    np.divide(out, factor, out=out)
    return out


def _margin(decimals: int | None) -> float:
    """How much better a raw utility must be than another for the two to stay ordered
    strictly once both are rounded to ``decimals`` (rounding moves each by at most half a
    step, and is monotone); two steps, for the float error of the rounding itself."""
    return 0.0 if decimals is None else 2.0 * 10.0 ** -decimals


def canonical_utilities(utilities: npt.ArrayLike) -> np.ndarray:
    """Utilities rounded to 12 significant decimals of their scale.

    Sums of decimal scores carry float noise (0.1 + 0.2 != 0.3); without this, a package
    worth 0.41250000000000003 would wrongly escape domination by one worth 0.4125.
    The result equals ``np.round(u, decimals)``, computed with one buffer.
    """
    u = np.asarray(utilities, dtype=np.float64)
    if u.size == 0:
        return u
    return _round(u, _decimals(u))


def pareto_mask(utilities: npt.ArrayLike, *, rounded: bool = False) -> np.ndarray:
    """Boolean mask of Pareto-optimal rows of an ``(n, k)`` utility array, ``k >= 1``.

    Utilities equal up to float noise (12 significant decimals) count as ties: the mask is
    that of :func:`canonical_utilities` of the input. Large inputs are thinned on the raw
    utilities first and only the survivors are rounded. ``rounded=True`` says the input
    already is canonical (rounded once per scenario): no rounding at all.
    """
    u = np.asarray(utilities, dtype=np.float64)
    if u.ndim != 2:
        raise ValueError(f"expected an (outcomes, parties) array, got shape {u.shape}")
    if len(u) == 0:
        return np.zeros(0, dtype=bool)
    if u.shape[1] == 0:
        raise ValueError("expected at least one party (column), got shape "
                         f"{u.shape}")
    decimals = None if rounded else _decimals(u)
    if u.shape[1] == 1:
        col = u[:, 0] if decimals is None else _round(u[:, 0], decimals)
        return col == col.max()
    if u.shape[1] == 2:
        return _pareto_2d(u, decimals)
    return _pareto_nd(u, decimals)


def pareto_indices(utilities: npt.ArrayLike, *, rounded: bool = False) -> np.ndarray:
    """Indices of the Pareto-optimal rows, ascending (``rounded``: as in
    :func:`pareto_mask`)."""
    return np.flatnonzero(pareto_mask(utilities, rounded=rounded))


def pareto_mask_bruteforce(utilities: np.ndarray) -> np.ndarray:
    """O(n^2) reference implementation, for tests."""
    u = canonical_utilities(utilities)
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
