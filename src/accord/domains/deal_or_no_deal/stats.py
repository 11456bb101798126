"""Data-set statistics of Deal or No Deal: envy-free availability, best and human outcomes.

:func:`dataset_stats` is what ``accord dond stats`` prints: how many datapoints there are,
how many admit an envy-free allocation, the mean best outcome over those (alice = the side
whose view the file gives first), the humans' own outcome, and the human outcome by
difficulty in the layout of Table 9.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from accord.domains.deal_or_no_deal.dataset import Datapoint
from accord.domains.deal_or_no_deal.metrics import (
    best_baseline,
    human_baseline,
    human_difficulty_table,
)
from accord.domains.deal_or_no_deal.rules import datapoint_admits_envy_free


def dataset_stats(points: Sequence[Datapoint], *, cumulative: bool = True) -> dict[str, Any]:
    """``datapoints``, ``with_envy_free``, ``best``, ``human`` and ``difficulty_table``."""
    return {
        "datapoints": len(points),
        "with_envy_free": sum(1 for d in points if datapoint_admits_envy_free(d)),
        "best": best_baseline(points),
        "human": human_baseline(points),
        "difficulty_table": human_difficulty_table(points, cumulative=cumulative),
    }
