"""Data-set statistics of Deal or No Deal: envy-free availability, best and human outcomes.

:func:`dataset_stats` is what ``accord dond stats`` prints for any list of datapoints:

- ``best`` and ``human``: the Best and Human rows of Table 10, both averaged over the
  datapoints that admit an envy-free allocation (the seed's 44 of 50); ``best`` uses
  ``best_rule`` to choose among several best allocations (see :data:`~.rules.BEST_RULES`);
- ``human_all``: the humans' outcome over every datapoint;
- ``table9``: Table 9 computed the authors' way (:mod:`.table9`), with ``exclusions``
  counting what its three exclusions removed;
- ``difficulty_table``: the human outcome per difficulty level present, over every
  datapoint (no exclusions), cumulative unless asked otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from accord.domains.deal_or_no_deal.human_table import exclusion_counts, table9
from accord.domains.deal_or_no_deal.load import Datapoint
from accord.domains.deal_or_no_deal.metrics import (
    OUTCOME_KEYS,
    best_baseline,
    human_difficulty_table,
    human_metrics,
    mean_of,
)
from accord.domains.deal_or_no_deal.rules import BEST_RULES, BestRule, datapoint_admits_envy_free

HUMAN_KEYS: tuple[str, ...] = ("rounds", *OUTCOME_KEYS)
"""Columns of the Human row: Table 10's, with rounds = ceil(utterances / 2)."""


def human_row(points: Sequence[Datapoint]) -> dict[str, float | None]:
    """Mean human rounds, agreement, scores, PO, EF and total over ``points``."""
    return mean_of([human_metrics(d) for d in points], HUMAN_KEYS)


def dataset_stats(points: Sequence[Datapoint], *, cumulative: bool = True,
                  best_rule: BestRule = "authors") -> dict[str, Any]:
    """``datapoints``, ``with_envy_free``, ``best_rule``, ``best``, ``human``, ``human_all``,
    ``exclusions``, ``table9`` and ``difficulty_table`` (see the module docstring)."""
    if best_rule not in BEST_RULES:
        raise ValueError(f"unknown best rule {best_rule!r}; choose one of "
                         f"{', '.join(BEST_RULES)}")
    with_ef = [d for d in points if datapoint_admits_envy_free(d)]
    return {
        "datapoints": len(points),
        "with_envy_free": len(with_ef),
        "best_rule": {"name": best_rule, "rule": BEST_RULES[best_rule]},
        "best": best_baseline(with_ef, best_rule),
        "human": human_row(with_ef),
        "human_all": human_row(points),
        "exclusions": exclusion_counts(points),
        "table9": table9(points),
        "difficulty_table": human_difficulty_table(points, cumulative=cumulative),
    }
