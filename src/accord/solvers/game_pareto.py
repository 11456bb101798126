"""Exact Pareto optimality over the profiles of a normal-form game.

A payoff vector ``v'`` Pareto-dominates ``v`` when ``v' >= v`` for every player and
``v' != v``. A profile is Pareto optimal when no profile's payoff vector dominates its own;
profiles with equal payoff vectors never dominate each other. Comparisons run on the
per-player integer rescaling of :func:`~accord.solvers.payoff_arrays.integer_payoffs`, so
they are exact. Two players take one sort; more players compare the distinct payoff
vectors pairwise (fine for the few thousand distinct vectors of n-player games).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import lcm

import numpy as np

from accord.solvers.budget import TimeBudget
from accord.solvers.nash import Profile, pure_nash
from accord.solvers.payoff_arrays import check_payoff_array, fraction_of, integer_payoffs


def _pareto_2d(u0: np.ndarray, u1: np.ndarray) -> np.ndarray:
    """Mask of undominated points for two integer coordinates (sort and sweep)."""
    order = np.lexsort((-u1, -u0))  # u0 descending, then u1 descending
    s0, s1 = u0[order], u1[order]
    start = np.ones(len(order), dtype=bool)
    start[1:] = s0[1:] != s0[:-1]
    group = np.cumsum(start) - 1
    gmax = s1[start]                       # best u1 inside each group of equal u0
    keep = s1 == gmax[group]               # nobody in the group beats it on u1
    if len(gmax) > 1:
        # ... and every group with a larger u0 has a strictly smaller best u1
        run = np.maximum.accumulate(gmax)[:-1]
        later = group > 0
        keep[later] &= s1[later] > run[group[later] - 1]
    mask = np.zeros(len(order), dtype=bool)
    mask[order[keep]] = True
    return mask


def _pareto_nd(points: np.ndarray, budget: TimeBudget | None = None) -> np.ndarray:
    uniq, inverse = np.unique(points, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    dominated = np.zeros(len(uniq), dtype=bool)
    step = max(1, 4_000_000 // max(1, len(uniq) * uniq.shape[1]))
    for lo in range(0, len(uniq), step):
        if budget is not None:
            budget.check(f"Pareto optimality of {len(uniq):,} distinct payoff vectors "
                         f"({lo:,} compared)")
        chunk = uniq[lo:lo + step]
        ge = np.all(uniq[None, :, :] >= chunk[:, None, :], axis=2)  # other >= chunk point
        np.fill_diagonal(ge[:, lo:lo + len(chunk)], False)          # distinct rows only
        dominated[lo:lo + len(chunk)] = ge.any(axis=1)
    return ~dominated[inverse]


def pareto_mask_of_vectors(points: np.ndarray, budget: TimeBudget | None = None
                           ) -> np.ndarray:
    """Undominated rows of an ``(N, n)`` integer (or exact object) array.

    With three or more players the distinct vectors are compared pairwise; ``budget``
    bounds that (:class:`~accord.solvers.budget.BudgetExhausted` when it runs out).
    """
    pts = np.asarray(points)
    if pts.ndim != 2:
        raise ValueError(f"expected an (N, players) array, got shape {pts.shape}")
    if len(pts) == 0:
        return np.zeros(0, dtype=bool)
    if pts.dtype == object:  # arbitrary-precision integers: exact pure-Python comparison
        vecs = [tuple(r) for r in pts]
        return np.array([not any(_dominates(w, v) for w in vecs) for v in vecs], dtype=bool)
    if pts.shape[1] == 1:
        return pts[:, 0] == pts[:, 0].max()
    if pts.shape[1] == 2:
        return _pareto_2d(pts[:, 0], pts[:, 1])
    return _pareto_nd(pts, budget)


def _dominates(w: Sequence[object], v: Sequence[object]) -> bool:
    return all(a >= b for a, b in zip(w, v, strict=True)) and tuple(w) != tuple(v)  # type: ignore[operator]


def pareto_dominates(w: Sequence[Fraction], v: Sequence[Fraction]) -> bool:
    """Whether payoff vector ``w`` Pareto-dominates ``v`` (>= everywhere, different)."""
    return _dominates(w, v)


def pareto_optimal_mask(payoffs: np.ndarray, budget: TimeBudget | None = None
                        ) -> np.ndarray:
    """Boolean array over profiles (shape ``(k_1, ..., k_n)``): is the profile Pareto optimal."""
    check_payoff_array(payoffs)
    u, _ = integer_payoffs(payoffs)
    flat = u.reshape(-1, u.shape[-1])
    return pareto_mask_of_vectors(flat, budget).reshape(u.shape[:-1])


def pareto_optimal_profiles(payoffs: np.ndarray, budget: TimeBudget | None = None
                            ) -> list[Profile]:
    """Every Pareto-optimal pure profile, in lexicographic order."""
    return [tuple(int(a) for a in r)
            for r in np.argwhere(pareto_optimal_mask(payoffs, budget))]


def undominated(vectors: Sequence[Sequence[Fraction]]) -> list[bool]:
    """For each payoff vector of a list: is it undominated within the list.

    Equal vectors are compared once, on exact per-player integer rescalings (sort and
    sweep for two players), so thousands of leaves with tied payoffs cost milliseconds.
    """
    if not vectors:
        return []
    keys = [tuple(Fraction(x) for x in v) for v in vectors]
    uniq = list(dict.fromkeys(keys))
    where = {v: i for i, v in enumerate(uniq)}
    scale = [lcm(*(v[i].denominator for v in uniq)) for i in range(len(uniq[0]))]
    ints = [[int(x * s) for x, s in zip(v, scale, strict=True)] for v in uniq]
    small = all(abs(x) < 2**62 for row in ints for x in row)
    mask = pareto_mask_of_vectors(np.array(ints, dtype=np.int64 if small else object))
    return [bool(mask[where[k]]) for k in keys]


def payoff_dominant_nash(payoffs: np.ndarray) -> list[Profile]:
    """Pure equilibria that no other pure equilibrium Pareto-dominates.

    This is the "Pareto-optimal Nash equilibrium" of the seed's Tables 5-8: in the
    Prisoner's Dilemma the only equilibrium (defect, defect) qualifies although mutual
    cooperation dominates it, and in the Stag Hunt only (stag, stag) does.
    """
    eqs = pure_nash(payoffs)
    vecs = [fraction_of(payoffs, e) for e in eqs]
    return [e for e, keep in zip(eqs, undominated(vecs), strict=True) if keep]
