"""The Deal-or-No-Deal negotiation as an accord protocol.

Two players (``alice``, ``bob``) take turns. A turn is one move:

* ``Offer(package)`` - a proposal of the mover's *own* share, ``{"book": x, "hat": y,
  "ball": z}``; made while the partner's offer is on the table it is a counter-offer;
* ``Accept`` - take the partner's offer on the table (agreement, both shares recorded);
* ``Reject(counter=Offer | None)`` - refuse the partner's offer, optionally countering;
* ``Message(text)`` - talk; an offer on the table stays there;
* ``Walk`` - leave without a deal.

A round is one turn of each player; after ``rounds`` rounds (default 20) the episode ends
without a deal. With ``stagnation_rounds`` K > 0, a player whose last K turns were all
messages (no offer, no answer, no walk) ends it without a deal too (seed 002's stagnation
rule, :func:`~accord.protocols.stagnation.talk_streaks`). Observations carry the mover's
own values only, never the partner's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from accord.core.moves import Accept, Message, Move, Offer, Reject, Walk
from accord.domains.deal_or_no_deal.deal_tag import package_of, share_of
from accord.domains.deal_or_no_deal.load import ITEMS
from accord.domains.deal_or_no_deal.rules import complement, utility
from accord.protocols.base import Invalid, Note, Observation, Progress, Protocol, Termination
from accord.protocols.stagnation import talk_detail, talk_streaks

Vector = tuple[int, ...]
ROLES: tuple[str, str] = ("alice", "bob")


@dataclass(frozen=True, slots=True)
class DondObservation(Observation):
    """What a player sees: counts, its own values, the table and the public history.

    ``offer`` is the partner's pending proposal (what the partner would take) and
    ``offer_for_you`` what that leaves you; ``my_offer`` is your own pending proposal.
    ``history`` holds public events (``round``, ``role``, ``kind``, ``share`` for offers,
    ``rejected`` when a move refused the other's offer, ``text``). ``last_turn`` is true on
    the final turn of the episode.
    """

    partner: str = ""
    items: tuple[str, ...] = ITEMS
    counts: Vector = ()
    values: Vector = ()
    offer: Mapping[str, int] | None = None
    offer_for_you: Mapping[str, int] | None = None
    my_offer: Mapping[str, int] | None = None
    history: tuple[Mapping[str, Any], ...] = ()
    max_rounds: int = 20
    last_turn: bool = False


@dataclass(frozen=True, slots=True)
class DondState:
    """Protocol state: moves made, the offer on the table, history and the ending."""

    turn: int = 0
    table: tuple[str, Vector] | None = None
    history: tuple[Mapping[str, Any], ...] = ()
    agreement: tuple[Vector, Vector] | None = None
    walked: str | None = None
    offers: int = 0
    #: consecutive message-only turns per player; ``stalled``: who reached K
    talk: Mapping[str, int] = field(default_factory=dict)
    stalled: str | None = None


class DondProtocol(Protocol[DondState]):
    """Alternating proposals of one's own share over item counts, at most ``rounds`` rounds."""

    parties = ROLES

    def __init__(self, counts: Sequence[int], values: Mapping[str, Sequence[int]], *,
                 rounds: int = 20, first: str = "alice", items: Sequence[str] = ITEMS,
                 scenario: str = "", stagnation_rounds: int = 0) -> None:
        if rounds < 1:
            raise ValueError(f"rounds must be at least 1, got {rounds}")
        if first not in ROLES:
            raise ValueError(f"first must be one of {ROLES}, got {first!r}")
        if set(values) != set(ROLES):
            raise ValueError(f"values must be given for {ROLES}, got {sorted(values)}")
        self.counts: Vector = tuple(int(c) for c in counts)
        self.values: dict[str, Vector] = {r: tuple(int(v) for v in values[r]) for r in ROLES}
        for role, vals in self.values.items():
            if len(vals) != len(self.counts):
                raise ValueError(f"{role} has {len(vals)} values for {len(self.counts)} items")
        if len(items) != len(self.counts):
            raise ValueError(f"{len(items)} item names for {len(self.counts)} item counts")
        self.items = tuple(items)
        self.rounds = rounds
        self.first = first
        self.scenario = scenario
        if stagnation_rounds < 0:
            raise ValueError(f"stagnation_rounds must be 0 (off) or more, got {stagnation_rounds}")
        self.stagnation_rounds = stagnation_rounds

    # -- turn structure ---------------------------------------------------------------
    def _other(self, role: str) -> str:
        return ROLES[1] if role == ROLES[0] else ROLES[0]

    def _mover(self, turn: int) -> str:
        return self.first if turn % 2 == 0 else self._other(self.first)

    def initial_state(self) -> DondState:
        """No moves, nothing on the table."""
        return DondState()

    def to_move(self, state: DondState) -> Sequence[str]:
        """The player whose turn it is."""
        return (self._mover(state.turn),)

    def progress(self, state: DondState) -> Progress:
        """Current round (the last one played once the episode has ended)."""
        turn = state.turn - 1 if self.termination(state) is not None else state.turn
        return Progress(round=max(turn, 0) // 2 + 1, offers=state.offers)

    # -- observation ----------------------------------------------------------------------
    def _legal(self, state: DondState, role: str) -> tuple[str, ...]:
        legal = ["offer", "message", "walk"]
        if state.table is not None and state.table[0] != role:
            legal[1:1] = ["accept", "reject"]
        return tuple(legal)

    def observe(self, state: DondState, role: str) -> DondObservation:
        """The role's view: its own values, the table from its side, public history."""
        partner = self._other(role)
        offer = for_you = mine = None
        if state.table is not None:
            who, share = state.table
            if who == partner:
                offer = package_of(share, self.items)
                for_you = package_of(complement(self.counts, share), self.items)
            else:
                mine = package_of(share, self.items)
        rnd = state.turn // 2 + 1
        return DondObservation(
            role=role, round=rnd, legal=self._legal(state, role), partner=partner,
            items=self.items, counts=self.counts, values=self.values[role], offer=offer,
            offer_for_you=for_you, my_offer=mine, history=state.history,
            max_rounds=self.rounds, last_turn=state.turn == 2 * self.rounds - 1)

    # -- validation -------------------------------------------------------------------
    def check_package(self, package: Mapping[str, Any]) -> Invalid | None:
        """Why a proposed package is not a valid share of the items, or ``None``."""
        unknown = [k for k in package if k not in self.items]
        if unknown:
            return Invalid("unknown_item", f"unknown item(s) {', '.join(map(repr, unknown))}; "
                           f"the items are {', '.join(self.items)}", {"unknown": unknown})
        missing = [i for i in self.items if i not in package]
        if missing:
            return Invalid("missing_item", f"the proposal must say how many of each item you "
                           f"take; missing {', '.join(missing)}", {"missing": missing})
        for item, count in zip(self.items, self.counts, strict=True):
            val = package[item]
            if isinstance(val, bool) or not isinstance(val, int):
                return Invalid("not_integer", f"{item} must be a whole number 0..{count}, got "
                               f"{val!r}", {"item": item})
            if not 0 <= val <= count:
                return Invalid("count_out_of_range", f"there are {count} {item}(s): you can "
                               f"take 0..{count}, not {val}", {"item": item, "got": val,
                                                                "max": count})
        return None

    def validate(self, state: DondState, role: str, move: Move) -> Invalid | None:
        """``None`` for a legal move, else a reason with targeted feedback."""
        theirs = state.table is not None and state.table[0] != role
        if isinstance(move, Offer):
            return self.check_package(move.package)
        if isinstance(move, Accept | Reject) and not theirs:
            what = "accept" if isinstance(move, Accept) else "reject"
            why = ("your own offer is on the table" if state.table is not None
                   else "no offer is on the table")
            return Invalid(f"nothing_to_{what}", f"you cannot {what} now: {why}; make an "
                           "offer or send a message instead")
        if isinstance(move, Reject) and move.counter is not None:
            return self.check_package(move.counter.package)
        if isinstance(move, Message) and not move.text.strip():
            return Invalid("empty_message", "a message needs some text")
        if isinstance(move, Accept | Reject | Message | Walk):
            return None
        return Invalid("illegal_move", f"{move.kind} is not a move in Deal or No Deal; use "
                       "offer, accept, reject, message or walk")

    # -- transitions ------------------------------------------------------------------
    def apply(self, state: DondState, moves: Mapping[str, Move]) -> tuple[DondState, list[Note]]:
        """Apply the mover's (validated) move."""
        role, move = next(iter(moves.items()))
        rnd = state.turn // 2 + 1
        theirs = state.table if state.table is not None and state.table[0] != role else None
        event: dict[str, Any] = {"round": rnd, "role": role, "kind": move.kind}
        new = replace(state, turn=state.turn + 1)
        notes: list[Note] = []
        if isinstance(move, Reject) and move.counter is not None:
            move = replace(move.counter, message=move.counter.message or move.message)
            event["kind"] = "offer"
        if isinstance(move, Offer):
            share = share_of(move.package, self.items)
            event["share"] = package_of(share, self.items)
            new = replace(new, table=(role, share), offers=state.offers + 1)
        elif isinstance(move, Accept) and theirs is not None:
            taker = theirs[1]
            alice = taker if theirs[0] == "alice" else complement(self.counts, taker)
            new = replace(new, agreement=(alice, complement(self.counts, alice)))
            notes.append(Note("agreement", role, {"alice": package_of(alice, self.items)}))
        elif isinstance(move, Reject):
            new = replace(new, table=None)
        elif isinstance(move, Walk):
            new = replace(new, walked=role, table=None)
            if move.reason:
                event["text"] = move.reason
        if theirs is not None and not isinstance(move, Accept | Message):
            event["rejected"] = package_of(theirs[1], self.items)
        text = getattr(move, "message", None) if not isinstance(move, Message) else move.text
        if text:
            event["text"] = text
        if self.stagnation_rounds > 0:
            talk = talk_streaks(state.talk, role, isinstance(move, Message))
            new = replace(new, talk=talk)
            if talk[role] >= self.stagnation_rounds and new.agreement is None:
                new = replace(new, stalled=role)
                notes.append(Note("stagnation", None, {"rule": "talk", "party": role,
                                                       "turns": talk[role]}))
        return replace(new, history=(*state.history, event)), notes

    def termination(self, state: DondState) -> Termination | None:
        """Agreement, a walk-out, or the round cap."""
        if state.agreement is not None:
            return Termination("agreement")
        if state.walked is not None:
            return Termination("no_deal", "walk", state.walked)
        if state.stalled is not None:
            return Termination("no_deal", "stagnation", state.stalled,
                               talk_detail(state.stalled, self.stagnation_rounds))
        if state.turn >= 2 * self.rounds:
            return Termination("no_deal", "max_rounds", None, f"{self.rounds} rounds")
        return None

    # -- records ----------------------------------------------------------------------
    def result(self, state: DondState, termination: Termination) -> dict[str, Any]:
        """Scenario, both shares when agreed, both scores (0 without a deal), counters."""
        shares = None
        scores = {r: 0 for r in ROLES}
        if state.agreement is not None:
            shares = {r: package_of(s, self.items) for r, s in zip(ROLES, state.agreement,
                                                                  strict=True)}
            scores = {r: utility(self.values[r], s) for r, s in zip(ROLES, state.agreement,
                                                                   strict=True)}
        return {
            "scenario": self.scenario,
            "items": list(self.items),
            "counts": list(self.counts),
            "values": {r: list(v) for r, v in self.values.items()},
            "first": self.first,
            "agreement": state.agreement is not None,
            "shares": shares,
            "scores": scores,
            "rounds": self.progress(state).round,
            "offers": state.offers,
            "walked_by": state.walked,
            "reason": termination.reason,
        }

    def public_view(self, state: DondState) -> dict[str, Any]:
        """Rounds, counts and the public history (no values)."""
        return {"progress": self.progress(state).round, "counts": list(self.counts),
                "history": list(state.history)}
