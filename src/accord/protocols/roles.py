"""Observations of the negotiation's roles that are not parties (seed 002).

The mediator gets :class:`MediatorObservation`, which holds no utility at all; a Stagnation
Scorer gets :class:`StagnationObservation`: the last K rounds' offers, again without
utilities. Both are importable from :mod:`accord.protocols.negotiation` as well; they live
here so that a run without a mediator or a scorer does not create their classes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from accord.core.moves import Package
from accord.core.outcomes import OutcomeSpace
from accord.protocols.base import Observation
from accord.protocols.negotiation import OfferRecord


@dataclass(frozen=True, slots=True)
class MediatorObservation(Observation):
    """What a mediator sees: the issues, the offers and the trajectory, never utilities."""

    space: OutcomeSpace | None = None
    parties: tuple[str, ...] = ()
    history: Sequence[OfferRecord] = ()
    latest: Mapping[str, Package] = field(default_factory=dict)
    messages: tuple[tuple[int, str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class StagnationObservation(Observation):
    """What a Stagnation Scorer sees (seed 002): the last K rounds' offers and the rule.

    ``offers`` are public records only (each proposer's offer before the window is
    included so every move in it can be compared); no utility, no BATNA.
    """

    space: OutcomeSpace | None = None
    parties: tuple[str, ...] = ()
    offers: tuple[OfferRecord, ...] = ()
    rounds: int = 3
    epsilon: float = 0.0
    measure: str = "issues"


__all__ = ["MediatorObservation", "StagnationObservation"]
