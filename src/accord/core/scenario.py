"""Parties and multi-issue negotiation scenarios (frozen data, DESIGN.md principle 1)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from accord.core.discount import check_discount, discounted, multipliers
from accord.core.moves import Package
from accord.core.outcomes import OutcomeSpace
from accord.core.pareto import pareto_mask
from accord.core.solutions import nash_point
from accord.core.utility import UtilityFunction


@dataclass(frozen=True)
class PartyBrief:
    """What a game tells one party in words, beyond its utility: its private
    ``instructions`` (LLM-Deliberation's individual instructions) and the ``persona`` its
    negotiator plays (an incentive such as ``cooperative`` or ``greedy``; ``target`` names
    the party a targeted persona works against). Private to the party, like its utility."""

    instructions: str = ""
    persona: str = ""
    target: str = ""


@dataclass(frozen=True)
class Party:
    """A stakeholder: its private utility and its BATNA in the same units (and, for games
    that brief their parties in words, its :class:`PartyBrief`).

    ``discount`` (delta, in (0, 1]; 1 = none) discounts both by time as Genius does:
    worth ``u * delta ** t`` at relative time ``t`` (see :mod:`accord.core.discount`).
    """

    name: str
    utility: UtilityFunction
    batna: float
    discount: float = 1.0
    brief: PartyBrief | None = None

    def __post_init__(self) -> None:
        try:
            check_discount(self.discount)
        except ValueError as exc:
            raise ValueError(f"party {self.name!r}: {exc}") from None

    def accepts(self, package: Package) -> bool:
        """Whether ``package`` is at least as good as this party's BATNA (at any one time:
        both are discounted alike)."""
        return self.utility(package) >= self.batna

    def utility_at(self, package: Package, t: float) -> float:
        """The utility of ``package`` agreed at relative time ``t``."""
        return discounted(self.utility(package), self.discount, t)

    def batna_at(self, t: float) -> float:
        """The BATNA at relative time ``t`` (Genius discounts the reservation value too)."""
        return discounted(self.batna, self.discount, t)


@dataclass(frozen=True)
class Scenario:
    """An outcome space and the parties negotiating over it."""

    name: str
    space: OutcomeSpace
    parties: tuple[Party, ...]
    description: str = ""
    source: str = field(default="", compare=False)
    #: public instructions every party's negotiator reads (a game's shared briefing)
    instructions: str = ""
    #: the scenario's protocol rules: defaults of the bargaining parameters
    #: (``acceptance``, ``opener``, ``thresholds``, ...) that explicit parameters override
    rules: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        names = [p.name for p in self.parties]
        if len(names) < 2:
            raise ValueError(f"scenario {self.name!r} needs at least two parties")
        if len(set(names)) != len(names):
            raise ValueError(f"scenario {self.name!r} has duplicate party names {names}")

    @property
    def party_names(self) -> tuple[str, ...]:
        """Party names in file order."""
        return tuple(p.name for p in self.parties)

    def party(self, name: str) -> Party:
        """The party called ``name``."""
        for p in self.parties:
            if p.name == name:
                return p
        raise KeyError(f"unknown party {name!r}; parties: {list(self.party_names)}")

    @cached_property
    def utility_matrix(self) -> np.ndarray:
        """``(outcomes, parties)`` array of every party's utility for every outcome."""
        u = np.stack([p.utility.values(self.space) for p in self.parties], axis=1)
        u.setflags(write=False)
        return u

    @cached_property
    def batnas(self) -> np.ndarray:
        """BATNA per party, in party order."""
        return np.array([p.batna for p in self.parties], dtype=np.float64)

    @cached_property
    def discounts(self) -> np.ndarray:
        """Discount factor per party, in party order (1 = undiscounted)."""
        return np.array([p.discount for p in self.parties], dtype=np.float64)

    @property
    def discounted(self) -> bool:
        """Whether any party's utility is discounted by time."""
        return any(p.discount < 1.0 for p in self.parties)

    def multipliers_at(self, t: float) -> np.ndarray:
        """Per party, the factor ``delta ** t`` its utilities and BATNA take at time ``t``."""
        return multipliers(self.discounts, t)

    @cached_property
    def pareto_frontier(self) -> np.ndarray:
        """Utility vectors of the Pareto-optimal outcomes (computed once per scenario)."""
        front = self.utility_matrix[pareto_mask(self.utility_matrix)]
        front.setflags(write=False)
        return front

    @cached_property
    def nash_index(self) -> int | None:
        """Outcome index of the Nash bargaining point over BATNAs (once per scenario)."""
        return nash_point(self.utility_matrix, self.batnas)
