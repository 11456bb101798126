"""The geometry of "value left on the table" on a set of outcomes (pure, numpy only): the
Pareto frontier, the largest joint gain with nobody worse off, the distances to the
frontier and to the Nash point, and every split of a Deal-or-No-Deal datapoint.

:mod:`accord.bench.optimality` builds every domain's gaps from these, and the person's
debrief (:mod:`accord.play.debrief`) calls :func:`plane_gaps` on its utility plane, so both
read the same numbers. See :mod:`accord.bench.optimality` for the definitions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any

import numpy as np


def l2(point: Sequence[float], targets: Any) -> float | None:
    """Euclidean distance from ``point`` to the nearest row of ``targets`` (None: none)."""
    if targets is None or not len(targets):
        return None
    t = np.asarray(targets, dtype=np.float64)
    p = np.asarray(point, dtype=np.float64)
    return float(np.sqrt(((t - p) ** 2).sum(axis=1)).min())


def clean(x: float | None) -> float | None:
    """Round solver float noise (1e-16) to an exact 0 so "optimal" reads as gap 0."""
    return None if x is None else (0.0 if abs(x) < 1e-9 else float(x))


def joint_gain_left(frontier: Any, outcome: Sequence[float]
                    ) -> tuple[float, list[float] | None]:
    """The value left on the table at ``outcome`` (one utility per party) and the outcome
    that would have brought it (``None`` when nothing was left).

    ``frontier`` holds the Pareto-optimal utility vectors (the best outcome at least as good
    for every party is always one of them). A tolerance of 1e-9 of the utilities' scale
    absorbs float noise, so an outcome on the frontier leaves exactly 0.
    """
    f = np.asarray(frontier, dtype=np.float64)
    at = np.asarray(outcome, dtype=np.float64)
    if f.ndim != 2 or not len(f):
        return 0.0, None
    eps = 1e-9 * max(1.0, float(np.abs(f).max()), float(np.abs(at).max()))
    better = f[(f >= at - eps).all(axis=1)]
    if not len(better):
        return 0.0, None
    k = int(np.argmax(better.sum(axis=1)))
    gain = float(better[k].sum() - at.sum())
    if gain <= eps:
        return 0.0, None
    return gain, [float(x) for x in better[k]]


def pareto_front(points: Any) -> np.ndarray:
    """The Pareto-optimal rows of ``points`` (float noise rounded away), sorted by the first
    column, then the second."""
    from accord.core.pareto import canonical_utilities, pareto_indices

    u = canonical_utilities(np.asarray(points, dtype=np.float64))
    if not len(u):
        return u.reshape(0, 2)
    front = u[pareto_indices(u)]
    return np.asarray(front[np.lexsort(front.T[::-1])])


@dataclass(frozen=True)
class PlaneGaps:
    """The gaps of one outcome on a utility plane (the person's debrief): the ``frontier``
    and ``nash`` points drawn, and the same numbers :class:`Gaps` carries."""

    frontier: list[list[float]]
    nash: list[list[float]]
    gap_pareto: float | None
    gap_nash: float | None
    value_left: float | None
    better: list[float] | None


def plane_gaps(points: Any, outcome: Sequence[float] | None,
               disagreement: Sequence[float], equilibria: Sequence[Sequence[float]] = ()
               ) -> PlaneGaps:
    """Frontier, Nash point(s), the distances to both and the value left on the table of
    ``outcome`` among ``points`` (one row per outcome, one column per party). The Nash
    point is the Nash bargaining solution over ``disagreement``, or, when ``equilibria``
    are given (a game), those equilibrium payoffs."""
    from accord.core.pareto import canonical_utilities
    from accord.core.solutions import nash_point

    u = canonical_utilities(np.asarray(points, dtype=np.float64))
    front = pareto_front(u)
    if equilibria:
        nash = [[float(x) for x in p] for p in equilibria]
    else:
        i = nash_point(u, np.asarray(disagreement, dtype=np.float64))
        nash = [] if i is None else [[float(x) for x in u[i]]]
    if outcome is None:
        return PlaneGaps(front.tolist(), nash, None, None, None, None)
    left, better = joint_gain_left(front, outcome)
    return PlaneGaps(front.tolist(), nash, clean(l2(outcome, front)),
                     clean(l2(outcome, nash or None)), left, better)


def dond_points(counts: Sequence[int], mine: Sequence[int], theirs: Sequence[int]
                ) -> np.ndarray:
    """Every split of the items as (my points, the other side's points), my share
    enumerated in lexicographic order."""
    return np.asarray([(sum(t * v for t, v in zip(take, mine, strict=True)),
                        sum((c - t) * v for t, c, v in zip(take, counts, theirs, strict=True)))
                       for take in product(*(range(int(c) + 1) for c in counts))],
                      dtype=np.float64)


__all__ = ["PlaneGaps", "clean", "dond_points", "joint_gain_left", "l2", "pareto_front",
           "plane_gaps"]
