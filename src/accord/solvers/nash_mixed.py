"""Mixed Nash equilibria of two-player games by support enumeration, exact results.

Method. A strategy ``x`` of player 1 that takes part in an *extreme* equilibrium is pinned
down by its support ``I`` and ``|I|`` of player 2's best replies ``T``: it is the unique
solution of ``sum_i B[i, t] x_i = u`` (``t`` in ``T``), ``sum_i x_i = 1``, ``x = 0`` off
``I``. We solve that square system for every pair ``(I, T)`` of equal size, keep the
solutions with ``x_I > 0`` whose ``T`` really are best replies, do the same for player 2,
and pair ``x`` with ``y`` when each one's support lies inside the other's best replies.
For a nondegenerate game this is classic support enumeration (every equilibrium has
supports of equal size) and returns every equilibrium. For a degenerate game, whose
equilibria form polytopes (e.g. Golden Balls: Alice steals and Bob mixes anything), it
returns every *extreme* equilibrium, i.e. the vertices of those polytopes: each vertex is
the unique solution of a nonsingular ``(I, T)`` system, so none is missed.

Exactness. Payoffs are rescaled to integers per player. The thousands of small systems are
solved in batches with numpy (float) only to discard hopeless candidates with a generous
tolerance; the survivors are re-solved with integer (Bareiss) elimination and Fractions,
and each equilibrium returned is verified exactly. Systems whose float (1-norm) condition
number exceeds ``1e8`` are solved exactly as well, so ill-conditioned vertices are not lost;
systems that are numerically singular (condition above ``1e11``) are checked exactly when
there are at most ``exact_budget`` of them and otherwise treated as singular.

Actions removed by iterated elimination of strictly dominated actions are never played in
any equilibrium, so the search runs on the reduced game. The cost is then
``sum_k C(m, k) C(n, k)`` small solves per player (184,756 for 10 x 10).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

import numpy as np

from accord.solvers.dominance import iterated_elimination
from accord.solvers.payoff_arrays import exact_array, integer_payoffs, to_fraction

MixedStrategy = tuple[Fraction, ...]
"""Probabilities over one player's actions, exact."""

MixedEquilibrium = tuple[MixedStrategy, MixedStrategy]
"""A pair of mixed strategies (player 1, player 2)."""

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


def _exact_strategy(p: list[list[int]], r: int, support: tuple[int, ...],
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


def _exact_values(p: list[list[int]], x: MixedStrategy) -> list[Fraction]:
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


def _candidates(p_int: np.ndarray, exact_budget: int) -> list[_Candidate]:
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
                for j in np.flatnonzero(ok):
                    out.append(_Candidate(tuple(rows[ri[wi[j]]].tolist()),
                                          tuple(cols[ci[wi[j]]].tolist()), full[j],
                                          vals[j] >= best[j] - tol_v))
            for idx in exact_idx:
                sup = tuple(rows[ri[idx]].tolist())
                tight = tuple(cols[ci[idx]].tolist())
                x = _exact_strategy(p_list, r, sup, tight)
                if x is None:
                    continue
                values = _exact_values(p_list, x)
                top = max(values)
                if any(values[t] != top for t in tight):
                    continue
                out.append(_Candidate(sup, tight, np.array([float(v) for v in x]),
                                      np.array([v == top for v in values]), x))
    return out


def _exact_of(cand: _Candidate, p_list: list[list[int]], r: int) -> MixedStrategy | None:
    if cand.exact is None:
        cand.exact = _exact_strategy(p_list, r, cand.support, cand.tight)
    return cand.exact


def _verify(a: list[list[int]], b: list[list[int]], x: MixedStrategy, y: MixedStrategy
            ) -> bool:
    """Exact equilibrium test for integer matrices ``a`` (player 1) and ``b`` (player 2)."""
    row_vals = [sum((a[i][j] * y[j] for j in range(len(y)) if y[j]), Fraction(0))
                for i in range(len(x))]
    col_vals = _exact_values(b, x)
    top_r, top_c = max(row_vals), max(col_vals)
    return (all(v == top_r for v, p in zip(row_vals, x, strict=True) if p)
            and all(v == top_c for v, q in zip(col_vals, y, strict=True) if q))


def _as_matrices(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim != 2 or a.shape != b.shape:
        raise ValueError(f"need two payoff matrices of one shape (m, n), got {a.shape}, "
                         f"{b.shape}")
    if a.dtype.kind not in "iuO":
        a = exact_array(a)
    if b.dtype.kind not in "iuO":
        b = exact_array(b)
    u, _ = integer_payoffs(np.stack([a, b], axis=-1))
    return u[..., 0], u[..., 1]


def _embed(strategy: MixedStrategy, alive: tuple[int, ...], size: int) -> MixedStrategy:
    full = [Fraction(0)] * size
    for k, p in zip(alive, strategy, strict=True):
        full[k] = p
    return tuple(full)


def mixed_nash(a: np.ndarray, b: np.ndarray, *, exact_budget: int = 20_000
               ) -> list[MixedEquilibrium]:
    """Every (extreme) Nash equilibrium of the bimatrix game ``(a, b)``, exact, sorted.

    ``a[i, j]`` / ``b[i, j]`` are the payoffs of player 1 / player 2 when player 1 plays row
    ``i`` and player 2 column ``j``. Entries may be ints, Fractions, floats (read exactly
    via their decimal repr) or numeric strings. Pure equilibria are included as degenerate
    mixtures. See the module docstring for degenerate games and ``exact_budget``.
    """
    full_a, full_b = _as_matrices(a, b)
    # strictly dominated actions are never played in any equilibrium: solve the reduced game
    rows, cols = iterated_elimination(np.stack([full_a, full_b], axis=-1)).surviving
    ai, bi = full_a[np.ix_(rows, cols)], full_b[np.ix_(rows, cols)]
    m, n = ai.shape
    a_list = [[int(v) for v in row] for row in ai]
    b_list = [[int(v) for v in row] for row in bi]
    at_list = [list(col) for col in zip(*a_list, strict=True)]
    xs = _candidates(bi, exact_budget)          # player 1 strategies; opponent payoffs b
    ys = _candidates(ai.T, exact_budget)        # player 2 strategies; opponent payoffs a^T
    if not xs or not ys:
        return []
    sx = np.zeros((len(xs), m), dtype=bool)
    rx = np.array([c.replies for c in xs])      # player 2's (near) best replies to x
    sy = np.zeros((len(ys), n), dtype=bool)
    ry = np.array([c.replies for c in ys])      # player 1's (near) best replies to y
    for i, cx in enumerate(xs):
        sx[i, list(cx.support)] = True
    for j, cy in enumerate(ys):
        sy[j, list(cy.support)] = True
    bad1 = sx.astype(np.int32) @ (~ry).T.astype(np.int32)   # supp(x) outside BR1(y)
    bad2 = (~rx).astype(np.int32) @ sy.T.astype(np.int32)   # supp(y) outside BR2(x)
    found: set[MixedEquilibrium] = set()
    for i, j in np.argwhere((bad1 == 0) & (bad2 == 0)):
        x = _exact_of(xs[i], b_list, m)
        y = _exact_of(ys[j], at_list, n)
        if x is not None and y is not None and _verify(a_list, b_list, x, y):
            found.add((_embed(x, rows, full_a.shape[0]), _embed(y, cols, full_a.shape[1])))
    return sorted(found, key=lambda e: (sum(1 for p in e[0] if p) + sum(1 for q in e[1] if q),
                                        [-p for p in e[0]], [-q for q in e[1]]))


def is_mixed_nash(a: np.ndarray, b: np.ndarray, x: MixedStrategy, y: MixedStrategy) -> bool:
    """Exact test: is ``(x, y)`` a Nash equilibrium of the bimatrix game ``(a, b)``."""
    ai, bi = _as_matrices(a, b)
    xs = tuple(to_fraction(v) for v in x)
    ys = tuple(to_fraction(v) for v in y)
    if len(xs) != ai.shape[0] or len(ys) != ai.shape[1]:
        raise ValueError(f"strategy lengths {len(xs)}, {len(ys)} do not match {ai.shape}")
    if any(v < 0 for v in xs + ys) or sum(xs) != 1 or sum(ys) != 1:
        return False
    return _verify([[int(v) for v in row] for row in ai],
                   [[int(v) for v in row] for row in bi], xs, ys)
