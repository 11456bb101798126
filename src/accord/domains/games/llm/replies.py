"""Turning a games LLM reply into a move or a workflow result (DESIGN.md principle 3).

Replies are read by structure (:mod:`accord.agents.tags`): a tag inside ``<MESSAGE>``,
``<STRATEGY>`` or another free-text block is text, never an action or a step result.
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
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from accord.agents.jsonsafe import loads_bounded
from accord.agents.replies import too_long
from accord.agents.tags import FREE_TEXT, Grammar, Parsed, parse_tags
from accord.core.moves import Action, Malformed, Message, Move

WORKFLOW_TAGS: frozenset[str] = frozenset({"RESULT", "NASH", "PLAN"})
"""Data tags of the workflow steps (``STRATEGY`` is free text)."""


class StepError(ValueError):
    """A workflow step's reply that cannot be read: ``reason`` and ``feedback`` for a retry."""

    def __init__(self, reason: str, feedback: str) -> None:
        super().__init__(feedback)
        self.reason, self.feedback = reason, feedback


@lru_cache(maxsize=32)
def grammar(tag: str = "ACTION") -> Grammar:
    """The grammar of a games reply read for ``tag``: ``ACTION`` and the workflow tags are
    data, ``MESSAGE``, ``STRATEGY`` and the other free-text blocks are opaque text."""
    name = tag.upper()
    extra = set() if name in FREE_TEXT else {name}
    return Grammar.of(data={"ACTION", *WORKFLOW_TAGS, *extra})


def _read(text: str, tag: str) -> tuple[Parsed, list[str], bool]:
    """The parse, the stripped bodies of the closed top-level ``tag`` blocks, and whether
    the reply holds an unclosed block (which swallows everything after it)."""
    parsed = parse_tags(text, grammar(tag))
    name = tag.upper()
    bodies = [t.text for t in parsed.tags if t.name == name and t.closed]
    return parsed, bodies, parsed.error("unclosed") is not None


def _unclosed_name(parsed: Parsed) -> str:
    err = parsed.error("unclosed")
    return err.tags[0] if err is not None else ""


def parse_talk(text: str) -> Move:
    """A negotiation reply: the ``<MESSAGE>`` text, or ``Malformed``."""
    parsed, found, unclosed = _read(text, "MESSAGE")
    public = parsed.public
    if (long := too_long(parsed)) is not None:
        return long
    if unclosed:
        name = _unclosed_name(parsed)
        inner = "your message" if name == "MESSAGE" else "..."
        return Malformed("unclosed_tag", f"Your <{name}> tag is not closed: write "
                         f"<{name}>{inner}</{name}>.", raw=public)
    if not found:
        hint = (" You choose your action after the negotiation; now write a message."
                if parsed.has("ACTION") else "")
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
    """An action reply: one ``<ACTION>name</ACTION>`` among ``legal``, or ``Malformed``.

    An ``<ACTION>`` inside a ``<MESSAGE>`` (or any free-text or private block) is text.
    """
    parsed, bodies, unclosed = _read(text, "ACTION")
    public = parsed.public
    if (long := too_long(parsed)) is not None:
        return long
    found = [_clean_action(a) for a in bodies]
    options = ", ".join(legal)
    if unclosed:
        name = _unclosed_name(parsed)
        if name == "ACTION":
            return Malformed("unclosed_tag", "Your <ACTION> tag is not closed: write "
                             f"<ACTION>name</ACTION> with one of: {options}.", raw=public)
        return Malformed("unclosed_tag", f"Your <{name}> tag is not closed: write "
                         f"<{name}>...</{name}>, then <ACTION>name</ACTION> with one of: "
                         f"{options}.", raw=public)
    if not found:
        return Malformed("missing_action", "No <ACTION>...</ACTION> found: answer with exactly "
                         f"one <ACTION>name</ACTION>, the name one of: {options}.", raw=public)
    by_lower = {a.lower(): a for a in legal}
    names = [by_lower.get(a.lower(), a) for a in found]
    if len(set(names)) > 1:
        return Malformed("multiple_actions", f"You gave {len(names)} different actions "
                         f"({', '.join(names)}); give exactly one <ACTION>.", raw=public)
    return Action(names[0])


def _missing(parsed: Parsed, tag: str, empty: str = "is missing") -> StepError:
    if (long := too_long(parsed)) is not None:
        return StepError(long.reason, long.feedback)
    other = _unclosed_name(parsed)
    if other == tag.upper():
        why = "is not closed"
    elif other:
        why = (f"{empty}: the <{other}> before it is not closed, so everything after it is "
               "read as its text")
    else:
        why = empty
    return StepError(f"missing_{tag.lower()}", f"The <{tag}>...</{tag}> block {why}.")


def json_tag(text: str, tag: str, *, allow_none: bool = False) -> Any:
    """The JSON object inside ``<tag>`` of a workflow reply (``None`` for ``none`` if allowed)."""
    parsed, found, _ = _read(text, tag)
    if not found:
        raise _missing(parsed, tag)
    if len(found) > 1:
        raise StepError(f"multiple_{tag.lower()}", f"Give exactly one <{tag}> block; you gave "
                        f"{len(found)}.")
    body = found[0]
    if allow_none and body.strip().lower() in ("none", "null", ""):
        return None
    try:
        data = loads_bounded(body)
    except json.JSONDecodeError as exc:
        raise StepError("invalid_json", f"The <{tag}> block is not valid JSON ({exc.msg} at "
                        f"position {exc.pos}).") from None
    if not isinstance(data, dict):
        raise StepError("invalid_json", f"The <{tag}> block must be a JSON object.")
    return data


def text_tag(text: str, tag: str) -> str:
    """The non-empty text inside ``<tag>`` of a workflow reply."""
    parsed, found, _ = _read(text, tag)
    found = [b for b in found if b]
    if not found:
        raise _missing(parsed, tag, "is missing or empty")
    return "\n".join(found)


def names(value: Any) -> list[str]:
    """One action name or a list of them, as a list of strings (``StepError`` otherwise)."""
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(v, str) and v.strip() for v in items):
        raise StepError("invalid_entry", f"expected an action name or a list of names, got "
                        f"{json.dumps(value)}")
    return [_clean_action(v) for v in items]


__all__ = ["StepError", "json_tag", "names", "parse_action", "parse_talk", "text_tag"]
