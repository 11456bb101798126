"""Parties and multi-issue negotiation scenarios (frozen data, DESIGN.md principle 1)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

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
    that brief their parties in words, its :class:`PartyBrief`)."""

    name: str
    utility: UtilityFunction
    batna: float
    brief: PartyBrief | None = None

    def accepts(self, package: Package) -> bool:
        """Whether ``package`` is at least as good as this party's BATNA."""
        return self.utility(package) >= self.batna


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
    def pareto_frontier(self) -> np.ndarray:
        """Utility vectors of the Pareto-optimal outcomes (computed once per scenario)."""
        front = self.utility_matrix[pareto_mask(self.utility_matrix)]
        front.setflags(write=False)
        return front

    @cached_property
    def nash_index(self) -> int | None:
        """Outcome index of the Nash bargaining point over BATNAs (once per scenario)."""
        return nash_point(self.utility_matrix, self.batnas)
