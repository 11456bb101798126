"""Utility functions: a scalar call on a package and a vectorised evaluation.

Every utility is immutable once built (seed 002: a utility that drifts mid-episode
lets an agent rationalise any deal). ``values(space)`` returns a read-only array of
the utility of every outcome index, computed once and cached per space.
"""

from __future__ import annotations

import weakref
from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from accord.core.moves import Package, Value
from accord.core.outcomes import OutcomeSpace


def _outer_sum(columns: list[np.ndarray]) -> np.ndarray:
    """``out[i] = sum_k columns[k][value position of issue k in outcome i]``, as outer sums.

    Outcome indices are mixed radix with the first issue most significant, which is
    exactly C order of the outer sum, so no index grid is materialised. The sums are
    ``((0 + c0) + c1) + ...`` in issue order (the first ``+ 0.0`` turns a ``-0.0`` into
    ``0.0``, as summing from zero does); one numpy call per issue, which is most of the
    cost of a small space's first evaluation (each call's machinery is cold then).
    """
    if not columns:
        return np.zeros(1)
    total: np.ndarray = np.asarray(columns[0], dtype=np.float64) + 0.0
    for col in columns[1:]:
        total = np.add.outer(total, np.asarray(col, dtype=np.float64))
    return total.ravel()


_UNSET = object()


#: below this many outcomes :func:`_stable_ranking` is one stable argsort (the packed sort's
#: few numpy calls cost more than the sort itself)
_SMALL_RANKING = 64
#: the sign bit's complement: flips a negative float's magnitude bits (see _packed_ranking)
_MAGNITUDE = 0x7FFF_FFFF_FFFF_FFFF


def _stable_ranking(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(order, values[order])`` with ``order`` exactly ``np.argsort(values,
    kind="stable")``: ascending, ties in index order.

    A tiny table is sorted so directly. A larger one is sorted as packed integer keys
    (:func:`_packed_ranking`: numpy sorts integers with vector instructions, several times
    faster than it argsorts floats, and in half the instructions of a stable argsort even
    at 10^3 outcomes), checked, and sorted directly when the check fails (ties closer than
    the packing keeps apart, or NaNs).
    """
    if len(values) >= _SMALL_RANKING:
        got = _packed_ranking(values)
        if got is not None:
            return got
    order = np.argsort(values, kind="stable")
    return order, values.take(order)


def _packed_ranking(values: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The stable ranking of a float64 table as one integer sort, or ``None`` if it may
    differ.

    Each value's bits become an integer key in the same order as the values (a negative
    value's magnitude bits flipped; ``-0.0`` first made ``0.0``), its low bits are replaced
    by the outcome index and the keys are sorted: the order is by value, truncated by those
    low bits, then by index. When the values come out non-decreasing in that order it is
    the stable argsort's (equal values have equal keys, so they are in index order); else
    (values closer than the truncation, or NaNs) ``None``.
    """
    n = len(values)
    bits = max(1, (n - 1).bit_length())
    if n < 2 or bits > 24 or values.dtype != np.float64:
        return None
    raw = values.view(np.int64)
    if raw.min() >= 0:  # no sign bit (no negative value, no -0.0): the bits are the key
        key = raw & -(1 << bits)
    else:
        raw = (values + 0.0).view(np.int64)  # + 0.0: -0.0 and 0.0 get one key (they tie)
        key = raw ^ ((raw >> 63) & _MAGNITUDE)
        key &= -(1 << bits)
    key |= np.arange(n, dtype=np.int64)
    key.sort()
    order = key & ((1 << bits) - 1)
    ranked = values.take(order)
    if not (ranked[1:] >= ranked[:-1]).all():
        return None
    return order, ranked


class UtilityFunction(ABC):
    """Scores packages. Subclasses are immutable; the vectorised cache is derived data."""

    kind: str = "utility"

    def __init__(self) -> None:
        # keyed by the space object itself (weakly): an id() could be reused by a new space
        self._cache: weakref.WeakKeyDictionary[OutcomeSpace, np.ndarray] = (
            weakref.WeakKeyDictionary())
        self._ranks: weakref.WeakKeyDictionary[OutcomeSpace, tuple[np.ndarray, np.ndarray]] = (
            weakref.WeakKeyDictionary())
        self._ranked_grids: weakref.WeakKeyDictionary[OutcomeSpace, np.ndarray] = (
            weakref.WeakKeyDictionary())
        self._ranked_codes: weakref.WeakKeyDictionary[OutcomeSpace, np.ndarray | None] = (
            weakref.WeakKeyDictionary())
        self._memos: weakref.WeakKeyDictionary[OutcomeSpace, dict[Hashable, dict[Any, Any]]] = (
            weakref.WeakKeyDictionary())

    @abstractmethod
    def __call__(self, package: Package) -> float:
        """The utility of one full package."""

    @abstractmethod
    def _evaluate(self, space: OutcomeSpace) -> np.ndarray:
        """Utility of every outcome index of ``space`` (uncached)."""

    def values(self, space: OutcomeSpace) -> np.ndarray:
        """Read-only array of utilities for all outcome indices of ``space`` (cached)."""
        arr = self._cache.get(space)
        if arr is None:
            space.check_size("utility values")
            arr = np.asarray(self._evaluate(space), dtype=np.float64)
            arr.setflags(write=False)
            self._cache[space] = arr
        return arr

    def ranking(self, space: OutcomeSpace) -> tuple[np.ndarray, np.ndarray]:
        """``(order, sorted values)``: outcome indices by ascending utility (stable), cached.

        Concession agents need this table every episode; it depends only on the
        scenario, so it is sorted once per (utility, space) rather than per episode.
        """
        got = self._ranks.get(space)
        if got is None:
            values = self.values(space)
            order, ranked = _stable_ranking(values)
            order.setflags(write=False)
            ranked.setflags(write=False)
            got = (order, ranked)
            self._ranks[space] = got
        return got

    def memo(self, space: OutcomeSpace, key: Hashable) -> dict[Any, Any]:
        """A dict, the same one for every call with this ``space`` and ``key``, for memos of
        pure functions of this utility's tables over ``space`` (a concession agent's
        near-target choices, keyed by its floor and window): kept as long as the tables
        above, so that every episode of a scenario shares them. Its user bounds its size."""
        per = self._memos.get(space)
        if per is None:
            per = self._memos[space] = {}
        got = per.get(key)
        if got is None:
            got = per[key] = {}
        return got

    def ranked_grid(self, space: OutcomeSpace) -> np.ndarray:
        """``space.grid`` in :meth:`ranking` order (row ``k`` is the ``k``-th worst outcome's
        value positions), cached: a window of near-target outcomes is then a slice."""
        got = self._ranked_grids.get(space)
        if got is None:
            got = space.grid[self.ranking(space)[0]]
            got.setflags(write=False)
            self._ranked_grids[space] = got
        return got

    def ranked_codes(self, space: OutcomeSpace) -> np.ndarray | None:
        """``space.l1_codes`` in :meth:`ranking` order (``None`` where the space has no
        codes), cached like :meth:`ranked_grid`."""
        got = self._ranked_codes.get(space, _UNSET)  # one weak lookup: None is a value here
        if got is not _UNSET:
            return got  # type: ignore[return-value]
        codes = space.l1_codes
        got = None if codes is None else codes.take(self.ranking(space)[0])
        if got is not None:
            got.setflags(write=False)
        self._ranked_codes[space] = got
        return got

    def at(self, space: OutcomeSpace, indices: np.ndarray) -> np.ndarray:
        """Utilities of the given outcome indices."""
        return self.values(space)[indices]

    def __setattr__(self, name: str, value: Any) -> None:
        if getattr(self, "_frozen", False):
            raise AttributeError(f"{type(self).__name__} is immutable for an episode")
        object.__setattr__(self, name, value)

    def _freeze(self) -> None:
        object.__setattr__(self, "_frozen", True)

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """The scenario-file form of this utility."""


class LinearAdditiveUtility(UtilityFunction):
    """``sum_i weight_i * score_i(value_i)`` over issues (the scenario format's default)."""

    kind = "linear_additive"

    def __init__(self, weights: Mapping[str, float], scores: Mapping[str, Mapping[Value, float]]):
        super().__init__()
        self.weights = MappingProxyType({k: float(v) for k, v in weights.items()})
        self.scores = MappingProxyType(
            {k: MappingProxyType({vv: float(s) for vv, s in m.items()}) for k, m in scores.items()}
        )
        self._lookup = {k: {str(vv): s for vv, s in m.items()} for k, m in self.scores.items()}
        self._freeze()

    def __call__(self, package: Package) -> float:
        total = 0.0
        for issue, w in self.weights.items():
            total += w * self._lookup[issue][str(package[issue])]
        return total

    def issue_scores(self, space: OutcomeSpace) -> list[np.ndarray]:
        """Per issue, the weighted score of each value position."""
        out = []
        for issue in space.issues:
            w = self.weights.get(issue.name, 0.0)
            table = self._lookup.get(issue.name, {})
            out.append(np.array([w * table.get(str(v), 0.0) for v in issue.values]))
        return out

    def _evaluate(self, space: OutcomeSpace) -> np.ndarray:
        return _outer_sum(self.issue_scores(space))

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "weights": dict(self.weights),
                "values": {k: dict(v) for k, v in self.scores.items()}}


class TableUtility(UtilityFunction):
    """An explicit utility per outcome, ``default`` elsewhere."""

    kind = "table"

    def __init__(self, space: OutcomeSpace, table: Mapping[int, float], default: float = 0.0):
        super().__init__()
        self.space = space
        self.table = MappingProxyType({int(k): float(v) for k, v in table.items()})
        self.default = float(default)
        self._freeze()

    def __call__(self, package: Package) -> float:
        return self.table.get(self.space.index_of(package), self.default)

    def _evaluate(self, space: OutcomeSpace) -> np.ndarray:
        if space is not self.space and space.names != self.space.names:
            raise ValueError("table utility evaluated on a different outcome space")
        arr = np.full(space.size, self.default)
        if self.table:
            idx = np.fromiter(self.table.keys(), dtype=np.int64)
            arr[idx] = np.fromiter(self.table.values(), dtype=np.float64)
        return arr

    def to_dict(self) -> dict[str, Any]:
        keys = {
            ",".join(f"{n}={v}" for n, v in self.space.package(i).items()): u
            for i, u in self.table.items()
        }
        return {"type": self.kind, "default": self.default, "table": keys}


class AllocationUtility(UtilityFunction):
    """Item allocation: units received x per-unit value (seeds 001 and 003).

    Issues are item names whose value is the number of units allocated to the
    *first* party; ``side=0`` scores that share, ``side=1`` scores the complement
    ``counts - value`` (what the second party receives).
    """

    kind = "allocation"

    def __init__(self, counts: Mapping[str, int], unit_values: Mapping[str, float], side: int = 0):
        super().__init__()
        if side not in (0, 1):
            raise ValueError("side must be 0 (first party's share) or 1 (the complement)")
        missing = set(counts) - set(unit_values)
        if missing:
            raise ValueError(f"allocation utility lacks unit values for {sorted(missing)}")
        self.counts = MappingProxyType({k: int(v) for k, v in counts.items()})
        self.unit_values = MappingProxyType({k: float(unit_values[k]) for k in counts})
        self.side = side
        self._freeze()

    def share(self, package: Package) -> dict[str, int]:
        """Units this party receives under ``package``."""
        first = {k: int(package[k]) for k in self.counts}
        if self.side == 0:
            return first
        return {k: self.counts[k] - first[k] for k in self.counts}

    def __call__(self, package: Package) -> float:
        return float(sum(n * self.unit_values[k] for k, n in self.share(package).items()))

    def _evaluate(self, space: OutcomeSpace) -> np.ndarray:
        cols = []
        for issue in space.issues:
            if issue.name not in self.counts:
                cols.append(np.zeros(len(issue)))
                continue
            units = np.array([int(v) for v in issue.values], dtype=np.float64)
            if self.side == 1:
                units = self.counts[issue.name] - units
            cols.append(units * self.unit_values[issue.name])
        return _outer_sum(cols)

    @staticmethod
    def space_for(counts: Mapping[str, int]) -> OutcomeSpace:
        """The outcome space of all allocations of ``counts`` between two parties."""
        return OutcomeSpace.from_mapping({k: list(range(int(n) + 1)) for k, n in counts.items()})

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "counts": dict(self.counts),
                "unit_values": dict(self.unit_values), "side": self.side}
