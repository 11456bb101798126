"""Turning a games LLM reply into a move or a workflow result (DESIGN.md principle 3).

Replies put private reasoning in ``<THINK>`` (or ``<CONSIDER>``), which is removed first:
nothing here ever returns it, and the ``raw`` text of a :class:`~accord.core.moves.Malformed`
is the public part only, so the trajectory log never holds it either.

* negotiation turn: ``<MESSAGE>text</MESSAGE>`` -> :class:`~accord.core.moves.Message`;
* action turn: ``<ACTION>name</ACTION>`` -> :class:`~accord.core.moves.Action` (the name is
  matched to the legal actions ignoring case, quotes and surrounding spaces; an unknown
  name is passed on so the protocol refuses it with the list of legal actions);
* workflow steps: a JSON object inside ``<RESULT>``, ``<NASH>`` or ``<PLAN>`` and a text
  inside ``<STRATEGY>`` (:func:`json_tag`, :func:`text_tag`).

A reply that cannot be read becomes ``Malformed`` (or :class:`StepError` for workflow steps)
with targeted feedback; the protocol turns ``Malformed`` into ``Invalid`` so the engine's
retry loop asks again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from accord.agents.replies import strip_private
from accord.core.moves import Action, Malformed, Message, Move


class StepError(ValueError):
    """A workflow step's reply that cannot be read: ``reason`` and ``feedback`` for a retry."""

    def __init__(self, reason: str, feedback: str) -> None:
        super().__init__(feedback)
        self.reason, self.feedback = reason, feedback


def _blocks(text: str, tag: str) -> list[str]:
    return [m.strip() for m in re.findall(rf"<{tag}>(.*?)</{tag}>", text, re.S | re.I)]


def _opened(text: str, tag: str) -> bool:
    return re.search(rf"<{tag}>", text, re.I) is not None


def parse_talk(text: str) -> Move:
    """A negotiation reply: the ``<MESSAGE>`` text, or ``Malformed``."""
    public = strip_private(text)
    found = _blocks(public, "MESSAGE")
    if not found:
        if _opened(public, "MESSAGE"):
            return Malformed("unclosed_tag", "Your <MESSAGE> tag is not closed: write "
                             "<MESSAGE>your message</MESSAGE>.", raw=public)
        hint = (" You choose your action after the negotiation; now write a message."
                if _opened(public, "ACTION") else "")
        return Malformed("missing_message", "No <MESSAGE>...</MESSAGE> found: this is a "
                         "negotiation turn, put your message to the other player inside "
                         f"<MESSAGE> tags.{hint}", raw=public)
    body = "\n\n".join(m for m in found if m)
    if not body:
        return Malformed("empty_message", "Your <MESSAGE> is empty; write something to the "
                         "other player.", raw=public)
    return Message(body)


def _clean_action(raw: str) -> str:
    return raw.strip().strip("\"'`*.").strip()


def parse_action(text: str, legal: Sequence[str]) -> Move:
    """An action reply: one ``<ACTION>name</ACTION>`` among ``legal``, or ``Malformed``."""
    public = strip_private(text)
    found = [_clean_action(a) for a in _blocks(public, "ACTION")]
    options = ", ".join(legal)
    if not found:
        if _opened(public, "ACTION"):
            return Malformed("unclosed_tag", "Your <ACTION> tag is not closed: write "
                             f"<ACTION>name</ACTION> with one of: {options}.", raw=public)
        return Malformed("missing_action", "No <ACTION>...</ACTION> found: answer with exactly "
                         f"one <ACTION>name</ACTION>, the name one of: {options}.", raw=public)
    by_lower = {a.lower(): a for a in legal}
    names = [by_lower.get(a.lower(), a) for a in found]
    if len(set(names)) > 1:
        return Malformed("multiple_actions", f"You gave {len(names)} different actions "
                         f"({', '.join(names)}); give exactly one <ACTION>.", raw=public)
    return Action(names[0])


def json_tag(text: str, tag: str, *, allow_none: bool = False) -> Any:
    """The JSON object inside ``<tag>`` of a workflow reply (``None`` for ``none`` if allowed)."""
    public = strip_private(text)
    found = _blocks(public, tag)
    if not found:
        why = "is not closed" if _opened(public, tag) else "is missing"
        raise StepError(f"missing_{tag.lower()}", f"The <{tag}>...</{tag}> block {why}.")
    if len(found) > 1:
        raise StepError(f"multiple_{tag.lower()}", f"Give exactly one <{tag}> block; you gave "
                        f"{len(found)}.")
    body = found[0]
    if allow_none and body.strip().lower() in ("none", "null", ""):
        return None
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise StepError("invalid_json", f"The <{tag}> block is not valid JSON ({exc.msg} at "
                        f"position {exc.pos}).") from None
    if not isinstance(data, dict):
        raise StepError("invalid_json", f"The <{tag}> block must be a JSON object.")
    return data


def text_tag(text: str, tag: str) -> str:
    """The non-empty text inside ``<tag>`` of a workflow reply."""
    public = strip_private(text)
    found = [b for b in _blocks(public, tag) if b]
    if not found:
        why = "is not closed" if _opened(public, tag) else "is missing or empty"
        raise StepError(f"missing_{tag.lower()}", f"The <{tag}>...</{tag}> block {why}.")
    return "\n".join(found)


def names(value: Any) -> list[str]:
    """One action name or a list of them, as a list of strings (``StepError`` otherwise)."""
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(v, str) and v.strip() for v in items):
        raise StepError("invalid_entry", f"expected an action name or a list of names, got "
                        f"{json.dumps(value)}")
    return [_clean_action(v) for v in items]


__all__ = ["StepError", "json_tag", "names", "parse_action", "parse_talk", "text_tag"]
