"""Typed moves: the only things an agent can hand to a protocol.

Every domain speaks in these. A move is immutable and serialises to a plain
dict (``to_dict``) for logs and stores; ``move_from_dict`` reverses that.
Text-to-move parsing lives in the LLM agents (DESIGN.md principle 3); a reply
that could not be parsed becomes a :class:`Malformed` move, which the protocol
rejects like any other invalid move so the engine's retry loop handles it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

Value = int | str
"""A discrete issue value."""

Package = Mapping[str, Value]
"""A full assignment of one value to every issue."""


@dataclass(frozen=True, slots=True)
class Move:
    """Base class of all moves; ``kind`` names the move in logs and JSON."""

    kind: ClassVar[str] = "move"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with the move's ``kind`` and its fields."""
        out: dict[str, Any] = {"kind": self.kind}
        for name in self.__dataclass_fields__:
            val = getattr(self, name)
            if isinstance(val, Move):
                val = val.to_dict()
            elif isinstance(val, Mapping):
                val = dict(val)
            out[name] = val
        return out


@dataclass(frozen=True, slots=True)
class Offer(Move):
    """A full package over all issues (or a domain proposal keyed like one)."""

    package: Package
    message: str | None = None
    kind: ClassVar[str] = "offer"

    def to_dict(self) -> dict[str, Any]:
        # the hot path of every logged offer: no generic field walk
        pkg = self.package
        return {"kind": "offer",  # (dict first: a plain isinstance, no ABC check)
                "package": dict(pkg) if isinstance(pkg, (dict, Mapping)) else pkg,
                "message": self.message}


@dataclass(frozen=True, slots=True)
class Accept(Move):
    """Accept the offer currently on the table."""

    message: str | None = None
    kind: ClassVar[str] = "accept"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "accept", "message": self.message}


@dataclass(frozen=True, slots=True)
class Reject(Move):
    """Reject the offer on the table, optionally carrying a counter-offer."""

    counter: Offer | None = None
    message: str | None = None
    kind: ClassVar[str] = "reject"

    def to_dict(self) -> dict[str, Any]:
        c = self.counter
        if c is None:
            counter = None
        elif type(c) is Offer:  # Offer.to_dict inlined: once per logged counter-offer
            pkg = c.package
            counter = {"kind": "offer", "package": dict(pkg) if isinstance(pkg, (dict, Mapping))
                       else pkg, "message": c.message}
        else:
            counter = c.to_dict()
        return {"kind": "reject", "counter": counter, "message": self.message}


@dataclass(frozen=True, slots=True)
class Walk(Move):
    """Leave the negotiation and take the BATNA."""

    reason: str | None = None
    kind: ClassVar[str] = "walk"


@dataclass(frozen=True, slots=True)
class Message(Move):
    """Cheap talk: text for the other parties, binding nothing."""

    text: str
    kind: ClassVar[str] = "message"


@dataclass(frozen=True, slots=True)
class Action(Move):
    """A game action (simultaneous or sequential play)."""

    action: str
    kind: ClassVar[str] = "action"


@dataclass(frozen=True, slots=True)
class Decide(Move):
    """A final decision in a deliberation (a menu, an assignment, ...)."""

    decision: Any
    message: str | None = None
    kind: ClassVar[str] = "decide"


@dataclass(frozen=True, slots=True)
class Suggest(Move):
    """A mediator's suggested package, put to all parties who stay free."""

    package: Package
    rationale: str | None = None
    kind: ClassVar[str] = "suggest"


@dataclass(frozen=True, slots=True)
class Assess(Move):
    """A stagnation scorer's verdict on the last K rounds (seed 002: STAGNANT / MOVING)."""

    stagnant: bool
    reason: str | None = None
    kind: ClassVar[str] = "assess"


@dataclass(frozen=True, slots=True)
class Malformed(Move):
    """A reply that could not be turned into a move (parse failure)."""

    reason: str
    feedback: str
    raw: str = ""
    details: Mapping[str, Any] = field(default_factory=dict)
    kind: ClassVar[str] = "malformed"


MOVE_TYPES: dict[str, type[Move]] = {
    cls.kind: cls
    for cls in (Offer, Accept, Reject, Walk, Message, Action, Decide, Suggest, Assess,
                Malformed)
}


def move_from_dict(data: Mapping[str, Any]) -> Move:
    """Rebuild a move from :meth:`Move.to_dict` output."""
    fields = dict(data)
    kind = fields.pop("kind")
    cls = MOVE_TYPES.get(kind)
    if cls is None:
        raise ValueError(f"unknown move kind {kind!r}")
    if cls is Reject and fields.get("counter") is not None:
        fields["counter"] = move_from_dict(fields["counter"])
    return cls(**fields)
