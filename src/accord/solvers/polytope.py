"""Vertices of a best-response polytope: a float walk, exact wherever floats are unsure.

The walk of :mod:`accord.solvers.pivoting` (lexicographic pivoting over the bases of
``{x >= 0 : P'^T x <= 1}``) runs here breadth-first in numpy, one level of bases at a
time: each basis matrix is inverted in a batch, its basic values and the ratio test of
every entering column are computed in floats together with error bounds from the
basis's condition number. A basis whose figures are certain - every basic value
clearly positive (the vertex is nondegenerate, so the lexicographic rule is the plain
minimum-ratio rule) and every minimum ratio clearly unique - is handled in floats: its
labels are exactly its nonbasic columns and its strategy is solved exactly only if it
takes part in an equilibrium. Any other basis is re-done with exact integer pivoting.
When many bases are unsure (a degenerate game) the whole polytope is walked exactly.
Either way the same vertices come out as from :func:`accord.solvers.pivoting.exact_vertices`.
"""

from __future__ import annotations

import numpy as np

from accord.solvers.budget import TimeBudget
from accord.solvers.pivoting import (
    MemoryBudgetError,
    Vertex,
    basis_tableau,
    exact_vertices_within,
    lex_leaving,
    normalised,
    shifted,
    vertex_of,
)

_CHUNK = 2048  # bases inverted per batch
_SAFETY = 1e4  # margin on the condition-number error estimate
_EPS = np.finfo(np.float64).eps


def _certain(inv: np.ndarray, mat: np.ndarray, xb: np.ndarray, d: np.ndarray, c: int
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per basis: certain or not; per (basis, column): leaving row and certainty."""
    cond = np.abs(mat).sum(axis=1).max(axis=1) * np.abs(inv).sum(axis=1).max(axis=1)
    err = _SAFETY * c * _EPS * cond  # relative error bound of basic values and columns
    xmax = np.abs(xb).max(axis=1)
    dmax = np.abs(d).max(axis=(1, 2))
    tol_x = (err * xmax)[:, None]
    tol_d = (err * dmax)[:, None, None]
    basis_ok = np.isfinite(cond) & (xb > tol_x).all(axis=1)
    pos = d > tol_d
    safe_d = np.where(pos, d, 1.0)
    ratio = np.where(pos, xb[:, :, None] / safe_d, np.inf)
    # relative error of each ratio from the two error bounds
    rel = np.where(pos, tol_x[:, :, None] / np.maximum(xb[:, :, None], 1e-300)
                   + tol_d / safe_d, 0.0)
    leave = ratio.argmin(axis=1)
    best = np.take_along_axis(ratio, leave[:, None, :], axis=1)[:, 0, :]
    best_rel = np.take_along_axis(rel, leave[:, None, :], axis=1)[:, 0, :]
    upper = best * (1 + best_rel)
    lower = np.where(pos, ratio * (1 - rel), np.inf)
    np.put_along_axis(lower, leave[:, None, :], np.inf, axis=1)
    # a row whose sign is unsure could still give a ratio no smaller than x_i / tol_d
    unsure = (~pos) & (np.abs(d) <= tol_d)
    unsure_low = np.where(unsure, xb[:, :, None] / np.maximum(tol_d, 1e-300), np.inf)
    col_ok = (np.isfinite(best) & (lower.min(axis=1) > upper)
              & (unsure_low.min(axis=1) > upper))
    return basis_ok, leave, col_ok


def _bits(masks: list[int], width: int) -> np.ndarray:
    arr = np.array(masks, dtype=np.int64)
    return ((arr[:, None] >> np.arange(width, dtype=np.int64)) & 1).astype(bool)


class _Walk:
    """State of one breadth-first walk."""

    def __init__(self, p: list[list[int]], max_bases: int | None,
                 budget: TimeBudget | None = None) -> None:
        self.budget = budget
        self.stopped = False  # the budget ran out: the vertices are a partial list
        self.r, self.c = len(p), len(p[0])
        self.q = shifted(p)
        qf = np.array(self.q, dtype=np.float64)
        qf /= qf.max()
        self.mat = np.hstack([qf.T, np.eye(self.c)])  # c x (r + c): [Q^T | I]
        self.cap = max_bases
        self.seen: set[int] = set()
        self.vertices: list[Vertex] = []
        self.exact_keys: set[tuple[int, ...]] = set()
        self.unsure = 0

    def add(self, mask: int, nxt: list[int]) -> None:
        if mask in self.seen:
            return
        self.seen.add(mask)
        if self.cap is not None and len(self.seen) > self.cap:
            raise MemoryBudgetError(
                f"more than {self.cap:,} bases of the {self.r}x{self.c} best-response polytope")
        nxt.append(mask)

    def exact_basis(self, mask: int, nxt: list[int]) -> None:
        """Process one basis with exact integer pivoting."""
        r, c = self.r, self.c
        cols = [k for k in range(r + c) if mask >> k & 1]
        tab, rows, _ = basis_tableau(self.q, cols)
        vert = vertex_of(tab, rows, r, c)
        if vert is not None:
            key = normalised(vert)
            if key not in self.exact_keys:
                self.exact_keys.add(key)
                self.vertices.append(vert)
        lex_cols = range(r, r + c)
        for col in range(r + c):
            if mask >> col & 1:
                continue
            row = lex_leaving(tab, col, lex_cols)
            if row is not None:
                self.add(mask ^ (1 << rows[row]) ^ (1 << col), nxt)

    def level(self, masks: list[int]) -> list[int]:
        """Process one breadth-first level; returns the next one."""
        r, c = self.r, self.c
        nxt: list[int] = []
        for lo in range(0, len(masks), _CHUNK):
            if self.budget is not None and self.budget.exhausted():
                self.stopped = True
                return []
            chunk = masks[lo:lo + _CHUNK]
            bits = _bits(chunk, r + c)
            cols = np.nonzero(bits)[1].reshape(len(chunk), c)
            mat = np.transpose(self.mat[:, cols], (1, 0, 2))  # (F, c, c)
            try:
                inv = np.linalg.inv(mat)
            except np.linalg.LinAlgError:
                for m in chunk:
                    self.unsure += 1
                    self.exact_basis(m, nxt)
                continue
            xb = inv.sum(axis=2)  # B^{-1} 1
            d = inv @ self.mat  # (F, c, r + c)
            basis_ok, leave, col_ok = _certain(inv, mat, xb, d, c)
            ok = basis_ok & (col_ok | bits).all(axis=1)
            leaving = np.take_along_axis(cols, leave, axis=1)  # basic column leaving
            for f in np.flatnonzero(~ok):
                self.unsure += 1
                self.exact_basis(chunk[f], nxt)
            good = np.flatnonzero(ok)
            if not len(good):
                continue
            self._record(chunk, good)
            masks_g = np.array([chunk[f] for f in good], dtype=np.int64)
            enter = ~bits[good]
            one = np.int64(1)
            new = (masks_g[:, None] ^ (one << leaving[good].astype(np.int64))
                   ^ (one << np.arange(r + c, dtype=np.int64)))
            for m in np.unique(new[enter]).tolist():
                self.add(int(m), nxt)
        return nxt

    def _record(self, chunk: list[int], good: np.ndarray) -> None:
        """Vertices of certain (nondegenerate) bases: labels are the nonbasic columns."""
        r = self.r
        full_r, full_c = (1 << r) - 1, (1 << self.c) - 1
        for f in good.tolist():
            mask = chunk[f]
            zeros = ~mask & full_r
            if zeros == full_r:
                continue  # the origin
            self.vertices.append(Vertex((), 0, zeros, ~(mask >> r) & full_c))


def polytope_vertices(p: list[list[int]], max_bases: int | None = None) -> list[Vertex]:
    """Every nonzero vertex of the best-response polytope of ``p`` (see module docstring).

    ``p`` is ``r x c``: own actions x opponent actions, the opponent's integer payoffs.
    Raises :class:`MemoryBudgetError` once more than ``max_bases`` bases would be held.
    """
    return polytope_vertices_within(p, max_bases)[0]


def polytope_vertices_within(p: list[list[int]], max_bases: int | None = None,
                             budget: TimeBudget | None = None) -> tuple[list[Vertex], bool]:
    """:func:`polytope_vertices` within a time budget, checked between batches of bases:
    the vertices found and whether the walk finished (``False``: a partial list)."""
    r, c = len(p), len(p[0])
    if r + c > 62 or r * c <= 16:  # bitmasks in int64; tiny games: exact is as fast
        return exact_vertices_within(p, max_bases, budget)
    walk = _Walk(p, max_bases, budget)
    start = sum(1 << (r + t) for t in range(c))
    walk.seen.add(start)
    level = [start]
    while level:
        level = walk.level(level)
        if walk.unsure > 64 and walk.unsure * 10 > len(walk.seen):
            # degenerate: floats are no help (the exact walk gets what time is left)
            return exact_vertices_within(p, max_bases, budget)
    return walk.vertices, not walk.stopped
