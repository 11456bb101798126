"""Observations and records of multi-issue negotiations (seed 002).

:class:`NegotiationObservation` is a party's projection of the state: public offers,
messages and the issue tracker, plus *its own* utility and BATNA and nothing private
of anyone else. The mediator gets :class:`MediatorObservation`, which holds no
utility at all. A Stagnation Scorer gets :class:`StagnationObservation`: the last K
rounds' offers, again without utilities (both defined in :mod:`accord.protocols.roles`,
and importable from here).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from accord.core.discount import discount_multiplier, relative_time
from accord.core.frozen import fast_init
from accord.core.moves import Package, Value
from accord.core.outcomes import OutcomeSpace
from accord.core.scenario import PartyBrief
from accord.core.utility import UtilityFunction
from accord.protocols.base import Observation

if TYPE_CHECKING:  # defined in accord.protocols.roles, imported from here on first use
    from accord.protocols.roles import MediatorObservation as MediatorObservation
    from accord.protocols.roles import StagnationObservation as StagnationObservation


@fast_init
@dataclass(frozen=True, slots=True)
class OfferRecord:
    """A public offer: who made it, when, and the package (with its outcome index)."""

    round: int
    party: str
    package: Package
    index: int
    source: str = "offer"  # offer | counter | mediator

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"round": self.round, "party": self.party, "package": dict(self.package),
                "source": self.source}


@dataclass(frozen=True, slots=True)
class GameView:
    """What one party is told of a game's rules and briefing, built once per episode.

    ``k`` yes votes pass a deal (the proposer's offer is its own yes), each party in
    ``required`` must be among them, a yes counts only if the deal meets the voter's
    minimum (``minimum``: this party's own, ``None`` without a threshold rule), a passed
    deal binds the accepters or ``all`` (``binding``), ``opener`` proposes first and last,
    ``bonus`` is what this party gains when every party agrees.
    ``instructions`` are the game's public briefing; ``brief`` is this party's private one.
    """

    k: int
    required: tuple[str, ...] = ()
    opener: str | None = None
    minimum: float | None = None
    binding: str = "accepters"
    instructions: str = ""
    brief: PartyBrief | None = None
    bonus: float | None = None


@fast_init  # built once per turn
@dataclass(frozen=True, slots=True)
class NegotiationObservation(Observation):
    """What a party sees when asked to move in an alternating-offers negotiation."""

    phase: str = "propose"  # propose | respond
    max_rounds: int = 0
    space: OutcomeSpace | None = None
    parties: tuple[str, ...] = ()
    proposer: str | None = None
    current_offer: Package | None = None
    current_index: int | None = None
    history: Sequence[OfferRecord] = ()
    messages: tuple[tuple[int, str, str], ...] = ()
    my_last_offer: Package | None = None
    suggestion: Package | None = None
    #: private to this party
    utility: UtilityFunction | None = None
    batna: float = 0.0
    #: this party's time discount (delta; 1 = none): utility and BATNA are worth
    #: ``u * delta ** t`` at Genius's relative time ``t`` (:attr:`discount_time`)
    discount: float = 1.0
    #: the game's rules and briefing as told to this party (None: plain k of n, no texts)
    game: GameView | None = None

    @property
    def time(self) -> float:
        """Relative time in [0, 1]: 0 at the first round, 1 at the last (the concession
        strategies' clock)."""
        if self.max_rounds <= 1:
            return 1.0
        return min(1.0, (self.round - 1) / (self.max_rounds - 1))

    @property
    def discount_time(self) -> float:
        """Genius's relative time of this round, the one discounting uses:
        ``round / (max_rounds + 1)`` (:func:`accord.core.discount.relative_time`)."""
        return relative_time(self.round, self.max_rounds)

    @property
    def discount_now(self) -> float:
        """``delta ** t`` now: what an agreement in this round is worth per unit of
        undiscounted utility (1.0 without a discount)."""
        return discount_multiplier(self.discount, self.discount_time)

    @property
    def waiting_discount(self) -> float:
        """``delta ** (t(next round) - t(now))``: the factor one more round costs, by which
        a package obtained next round is worth less than the same package now."""
        if self.discount >= 1.0:
            return 1.0
        later = relative_time(self.round + 1, self.max_rounds)
        return discount_multiplier(self.discount, later - self.discount_time)

    def discounted(self, utility: float) -> float:
        """An undiscounted utility (or the BATNA) as worth in this round."""
        return utility * self.discount_now

    def issue_values(self) -> dict[str, tuple[Value, ...]]:
        """The public issue set: ``{issue: values}``."""
        assert self.space is not None
        return {i.name: i.values for i in self.space.issues}

    def last_offer_of(self, party: str) -> OfferRecord | None:
        """The latest offer ``party`` made, if any."""
        for rec in reversed(self.history):
            if rec.party == party:
                return rec
        return None


def __getattr__(name: str) -> Any:
    """The mediator's and the Stagnation Scorer's observations, defined in
    :mod:`accord.protocols.roles` on first use (creating a dataclass costs ~1 ms at start-up,
    and a run without those roles never needs them); importable from here as before."""
    if name in ("MediatorObservation", "StagnationObservation"):
        from accord.protocols import roles

        return getattr(roles, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
