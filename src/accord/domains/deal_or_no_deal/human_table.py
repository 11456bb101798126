"""Table 9 of seed 003: the humans' outcomes by difficulty, the way the authors computed it.

Difficulty (Definition 11) is minus the l1 distance between the two value vectors. The
authors' code ranks only the datapoints that survive three exclusions, applied in file
order (:func:`exclusions`):

``repetition``
    counts and both value vectors equal those of an earlier kept datapoint;
``all_even``
    every item count is even ("very easy envy-free cases": halving each count is envy-free);
``max_covered``
    both players value the same item highest (first index of the largest unit value) and,
    for each player, the other two items together (count-weighted) are worth at least the
    unit value of that item.

Table 9's columns are cumulative: the column for level ``d`` covers the kept datapoints
with difficulty ``>= d`` (13, 27, 57, ... datapoints on the seed's 526). A datapoint
counts as an agreement when its human output is an allocation; envy-freeness and Pareto
optimality are those of that allocation (a failed negotiation is neither). Rates are
exact fractions, turned into floats only at the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Literal

from accord.domains.deal_or_no_deal.load import Datapoint
from accord.domains.deal_or_no_deal.metrics import human_metrics
from accord.domains.deal_or_no_deal.rules import datapoint_difficulty

Exclusion = Literal["repetition", "all_even", "max_covered"]
EXCLUSIONS: tuple[Exclusion, ...] = ("repetition", "all_even", "max_covered")
"""The authors' exclusions, in the order they are tested."""

LEVELS: tuple[int, ...] = tuple(range(-2, -12, -1))
"""Table 9's difficulty columns, -2 (hardest) to -11."""

RATES: tuple[str, ...] = ("agreement", "envy_free", "pareto_optimal",
                          "envy_free_and_pareto_optimal")
"""Table 9's four rows, in print order."""


def all_even(counts: Sequence[int]) -> bool:
    """Every item count is even (exclusion ``all_even``)."""
    return all(c % 2 == 0 for c in counts)


def _covers(counts: Sequence[int], values: Sequence[int], top: int) -> bool:
    rest = sum(c * v for k, (c, v) in enumerate(zip(counts, values, strict=True)) if k != top)
    return rest >= values[top]


def max_covered(counts: Sequence[int], alice: Sequence[int], bob: Sequence[int]) -> bool:
    """Exclusion ``max_covered``: a shared favourite item that each side's rest outweighs."""
    top = list(alice).index(max(alice))
    if list(bob).index(max(bob)) != top:
        return False
    return _covers(counts, alice, top) and _covers(counts, bob, top)


def exclusions(points: Sequence[Datapoint]) -> list[Exclusion | None]:
    """The exclusion that removes each datapoint (``None`` when it is kept), in file order."""
    kept: set[tuple[tuple[int, ...], ...]] = set()
    out: list[Exclusion | None] = []
    for d in points:
        key = (d.counts, d.alice, d.bob)
        reason: Exclusion | None
        if key in kept:
            reason = "repetition"
        elif all_even(d.counts):
            reason = "all_even"
        elif max_covered(d.counts, d.alice, d.bob):
            reason = "max_covered"
        else:
            reason = None
            kept.add(key)
        out.append(reason)
    return out


def ranked_pool(points: Sequence[Datapoint]) -> list[Datapoint]:
    """The datapoints that survive the exclusions (the ones Table 9 and ``--hardest`` rank).

    An excluded datapoint's key is never "kept", but a later twin of it is excluded by the
    same value-only test, so the result does not depend on how repetitions are counted.
    """
    return [d for d, why in zip(points, exclusions(points), strict=True) if why is None]


def exclusion_counts(points: Sequence[Datapoint]) -> dict[str, int]:
    """How many datapoints each exclusion removes, and how many are ``kept``."""
    whys = exclusions(points)
    return {**{e: whys.count(e) for e in EXCLUSIONS}, "kept": whys.count(None)}


def _rate(hits: int, n: int) -> float | None:
    return None if n == 0 else float(Fraction(hits, n))


def table9(points: Sequence[Datapoint], levels: Sequence[int] = LEVELS) -> list[dict[str, Any]]:
    """Table 9 from any datapoints: one object per level of ``levels``.

    Each object is ``{"difficulty", "datapoints", "agreement", "envy_free",
    "pareto_optimal", "envy_free_and_pareto_optimal"}`` over the kept datapoints with
    difficulty ``>= level``; rates are ``None`` for an empty column.
    """
    rows = [(datapoint_difficulty(d), human_metrics(d)) for d in ranked_pool(points)]
    table: list[dict[str, Any]] = []
    for lvl in levels:
        sel = [m for dif, m in rows if dif >= lvl]
        n = len(sel)
        ef = [bool(m["envy_free"]) for m in sel]
        po = [bool(m["pareto_optimal"]) for m in sel]
        table.append({
            "difficulty": lvl, "datapoints": n,
            "agreement": _rate(sum(bool(m["agreement"]) for m in sel), n),
            "envy_free": _rate(sum(ef), n),
            "pareto_optimal": _rate(sum(po), n),
            "envy_free_and_pareto_optimal": _rate(sum(e and p for e, p in zip(
                ef, po, strict=True)), n),
        })
    return table
