"""The allocation game of Deal or No Deal: shares, utilities, envy-freeness, Pareto, best.

Two players split item counts ``c``. A *share* is the vector of units one player gets;
the other gets ``c - share``. Utilities are integer dot products, so every test here is
exact. Envy-freeness follows Definition 7 with ``>=`` ("at least as good"): each side
values its own share at least as much as the other's, under its own values. Pareto
optimality is taken over every allocation of the items (a no-deal is never optimal).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from accord.domains.deal_or_no_deal.load import Datapoint

Vector = tuple[int, ...]

#: entries per (counts, values, values) cache: the metrics of one pass over the test split
#: ask for ~6,000 keys (each datapoint's true valuation and every valuation in the beliefs'
#: supports); 4,096 made the caches thrash
_CACHE = 65_536


@lru_cache(maxsize=256)
def allocations(counts: Vector) -> tuple[Vector, ...]:
    """Every share one player can receive, in lexicographic order."""
    return tuple(itertools.product(*(range(c + 1) for c in counts)))


def complement(counts: Sequence[int], share: Sequence[int]) -> Vector:
    """What the other player gets when one receives ``share``."""
    return tuple(c - s for c, s in zip(counts, share, strict=True))


def utility(values: Sequence[int], share: Sequence[int]) -> int:
    """Points a player with per-unit ``values`` gets from ``share``."""
    return sum(v * s for v, s in zip(values, share, strict=True))


def check_share(counts: Sequence[int], share: Sequence[int]) -> None:
    """Raise ``ValueError`` unless ``share`` is a valid share of ``counts``."""
    if len(share) != len(counts):
        raise ValueError(f"share {tuple(share)} has {len(share)} items, expected {len(counts)}")
    for i, (c, s) in enumerate(zip(counts, share, strict=True)):
        if not 0 <= s <= c:
            raise ValueError(f"share {tuple(share)}: item {i} must be within 0..{c}, got {s}")


def envy_free_for(values: Sequence[int], own: Sequence[int], other: Sequence[int]) -> bool:
    """True when a player with ``values`` does not envy ``other`` for ``own``."""
    return utility(values, own) >= utility(values, other)


def is_envy_free(counts: Sequence[int], alice: Sequence[int], bob: Sequence[int],
                 alice_share: Sequence[int]) -> bool:
    """Neither side prefers the other's share (Definition 7, ``>=``)."""
    bob_share = complement(counts, alice_share)
    return (envy_free_for(alice, alice_share, bob_share)
            and envy_free_for(bob, bob_share, alice_share))


def scores(counts: Sequence[int], alice: Sequence[int], bob: Sequence[int],
           alice_share: Sequence[int]) -> tuple[int, int]:
    """``(alice points, bob points)`` for the allocation giving alice ``alice_share``."""
    return utility(alice, alice_share), utility(bob, complement(counts, alice_share))


@lru_cache(maxsize=_CACHE)
def _frontier(counts: Vector, alice: Vector, bob: Vector) -> frozenset[tuple[int, int]]:
    pts = sorted({scores(counts, alice, bob, a) for a in allocations(counts)}, reverse=True)
    # one sweep, best alice first (then best bob): a point is undominated when its bob
    # score beats every point before it (O(n log n); the pairwise test was O(n^2))
    front: set[tuple[int, int]] = set()
    top = None
    for p in pts:
        if top is None or p[1] > top:
            front.add(p)
            top = p[1]
    return frozenset(front)


def is_pareto_optimal(counts: Sequence[int], alice: Sequence[int], bob: Sequence[int],
                      alice_share: Sequence[int]) -> bool:
    """No allocation gives both at least as much and one strictly more (Definition 8)."""
    front = _frontier(tuple(counts), tuple(alice), tuple(bob))
    return scores(counts, alice, bob, alice_share) in front


@lru_cache(maxsize=_CACHE)
def envy_free_allocations(counts: Vector, alice: Vector, bob: Vector) -> tuple[Vector, ...]:
    """Alice's shares of every envy-free allocation."""
    return tuple(a for a in allocations(counts) if is_envy_free(counts, alice, bob, a))


def admits_envy_free(counts: Sequence[int], alice: Sequence[int], bob: Sequence[int]) -> bool:
    """True when some allocation is envy-free."""
    return bool(envy_free_allocations(tuple(counts), tuple(alice), tuple(bob)))


@lru_cache(maxsize=_CACHE)
def best_allocations(counts: Vector, alice: Vector, bob: Vector) -> tuple[Vector, ...]:
    """Alice's shares of the envy-free, Pareto-optimal allocations with the largest total.

    This is the set L*(v) of Definition 12 (envy-free allocations maximising the total):
    with a common total value, an allocation that Pareto-dominates an envy-free one is
    envy-free too, so the total-maximising envy-free allocations are Pareto-optimal.
    Empty when no allocation is envy-free.
    """
    ef = [a for a in envy_free_allocations(counts, alice, bob)
          if is_pareto_optimal(counts, alice, bob, a)]
    if not ef:
        return ()
    top = max(sum(scores(counts, alice, bob, a)) for a in ef)
    return tuple(a for a in ef if sum(scores(counts, alice, bob, a)) == top)


@dataclass(frozen=True, slots=True)
class Best:
    """The best allocation of a datapoint and the two scores it gives."""

    alice_share: Vector
    alice: int
    bob: int

    @property
    def total(self) -> int:
        """Sum of both scores."""
        return self.alice + self.bob


BestRule = Literal["authors", "even"]
"""How :func:`best` picks among several best allocations (see :data:`BEST_RULES`)."""

BEST_RULES: dict[str, str] = {
    "authors": "the first in the authors' enumeration order: Alice's item counts ascending, "
               "lexicographically (seed 003's Best row)",
    "even": "the most even split (the larger smaller score), then the first in that order",
}
"""The tie rules of :func:`best`, each with the sentence that names it in reports."""


def best(counts: Sequence[int], alice: Sequence[int], bob: Sequence[int],
         rule: BestRule = "authors") -> Best | None:
    """One best allocation, or ``None`` when none is envy-free.

    Several allocations can share the maximum total with different splits. ``rule``
    ``authors`` (default) takes the first in the enumeration order of the seed's code -
    Alice's shares ascending lexicographically - which reproduces the seed's Best row
    (5.82 / 6.66 on its 44 datapoints); ``even`` takes the larger smaller score (the more
    even split, 5.98 / 6.50 there), then the first share in that order.
    """
    if rule not in BEST_RULES:
        raise ValueError(f"unknown best rule {rule!r}; choose one of {', '.join(BEST_RULES)}")
    cands = best_allocations(tuple(counts), tuple(alice), tuple(bob))
    if not cands:
        return None
    if rule == "authors":
        pick = min(cands)
    else:
        pick = max(sorted(cands), key=lambda a: min(scores(counts, alice, bob, a)))
    ua, ub = scores(counts, alice, bob, pick)
    return Best(pick, ua, ub)


def difficulty(alice: Sequence[int], bob: Sequence[int]) -> int:
    """Definition 11: minus the l1 distance between the two value vectors (larger = harder)."""
    return -sum(abs(a - b) for a, b in zip(alice, bob, strict=True))


def datapoint_difficulty(dp: Datapoint) -> int:
    """Difficulty of a datapoint."""
    return difficulty(dp.alice, dp.bob)


def datapoint_admits_envy_free(dp: Datapoint) -> bool:
    """True when the datapoint has an envy-free allocation."""
    return admits_envy_free(dp.counts, dp.alice, dp.bob)


def hardest(points: Iterable[Datapoint], k: int | None, *,
            envy_free_only: bool = True) -> list[Datapoint]:
    """The ``k`` hardest datapoints (all when ``k`` is ``None``), hardest first.

    With ``envy_free_only`` (default) only datapoints that admit an envy-free allocation are
    ranked. Equal difficulty keeps file order (the sort is stable). Every datapoint is
    ranked here; section 5.4's selection (the K most difficult among those that survive
    Table 9's exclusions, then those with an envy-free allocation), which ``--hardest``
    uses, is :func:`accord.domains.deal_or_no_deal.selection.seed_hardest`.
    """
    pool = [d for d in points if not envy_free_only or datapoint_admits_envy_free(d)]
    pool.sort(key=lambda d: -datapoint_difficulty(d))
    return pool if k is None else pool[:k]
