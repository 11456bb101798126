"""The protocol interface: an explicit, pure state machine (DESIGN.md principle 2).

A protocol says who moves (``to_move``), what each mover sees (``observe``),
whether a move is legal (``validate``), how moves change the state (``apply``)
and when the episode ends (``termination``). It never does I/O and never parses
text. :func:`accord.protocols.engine.run_episode` drives any protocol.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from accord.core.frozen import fast_init
from accord.core.moves import Malformed, Move

S = TypeVar("S")

Status = Literal["agreement", "completed", "no_deal", "error"]


@dataclass(frozen=True, slots=True)
class Invalid:
    """Why a move was refused: a machine-readable ``reason`` and ``feedback`` for the mover."""

    reason: str
    feedback: str
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Termination:
    """How an episode ended.

    ``status`` is ``agreement``, ``completed``, ``no_deal`` or ``error``: ``agreement`` when
    the parties agreed, ``completed`` when a game was played to its outcome (nobody agreed
    to anything; the game's metrics say whether the players coordinated). ``reason`` is
    ``None`` for an agreement or a completed game, otherwise ``walk``, ``bound_hit``,
    ``stagnation``, ``error``, ``judge`` or a domain reason; ``who`` names the party
    responsible, when there is one.
    """

    status: Status
    reason: str | None = None
    who: str | None = None
    detail: str | None = None


@fast_init  # built once per round
@dataclass(frozen=True, slots=True)
class Progress:
    """Counters the engine checks against its bounds."""

    round: int
    offers: int = 0
    #: the next move is a new offer (so an exhausted offer budget ends the episode now)
    offer_due: bool = False


@dataclass(frozen=True, slots=True)
class Note:
    """A protocol note for the trajectory log (stagnation fired, mediator asked, ...)."""

    name: str
    party: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Observation:
    """What one role sees when asked to move.

    Protocols subclass this. The engine fills ``max_attempts`` on every observation it
    hands an agent (the turn's budget, ``Bounds.max_retries + 1``: the one source an agent
    should quote, e.g. "attempt 2 of 6", or bound its own inner retries by), and
    ``feedback`` and ``attempt`` when a previous attempt in the same turn was invalid
    (``attempt`` counts from 1).
    """

    role: str
    round: int
    legal: tuple[str, ...] = ()
    feedback: Invalid | None = None
    attempt: int = 1
    max_attempts: int | None = None


class Protocol(ABC, Generic[S]):
    """A turn-taking state machine over typed moves."""

    #: the party roles, in their configured order
    parties: tuple[str, ...]

    @abstractmethod
    def initial_state(self) -> S:
        """The state before the first move."""

    @abstractmethod
    def to_move(self, state: S) -> Sequence[str]:
        """Roles that must move now; several roles are asked concurrently."""

    @abstractmethod
    def observe(self, state: S, role: str) -> Observation:
        """The role's projection of the state (it never holds another party's private data)."""

    @abstractmethod
    def validate(self, state: S, role: str, move: Move) -> Invalid | None:
        """``None`` if the move is legal now, else why not."""

    def malformed(self, state: S, role: str, move: Malformed) -> Invalid | None:
        """The refusal of an unparseable reply (called by the engine, never by ``validate``).

        The default refuses it with the parser's own reason, feedback and details, so the
        model is asked again with the parser's feedback. Override only where a protocol
        deliberately treats a ``Malformed`` reply differently (task exchange forwards raw
        text on its unchecked turns); :func:`accord.protocols.engine.check_move` is the one
        place that routes a ``Malformed`` move here instead of to :meth:`validate`.
        """
        return Invalid(move.reason, move.feedback or "Your reply could not be read.",
                       dict(move.details))

    @abstractmethod
    def apply(self, state: S, moves: Mapping[str, Move]) -> tuple[S, list[Note]]:
        """The next state after the (valid) moves of the roles in ``to_move``."""

    @abstractmethod
    def termination(self, state: S) -> Termination | None:
        """How the episode ended, or ``None`` while it continues."""

    @abstractmethod
    def progress(self, state: S) -> Progress:
        """Round and offer counters for the engine's bounds."""

    def round_of(self, state: S) -> int:
        """``progress(state).round``: all the engine needs each round when no offer cap or
        wall clock bounds the episode. Override it where the round is at hand (it is
        asked every round; a :class:`Progress` need not be built for it)."""
        return self.progress(state).round

    def fused(self, agents: Mapping[str, Any], max_rounds: int | None
              ) -> Callable[[S, list[Any], float], S] | None:
        """A loop that plays this episode's routine rounds in one frame, or ``None`` (the
        default: every round goes through the engine's general loop).

        The engine asks once per episode, only when nothing outside the protocol could tell
        the difference (code agents without notes, the rule judge, no wall clock or offer
        cap). The loop takes the state, the log's event list and the episode's start on
        ``time.monotonic``; it plays rounds while it can, appending each round's events as
        the general loop would, and returns the state it reached (the same object when it
        played none), leaving the next round to the general loop. ``max_rounds`` is the
        engine's round bound: no round beyond it may start.
        """
        return None

    @abstractmethod
    def result(self, state: S, termination: Termination) -> dict[str, Any]:
        """The structured outcome record (agreement artefact, no-deal record, payoffs)."""

    def public_view(self, state: S) -> dict[str, Any]:
        """What a judge or mediator may see: offers and trajectory, never private data."""
        return {"progress": self.progress(state).round}

    def flags(self, state: S, termination: Termination) -> dict[str, Any]:
        """Post-hoc flags for the record (e.g. ``accepted_below_batna``)."""
        return {}
