"""Turning a person's reply (plain data from a form or a prompt) into a typed move.

Like the LLM agents' tag parsers (DESIGN.md principle 3) this lives on the agent side: a
reply that cannot be read becomes a :class:`~accord.core.moves.Malformed` move with
feedback, which the protocol rejects and the engine's retry loop shows to the person.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from accord.core.moves import (
    Accept,
    Action,
    Malformed,
    Message,
    Move,
    Offer,
    Reject,
    Value,
    Walk,
)

PackageReader = Callable[[Any], "Mapping[str, Any] | str"]
"""Reads a raw package from a reply: the typed package, or an error text for the person."""

MAX_TEXT = 2000
"""Longest message a person may send (characters)."""


def _text(raw: Any) -> str | None:
    if raw is None:
        return None
    text = str(raw).strip()
    return text[:MAX_TEXT] or None


def coerce_value(raw: Any, values: Sequence[Value]) -> Value | None:
    """The issue value ``raw`` names (``"3"`` means ``3`` when the issue is numeric)."""
    for val in values:
        if raw == val or str(raw).strip() == str(val):
            return val
    return None


def coerce_package(raw: Any, issues: Mapping[str, Sequence[Value]]) -> dict[str, Value] | str:
    """A package with typed values, or an error text naming what is wrong."""
    if not isinstance(raw, Mapping) or not raw:
        return "an offer needs a value for every issue"
    out: dict[str, Value] = {}
    for name, val in raw.items():
        if name not in issues:
            out[str(name)] = str(val)  # the protocol names unknown issues itself
            continue
        got = coerce_value(val, issues[name])
        if got is None:
            return (f"{str(val)[:80]!r} is not a value of {name!r}; choose one of "
                    f"{[str(v) for v in issues[name]]}")
        out[name] = got
    return out


def coerce_counts(raw: Any) -> dict[str, int] | str:
    """Item counts from a reply (``{"book": "1", ...}``), or an error text."""
    if not isinstance(raw, Mapping) or not raw:
        return "a proposal needs a count for every item"
    out: dict[str, int] = {}
    for name, val in raw.items():
        text = str(val).strip()
        if not text.isdigit():
            return f"the count of {name!r} must be a whole number 0 or more, got {text[:40]!r}"
        out[str(name)] = int(text)
    return out


def malformed(feedback: str, reply: Any) -> Malformed:
    """The move for a reply that could not be read."""
    return Malformed("unreadable_reply", feedback, raw=repr(reply)[:500])


def reply_to_move(reply: Any, read: PackageReader) -> Move:
    """The typed move for ``reply``; ``read`` turns a raw package into a typed one or an
    error text (:func:`coerce_package` with the issues, or :func:`coerce_counts`)."""
    if not isinstance(reply, Mapping):
        return malformed("reply must be a mapping with a 'kind'", reply)
    kind = reply.get("kind")
    message = _text(reply.get("message"))

    if kind == "offer":
        pkg = read(reply.get("package"))
        return malformed(pkg, reply) if isinstance(pkg, str) else Offer(pkg, message)
    if kind == "accept":
        return Accept(message)
    if kind == "reject":
        raw = reply.get("counter")
        if raw is None:
            return Reject(None, message)
        pkg = read(raw)
        return malformed(pkg, reply) if isinstance(pkg, str) else Reject(Offer(pkg), message)
    if kind == "walk":
        return Walk(_text(reply.get("reason")) or "the person walked away")
    if kind == "message":
        return Message(_text(reply.get("text")) or "")
    if kind == "action":
        return Action(str(reply.get("action", "")).strip())
    return malformed(f"unknown move {str(kind)[:40]!r}; use offer, accept, reject, walk, "
                     "message or action", reply)
