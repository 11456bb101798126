"""Mixed Nash equilibria by support enumeration: the reference method, exact results.

:func:`accord.solvers.nash_mixed.mixed_nash` walks the vertices of the best-response
polytopes instead (far fewer systems for larger games); this module is its independent
cross-check (``method="support"``) and the first implementation.

Method. A strategy ``x`` of player 1 that takes part in an *extreme* equilibrium is pinned
down by its support ``I`` and ``|I|`` of player 2's best replies ``T``: it is the unique
solution of ``sum_i B[i, t] x_i = u`` (``t`` in ``T``), ``sum_i x_i = 1``, ``x = 0`` off
``I``. We solve that square system for every pair ``(I, T)`` of equal size, keep the
solutions with ``x_I > 0`` whose ``T`` really are best replies, do the same for player 2,
and pair ``x`` with ``y`` when each one's support lies inside the other's best replies.
For a nondegenerate game this is classic support enumeration (every equilibrium has
supports of equal size) and returns every equilibrium. For a degenerate game it returns
every *extreme* equilibrium: each vertex is the unique solution of a nonsingular
``(I, T)`` system, so none is missed.

Exactness. Payoffs are integers per player. The small systems are solved in batches with
numpy (float) only to discard hopeless candidates with a generous tolerance; the survivors
are re-solved with integer (Bareiss) elimination and Fractions, and each equilibrium
returned is verified exactly. Systems whose float (1-norm) condition number exceeds
``1e8`` are solved exactly as well; systems that are numerically singular (condition above
``1e11``) are checked exactly when there are at most ``exact_budget`` of them and otherwise
treated as singular.

Cost: ``sum_k C(m, k) C(n, k) = C(m + n, m)`` small solves per player (184,756 for
10 x 10, 155 million for 15 x 15). Memory: a batch of at most ``_BATCH`` systems plus one
small record per candidate; candidates are paired in blocks, never in a dense
``|xs| x |ys|`` matrix.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

import numpy as np

from accord.solvers.polytope import MemoryBudgetError

MixedStrategy = tuple[Fraction, ...]
"""Probabilities over one player's actions, exact."""

MixedEquilibrium = tuple[MixedStrategy, MixedStrategy]
"""A pair of mixed strategies (player 1, player 2)."""

_PAIR_CELLS = 1 << 22  # x-y pairs tested at once (two int32 matrices: 32 MiB)
_WELL_CONDITIONED = 1e8
_SINGULAR = 1e11
_BATCH = 60_000


@dataclass
class _Candidate:
    """A strategy pinned by ``(support, tight)``; ``exact`` is filled lazily."""

    support: tuple[int, ...]
    tight: tuple[int, ...]
    approx: np.ndarray
    replies: np.ndarray  # bool over opponent actions: (approximately) best replies
    exact: MixedStrategy | None = None


def _bareiss_solve(matrix: list[list[int]], rhs: list[int]) -> list[Fraction] | None:
    """Exact solution of an integer square system, ``None`` if it is singular."""
    n = len(matrix)
    a = [[*row, b] for row, b in zip(matrix, rhs, strict=True)]
    prev = 1
    for k in range(n):
        piv = next((r for r in range(k, n) if a[r][k] != 0), None)
        if piv is None:
            return None
        if piv != k:
            a[k], a[piv] = a[piv], a[k]
        akk, row_k = a[k][k], a[k]
        for i in range(k + 1, n):
            row_i = a[i]
            aik = row_i[k]
            for j in range(k + 1, n + 1):
                row_i[j] = (row_i[j] * akk - aik * row_k[j]) // prev
            row_i[k] = 0
        prev = akk
    x = [Fraction(0)] * n
    for i in range(n - 1, -1, -1):
        s = Fraction(a[i][n]) - sum((a[i][j] * x[j] for j in range(i + 1, n)), Fraction(0))
        x[i] = s / a[i][i]
    return x


def _system(p: list[list[int]], support: tuple[int, ...], tight: tuple[int, ...]
            ) -> tuple[list[list[int]], list[int]]:
    k = len(support)
    rows = [[p[i][t] for i in support] + [-1] for t in tight]
    rows.append([1] * k + [0])
    return rows, [0] * k + [1]


def exact_strategy(p: list[list[int]], r: int, support: tuple[int, ...],
                    tight: tuple[int, ...]) -> MixedStrategy | None:
    """Solve the ``(support, tight)`` system exactly; ``None`` unless it pins an x with x_I > 0."""
    sol = _bareiss_solve(*_system(p, support, tight))
    if sol is None:
        return None
    probs = sol[:-1]
    if any(v <= 0 for v in probs):
        return None
    full = [Fraction(0)] * r
    for i, v in zip(support, probs, strict=True):
        full[i] = v
    return tuple(full)


def exact_values(p: list[list[int]], x: MixedStrategy) -> list[Fraction]:
    """Opponent payoffs ``x^T P`` per opponent action, exact."""
    cols = len(p[0])
    return [sum((x[i] * p[i][c] for i in range(len(p)) if x[i]), Fraction(0))
            for c in range(cols)]


def _batches(r: int, c: int, k: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    rows = np.array(list(combinations(range(r), k)), dtype=np.intp)
    cols = np.array(list(combinations(range(c), k)), dtype=np.intp)
    step = max(1, _BATCH // len(cols))
    for lo in range(0, len(rows), step):
        yield rows[lo:lo + step], cols


def _inverses(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Batched inverses and 1-norm condition numbers (``inf`` for exactly singular floats)."""
    try:
        inv = np.linalg.inv(m)  # the common case: no singular matrix in the batch
        nonzero = np.arange(len(m))
    except np.linalg.LinAlgError:
        inv = np.zeros_like(m)
        nonzero = np.flatnonzero(np.linalg.det(m) != 0.0)
        if len(nonzero):
            inv[nonzero] = np.linalg.inv(m[nonzero])
    cond = np.full(len(m), np.inf)
    cond[nonzero] = (np.abs(m[nonzero]).sum(axis=1).max(axis=1)
                     * np.abs(inv[nonzero]).sum(axis=1).max(axis=1))
    return cond, inv


def _candidates(p_int: np.ndarray, exact_budget: int, max_candidates: int | None = None
                ) -> list[_Candidate]:
    """Strategies over the rows of ``p_int`` (the *opponent's* payoffs) that can be extreme."""
    r, c = p_int.shape
    p_list = [[int(v) for v in row] for row in p_int]
    pf = np.asarray(p_int, dtype=np.float64)
    pf = pf / max(1.0, float(np.abs(pf).max()))  # entries in [-1, 1]: keeps systems balanced
    tol_x, tol_v = 1e-6, 1e-6
    out: list[_Candidate] = []
    budget = exact_budget
    for k in range(1, min(r, c) + 1):
        for rows, cols in _batches(r, c, k):
            sub = pf[rows[:, None, :, None], cols[None, :, None, :]]  # [i, t] blocks
            nb = sub.shape[0] * sub.shape[1]
            m = np.zeros((nb, k + 1, k + 1))
            m[:, :k, :k] = np.swapaxes(sub, -1, -2).reshape(nb, k, k)
            m[:, :k, k] = -1.0
            m[:, k, :k] = 1.0
            cond, inv = _inverses(m)
            well = cond <= _WELL_CONDITIONED
            exact_idx = np.flatnonzero(~well & (cond <= _SINGULAR)).tolist()
            singular = np.flatnonzero(cond > _SINGULAR)
            if len(singular) <= budget:
                budget -= len(singular)
                exact_idx.extend(singular.tolist())
            ri, ci = np.divmod(np.arange(nb), len(cols))
            if well.any():
                sol = inv[well][:, :, k]  # the right-hand side is the last unit vector
                xs, us = sol[:, :k], sol[:, k]
                wi = np.flatnonzero(well)
                full = np.zeros((len(wi), r))
                np.put_along_axis(full, rows[ri[wi]], xs, axis=1)
                vals = full @ pf
                best = vals.max(axis=1)
                ok = (xs > -tol_x).all(axis=1) & (best <= us + tol_v)
                if max_candidates is not None and len(out) + int(ok.sum()) > max_candidates:
                    raise MemoryBudgetError(f"support enumeration of a {r}x{c} game: more "
                                            f"than {max_candidates:,} candidate strategies")
                for j in np.flatnonzero(ok):
                    out.append(_Candidate(tuple(rows[ri[wi[j]]].tolist()),
                                          tuple(cols[ci[wi[j]]].tolist()), full[j].copy(),
                                          vals[j] >= best[j] - tol_v))
            for idx in exact_idx:
                sup = tuple(rows[ri[idx]].tolist())
                tight = tuple(cols[ci[idx]].tolist())
                x = exact_strategy(p_list, r, sup, tight)
                if x is None:
                    continue
                values = exact_values(p_list, x)
                top = max(values)
                if any(values[t] != top for t in tight):
                    continue
                out.append(_Candidate(sup, tight, np.array([float(v) for v in x]),
                                      np.array([v == top for v in values]), x))
    return out


def _exact_of(cand: _Candidate, p_list: list[list[int]], r: int) -> MixedStrategy | None:
    if cand.exact is None:
        cand.exact = exact_strategy(p_list, r, cand.support, cand.tight)
    return cand.exact


def verify(a: list[list[int]], b: list[list[int]], x: MixedStrategy, y: MixedStrategy
            ) -> bool:
    """Exact equilibrium test for integer matrices ``a`` (player 1) and ``b`` (player 2)."""
    row_vals = [sum((a[i][j] * y[j] for j in range(len(y)) if y[j]), Fraction(0))
                for i in range(len(x))]
    col_vals = exact_values(b, x)
    top_r, top_c = max(row_vals), max(col_vals)
    return (all(v == top_r for v, p in zip(row_vals, x, strict=True) if p)
            and all(v == top_c for v, q in zip(col_vals, y, strict=True) if q))


def support_equilibria(ai: np.ndarray, bi: np.ndarray, exact_budget: int = 20_000,
                       max_candidates: int | None = None) -> list[MixedEquilibrium]:
    """Extreme equilibria of the integer game ``(ai, bi)`` by support enumeration, exact.

    Unsorted and not embedded (the caller removes dominated actions first). Raises
    :class:`~accord.solvers.polytope.MemoryBudgetError` when a player has more than
    ``max_candidates`` candidate strategies.
    """
    m, n = ai.shape
    a_list = [[int(v) for v in row] for row in ai]
    b_list = [[int(v) for v in row] for row in bi]
    at_list = [list(col) for col in zip(*a_list, strict=True)]
    xs = _candidates(bi, exact_budget, max_candidates)      # opponent payoffs b
    ys = _candidates(ai.T, exact_budget, max_candidates)    # opponent payoffs a^T
    if not xs or not ys:
        return []
    sy = np.zeros((len(ys), n), dtype=np.int32)
    not_ry = np.array([~c.replies for c in ys]).astype(np.int32)  # outside BR1(y)
    for j, cy in enumerate(ys):
        sy[j, list(cy.support)] = 1
    found: set[MixedEquilibrium] = set()
    block = max(1, _PAIR_CELLS // len(ys))  # bounds the pairing matrices' memory
    for lo in range(0, len(xs), block):
        chunk = xs[lo:lo + block]
        sx = np.zeros((len(chunk), m), dtype=np.int32)
        for i, cx in enumerate(chunk):
            sx[i, list(cx.support)] = 1
        not_rx = np.array([~c.replies for c in chunk]).astype(np.int32)
        ok = ((sx @ not_ry.T) == 0) & ((not_rx @ sy.T) == 0)
        for i, j in np.argwhere(ok):
            x = _exact_of(chunk[i], b_list, m)
            y = _exact_of(ys[j], at_list, n)
            if x is not None and y is not None and verify(a_list, b_list, x, y):
                found.add((x, y))
    return list(found)
