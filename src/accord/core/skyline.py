"""Exact n-dimensional skylines (Pareto frontiers) by divide and conquer.

``skyline(u)`` returns the rows of ``u`` that no other row strictly dominates (at least as
good everywhere, better somewhere). Identical rows never dominate each other, so every
copy of a frontier vector is kept and no de-duplication is needed.

Method (Kung-Luccio-Preparata style, with bounding-box pruning): split the points at a
threshold ``t`` of the coordinate with the largest spread into ``H`` (``>= t``) and ``L``
(``< t``); no point of ``L`` can dominate one of ``H``. The skyline is ``sky(H)`` plus
the points of ``sky(L)`` that no point of ``sky(H)`` dominates. That filter step splits
both sets again: the upper part of the candidates can only be dominated by the upper part
of the dominators, and at every step candidates above every dominator's maximum in some
coordinate, and dominators below every candidate's minimum, drop out. Small blocks are
compared pairwise in numpy.
"""

from __future__ import annotations

import numpy as np

_LEAF = 192  # skyline blocks compared pairwise
_PAIRS = 1 << 16  # candidate x dominator pairs compared at once in a filter leaf
_ROWS = 1 << 20  # elements per pairwise comparison chunk


def _strictly_dominated(b: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Per row of ``b``: does some row of ``a`` strictly dominate it (pairwise, chunked).

    Compared one coordinate at a time on (rows of ``b``) x (rows of ``a``) matrices: a
    reduction over a last axis of 2-5 parties costs ten times as much in numpy.
    """
    out = np.zeros(len(b), dtype=bool)
    if not len(b) or not len(a):
        return out
    k = b.shape[1]
    cols = [np.ascontiguousarray(a[:, j]) for j in range(k)]
    step = max(1, _ROWS // len(a))
    for lo in range(0, len(b), step):
        blk = b[lo:lo + step]
        first = blk[:, 0, None]
        ge = cols[0] >= first
        gt = cols[0] > first
        for j in range(1, k):
            col = blk[:, j, None]
            ge &= cols[j] >= col
            gt |= cols[j] > col
        ge &= gt
        out[lo:lo + step] = ge.any(axis=1)
    return out


def _split(pts: np.ndarray) -> tuple[int, float] | None:
    """Coordinate and threshold leaving points on both sides (``None``: all identical)."""
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    d = int(np.argmax(hi - lo))
    if hi[d] == lo[d]:
        return None
    col = pts[:, d]
    t = float(np.median(col))
    if t <= lo[d]:  # the median is the minimum: split just above it
        t = float(col[col > lo[d]].min())
    return d, t


def filter_dominated(u: np.ndarray, cand: np.ndarray, dom: np.ndarray) -> np.ndarray:
    """The indices in ``cand`` whose rows no row of ``dom`` strictly dominates."""
    if not len(cand) or not len(dom):
        return cand
    b, a = u[cand], u[dom]
    reach = (b <= a.max(axis=0)).all(axis=1)  # above every dominator somewhere: safe
    safe, cand, b = cand[~reach], cand[reach], b[reach]
    if len(cand):
        useful = (a >= b.min(axis=0)).all(axis=1)  # below every candidate somewhere: useless
        dom, a = dom[useful], a[useful]
    if not len(cand) or not len(dom):
        return np.concatenate([safe, cand])
    split = None if len(cand) * len(dom) <= _PAIRS else _split(np.concatenate([a, b]))
    if split is None:
        return np.concatenate([safe, cand[~_strictly_dominated(b, a)]])
    d, t = split
    b_hi, a_hi = b[:, d] >= t, a[:, d] >= t
    if not b_hi.any() and a_hi.all():  # coordinate d no longer separates: compare directly
        return np.concatenate([safe, cand[~_strictly_dominated(b, a)]])
    upper = filter_dominated(u, cand[b_hi], dom[a_hi])
    lower = filter_dominated(u, cand[~b_hi], dom[a_hi])
    lower = filter_dominated(u, lower, dom[~a_hi])
    return np.concatenate([safe, upper, lower])


def skyline_indices(u: np.ndarray, idx: np.ndarray | None = None) -> np.ndarray:
    """Indices (unordered) of the rows of ``u[idx]`` no other of them strictly dominates."""
    if idx is None:
        idx = np.arange(len(u))
    if len(idx) <= _LEAF:
        pts = u[idx]
        return idx[~_strictly_dominated(pts, pts)]
    pts = u[idx]
    split = _split(pts)
    if split is None:
        return idx  # all rows identical: none dominates another
    d, t = split
    hi = pts[:, d] >= t
    top = skyline_indices(u, idx[hi])
    rest = skyline_indices(u, idx[~hi])
    return np.concatenate([top, filter_dominated(u, rest, top)])


def skyline_mask(u: np.ndarray) -> np.ndarray:
    """Boolean mask of the rows of ``u`` on the skyline."""
    mask = np.zeros(len(u), dtype=bool)
    mask[skyline_indices(u)] = True
    return mask
