"""Mixed Nash equilibria of two-player games, exact: every extreme equilibrium.

Method (vertex enumeration, the "EEE" characterisation). Shift each player's payoffs to
be positive; player 1's best-response polytope is ``P = {x >= 0 : B^T x <= 1}`` and
player 2's is ``Q = {y >= 0 : A y <= 1}``. Label a point of ``P`` with the own actions it
leaves out (``x_i = 0``) and the opponent actions that are best replies to it (tight
constraints), likewise for ``Q``. The extreme equilibria - all equilibria of a
nondegenerate game, the vertices of the equilibrium polytopes of a degenerate one (e.g.
Golden Balls: Alice steals and Bob mixes anything) - are exactly the normalised pairs of
nonzero vertices ``(x, y)`` that together carry every label: each one's support lies
inside the other's best replies. :mod:`accord.solvers.polytope` lists the vertices of
``P`` and ``Q`` by exact lexicographic pivoting (degenerate polytopes included); pairs are
matched through a hash of their label sets, and every equilibrium returned is verified
exactly. The same set comes out of support enumeration (:mod:`accord.solvers.nash_support`,
``method="support"``), which solves ``C(m + n, m)`` small systems per player instead of
visiting the polytopes' vertices: 155 million against tens of thousands for 15 x 15.

Actions removed by iterated elimination of strictly dominated actions are never played in
any equilibrium, so the search runs on the reduced game.

Memory grows with the number of vertices; ``max_memory`` (bytes, default 2 GiB) bounds it
and turns a game beyond the budget into :class:`MemoryBudgetError` before the machine runs
out. Time is bounded by a :class:`~accord.solvers.budget.TimeBudget`
(:func:`mixed_nash_within`): the walks check it between batches of bases and, when it runs
out, the vertices found so far are matched as usual, so every equilibrium returned is
still a verified equilibrium, only the list may miss some (``complete=False``; the pure
equilibria, always cheap, are added then).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np

from accord.solvers.budget import TimeBudget
from accord.solvers.dominance import iterated_elimination
from accord.solvers.nash import pure_nash
from accord.solvers.nash_support import (
    MixedEquilibrium,
    MixedStrategy,
    exact_strategy,
    support_equilibria,
    verify,
)
from accord.solvers.payoff_arrays import exact_array, integer_payoffs, to_fraction
from accord.solvers.pivoting import MemoryBudgetError, Vertex
from accord.solvers.polytope import polytope_vertices_within

__all__ = ["MemoryBudgetError", "MixedEquilibria", "MixedEquilibrium", "MixedStrategy",
           "is_mixed_nash", "mixed_nash", "mixed_nash_within"]


@dataclass(frozen=True)
class MixedEquilibria:
    """The equilibria :func:`mixed_nash_within` found, and whether they are all of them
    (``complete=False``: the time budget ran out; each one listed is still exact and
    verified)."""

    equilibria: list[MixedEquilibrium]
    complete: bool

DEFAULT_MAX_MEMORY = 2 * 2**30
"""Default memory budget of :func:`mixed_nash`, in bytes (2 GiB)."""

#: bytes held per basis visited (a generous bound: tracemalloc measured 1.0-1.2 KB per
#: vertex for 12x12-14x14 games, benchmarks/bench_equilibria.py), per own action plus a
#: fixed part, and the float walk's working arrays
_BYTES_PER_BASIS_FIXED = 400
_BYTES_PER_BASIS_ACTION = 120
_WORKING_SET = 64 * 2**20


def max_bases(budget: int, size: int) -> int:
    """How many bases one of the two polytopes (``size`` own actions) may visit."""
    per = _BYTES_PER_BASIS_FIXED + _BYTES_PER_BASIS_ACTION * size
    return max(1, (budget - _WORKING_SET) // per // 2)


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


def _strategy(v: Vertex, p: list[list[int]]) -> MixedStrategy | None:
    """The exact strategy of a vertex; ``p`` holds the opponent's payoffs (own x opp.)."""
    if v.total:
        return tuple(Fraction(w, v.total) for w in v.weights)
    support = tuple(i for i in range(len(p)) if not v.zeros >> i & 1)
    tight = tuple(t for t in range(len(p[0])) if v.replies >> t & 1)
    return exact_strategy(p, len(p), support, tight)


def vertex_equilibria(ai: np.ndarray, bi: np.ndarray, max_memory: int | None = None,
                      budget: TimeBudget | None = None
                      ) -> tuple[list[MixedEquilibrium], bool]:
    """Extreme equilibria of the integer game ``(ai, bi)`` by vertex enumeration, and
    whether the list is complete (``budget`` ran out: a partial list).

    Unsorted and not embedded (the caller removes dominated actions first). Player 1's
    polytope gets half the time left, player 2's the rest.
    """
    m, n = ai.shape
    a_list = [[int(v) for v in row] for row in ai]
    b_list = [[int(v) for v in row] for row in bi]
    at_list = [list(col) for col in zip(*a_list, strict=True)]
    try:
        xs, x_done = polytope_vertices_within(
            b_list, None if max_memory is None else max_bases(max_memory, m),
            None if budget is None else budget.share(0.5))
        ys, y_done = polytope_vertices_within(
            at_list, None if max_memory is None else max_bases(max_memory, n), budget)
    except MemoryBudgetError as exc:
        assert max_memory is not None
        raise MemoryBudgetError(
            f"the {m}x{n} game (after removing dominated actions) needs more than the "
            f"memory budget of {max_memory / 2**30:.2f} GiB to list every extreme equilibrium "
            f"({exc}); pass a larger max_memory (None: no limit)") from None
    full = (1 << (m + n)) - 1
    # labels: player 1's actions are bits 0..m-1, player 2's bits m..m+n-1
    x_labels = [v.zeros | (v.replies << m) for v in xs]
    y_labels = [v.replies | (v.zeros << m) for v in ys]
    simple: dict[int, list[int]] = {}   # label set -> ys at nondegenerate vertices
    degenerate: list[int] = []          # ys with more than n labels
    for j, lab in enumerate(y_labels):
        if lab.bit_count() == n:
            simple.setdefault(lab, []).append(j)
        else:
            degenerate.append(j)
    found: set[MixedEquilibrium] = set()
    for i, lab in enumerate(x_labels):
        need = full & ~lab
        if lab.bit_count() == m:  # exactly n labels needed: a simple y has exactly those
            cands = simple.get(need, []) + [j for j in degenerate if y_labels[j] & need == need]
        else:
            cands = [j for j, ly in enumerate(y_labels) if ly & need == need]
        if not cands:
            continue
        x = _strategy(xs[i], b_list)
        for j in cands:
            y = _strategy(ys[j], at_list)
            if x is not None and y is not None and verify(a_list, b_list, x, y):
                found.add((x, y))
    return list(found), x_done and y_done


def mixed_nash(a: np.ndarray, b: np.ndarray, *, exact_budget: int = 20_000,
               max_memory: int | None = DEFAULT_MAX_MEMORY,
               method: Literal["vertex", "support"] = "vertex") -> list[MixedEquilibrium]:
    """Every (extreme) Nash equilibrium of the bimatrix game ``(a, b)``, exact, sorted.

    ``a[i, j]`` / ``b[i, j]`` are the payoffs of player 1 / player 2 when player 1 plays row
    ``i`` and player 2 column ``j``. Entries may be ints, Fractions, floats (read exactly
    via their decimal repr) or numeric strings. Pure equilibria are included as degenerate
    mixtures. ``max_memory`` (bytes, ``None`` for no limit) bounds the search; beyond it
    :class:`MemoryBudgetError` says so. ``method="support"`` uses support enumeration (the
    same equilibria, slower beyond 10 x 10; ``exact_budget`` applies to it only, see
    :mod:`accord.solvers.nash_support`).
    """
    return mixed_nash_within(a, b, exact_budget=exact_budget, max_memory=max_memory,
                             method=method).equilibria


def mixed_nash_within(a: np.ndarray, b: np.ndarray, budget: TimeBudget | None = None, *,
                      exact_budget: int = 20_000,
                      max_memory: int | None = DEFAULT_MAX_MEMORY,
                      method: Literal["vertex", "support"] = "vertex") -> MixedEquilibria:
    """:func:`mixed_nash` within a time budget (vertex enumeration checks it between
    batches of bases; support enumeration is not interruptible and ignores it). When the
    time runs out the equilibria found so far come back with ``complete=False``."""
    if method not in ("vertex", "support"):
        raise ValueError(f"method must be 'vertex' or 'support', got {method!r}")
    full_a, full_b = _as_matrices(a, b)
    # strictly dominated actions are never played in any equilibrium: solve the reduced game
    rows, cols = iterated_elimination(np.stack([full_a, full_b], axis=-1)).surviving
    ai, bi = full_a[np.ix_(rows, cols)], full_b[np.ix_(rows, cols)]
    complete = True
    if method == "vertex":
        eqs, complete = vertex_equilibria(ai, bi, max_memory, budget)
    else:
        cap = None if max_memory is None else max_memory // (200 + 16 * max(ai.shape))
        eqs = support_equilibria(ai, bi, exact_budget, cap)
    found = {(_embed(x, rows, full_a.shape[0]), _embed(y, cols, full_a.shape[1]))
             for x, y in eqs}
    if not complete:  # the pure equilibria cost one pass over the profiles: never missed
        m, n = full_a.shape
        for i, j in pure_nash(np.stack([full_a, full_b], axis=-1)):
            found.add((tuple(Fraction(int(k == i)) for k in range(m)),
                       tuple(Fraction(int(k == j)) for k in range(n))))
    return MixedEquilibria(
        sorted(found, key=lambda e: (sum(1 for p in e[0] if p) + sum(1 for q in e[1] if q),
                                     [-p for p in e[0]], [-q for q in e[1]])), complete)


def is_mixed_nash(a: np.ndarray, b: np.ndarray, x: MixedStrategy, y: MixedStrategy) -> bool:
    """Exact test: is ``(x, y)`` a Nash equilibrium of the bimatrix game ``(a, b)``."""
    ai, bi = _as_matrices(a, b)
    xs = tuple(to_fraction(v) for v in x)
    ys = tuple(to_fraction(v) for v in y)
    if len(xs) != ai.shape[0] or len(ys) != ai.shape[1]:
        raise ValueError(f"strategy lengths {len(xs)}, {len(ys)} do not match {ai.shape}")
    if any(v < 0 for v in xs + ys) or sum(xs) != 1 or sum(ys) != 1:
        return False
    return verify([[int(v) for v in row] for row in ai],
                  [[int(v) for v in row] for row in bi], xs, ys)
