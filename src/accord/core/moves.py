"""Typed moves: the only things an agent can hand to a protocol.

Every domain speaks in these. A move is immutable and serialises to a plain
dict (``to_dict``) for logs and stores; ``move_from_dict`` reverses that.
Text-to-move parsing lives in the LLM agents (DESIGN.md principle 3); a reply
that could not be parsed becomes a :class:`Malformed` move, which the protocol
rejects like any other invalid move so the engine's retry loop handles it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from functools import partial
from operator import attrgetter
from reprlib import recursive_repr
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

Value = int | str
"""A discrete issue value."""

Package = Mapping[str, Value]
"""A full assignment of one value to every issue."""


M = TypeVar("M", bound="Move")


def _no_fields(move: Any) -> tuple[Any, ...]:
    return ()


def _one_field(get: Callable[[Any], Any], move: Any) -> tuple[Any, ...]:
    return (get(move),)


def _keyed(cls: type[M]) -> type[M]:
    """Give the move class ``cls``, a ``@dataclass(frozen=True, slots=True, repr=False,
    eq=False)``, what :class:`Move`'s ``__repr__``, ``__eq__`` and ``__hash__`` read: its
    field names and the getter of their values as a tuple.

    Those three return what ``@dataclass(frozen=True, slots=True)`` would generate
    (``Offer(package={...}, message=None)``; equal when of the same class with equal
    fields; the hash of the fields' tuple), without compiling three functions for each of
    the eleven move classes at import: ~4 ms of every start of ``accord`` (issue 30).
    """
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    if not params.frozen or params.eq or params.repr or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__}: _keyed takes a frozen, slotted dataclass without "
                        "generated eq and repr")
    fs = fields(cls)
    if not all(f.repr and f.compare and f.hash is None for f in fs):
        raise TypeError(f"{cls.__name__}: _keyed takes fields that are all in repr, eq and "
                        "hash")
    names = tuple(f.name for f in fs)
    # attrgetter and partial objects do not bind as methods: called with the move itself
    cls._fields_key = (
        attrgetter(*names) if len(names) >= 2  # of one name it gives the value, no tuple
        else partial(_one_field, attrgetter(*names)) if names else partial(_no_fields))
    cls._field_names = names
    return cls


@_keyed
@dataclass(frozen=True, slots=True, repr=False, eq=False)
class Move:
    """Base class of all moves; ``kind`` names the move in logs and JSON."""

    kind: ClassVar[str] = "move"
    if TYPE_CHECKING:  # set by _keyed; not annotated at run time, so never dataclass fields
        #: the move's field names, and the getter of their values as a tuple
        _field_names: ClassVar[tuple[str, ...]]
        _fields_key: ClassVar[Callable[[Any], tuple[Any, ...]]]

    @recursive_repr()
    def __repr__(self) -> str:
        return (f"{type(self).__qualname__}("
                + ", ".join(f"{n}={getattr(self, n)!r}" for n in self._field_names) + ")")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            key = type(self)._fields_key
            return bool(key(self) == key(other))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(type(self)._fields_key(self))

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


@_keyed
@dataclass(frozen=True, slots=True, repr=False, eq=False)
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


@_keyed
@dataclass(frozen=True, slots=True, repr=False, eq=False)
class Accept(Move):
    """Accept the offer currently on the table."""

    message: str | None = None
    kind: ClassVar[str] = "accept"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "accept", "message": self.message}


@_keyed
@dataclass(frozen=True, slots=True, repr=False, eq=False)
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


@_keyed
@dataclass(frozen=True, slots=True, repr=False, eq=False)
class Walk(Move):
    """Leave the negotiation and take the BATNA."""

    reason: str | None = None
    kind: ClassVar[str] = "walk"


@_keyed
@dataclass(frozen=True, slots=True, repr=False, eq=False)
class Message(Move):
    """Cheap talk: text for the other parties, binding nothing."""

    text: str
    kind: ClassVar[str] = "message"


@_keyed
@dataclass(frozen=True, slots=True, repr=False, eq=False)
class Action(Move):
    """A game action (simultaneous or sequential play)."""

    action: str
    kind: ClassVar[str] = "action"


@_keyed
@dataclass(frozen=True, slots=True, repr=False, eq=False)
class Decide(Move):
    """A final decision in a deliberation (a menu, an assignment, ...)."""

    decision: Any
    message: str | None = None
    kind: ClassVar[str] = "decide"


@_keyed
@dataclass(frozen=True, slots=True, repr=False, eq=False)
class Suggest(Move):
    """A mediator's suggested package, put to all parties who stay free."""

    package: Package
    rationale: str | None = None
    kind: ClassVar[str] = "suggest"


@_keyed
@dataclass(frozen=True, slots=True, repr=False, eq=False)
class Assess(Move):
    """A stagnation scorer's verdict on the last K rounds (seed 002: STAGNANT / MOVING)."""

    stagnant: bool
    reason: str | None = None
    kind: ClassVar[str] = "assess"


@_keyed
@dataclass(frozen=True, slots=True, repr=False, eq=False)
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
