"""Replies that copy the prompt are not moves (issue 25: real models echo instructions).

A small real model, asked for a move, often copies lines of its prompt: the instruction
``Your move: OFFER a full package, or <WALK/>.`` at the end of a rambling reply was read as
a walk; the HOW TO REPLY template ``<MESSAGE>...</MESSAGE>`` copied twenty times was
accepted as twenty message-only moves. Both are data, like tags inside free text:

* :func:`unecho` drops every line of a reply that repeats, word for word, an instruction
  line of the prompt (a line with a tag and at least three words outside its tags), so a
  tag quoted from the prompt never becomes a move; what is left is parsed as usual;
* :func:`placeholder` finds a tag whose content is a template placeholder (``...``,
  ``{...}``, ``{json}``): such a reply is malformed, with feedback that says so.

Both are linear in the reply (one pass over its lines; a bounded pattern).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from accord.core.moves import Malformed

#: what a template writes where the model should write its own content
PLACEHOLDERS = frozenset({"...", "…", "{...}", "{…}", "{json}", "[...]", "(...)"})
#: an instruction line: at least this many words outside its tags
MIN_WORDS = 3
_TAG = re.compile(r"</?[A-Za-z_][A-Za-z0-9_]{0,30}\s*/?>")
#: a whole element on one line (an example reply such as ``<ACCEPT> I agree. </ACCEPT>``)
_ELEMENT = re.compile(r"<([A-Za-z_][A-Za-z0-9_]{0,30})>[^<]*</\1>")
_WORD = re.compile(r"[A-Za-z]{2,}")
_FILLED = re.compile(r"<([A-Za-z_][A-Za-z0-9_]{0,30})>([^<]{0,40})</\1>")


def instruction_lines(prompts: Iterable[str]) -> frozenset[str]:
    """The lines of ``prompts`` a model must not echo as its move: each holds a tag and at
    least :data:`MIN_WORDS` words outside its elements. An example reply the prompt shows
    (``<ACCEPT> I agree with this allocation. </ACCEPT>``, a package alone) is not one: a
    model may answer with exactly that."""
    out: set[str] = set()
    for prompt in prompts:
        for line in prompt.splitlines():
            text = line.strip()
            if "<" in text and _TAG.search(text) and len(_WORD.findall(
                    _TAG.sub(" ", _ELEMENT.sub(" ", text)))) >= MIN_WORDS:
                out.add(text)
    return frozenset(out)


def unecho(reply: str, lines: frozenset[str]) -> tuple[str, int]:
    """``reply`` without the lines that repeat one of ``lines``, and how many were dropped."""
    if not lines:
        return reply, 0
    kept: list[str] = []
    dropped = 0
    for line in reply.splitlines():
        if line.strip() in lines:
            dropped += 1
        else:
            kept.append(line)
    return ("\n".join(kept), dropped) if dropped else (reply, 0)


def placeholder(reply: str) -> Malformed | None:
    """A :class:`Malformed` move when a tag of ``reply`` holds a template placeholder."""
    for found in _FILLED.finditer(reply):
        if found.group(2).strip() in PLACEHOLDERS:
            tag = found.group(1)
            return Malformed("placeholder", f"Your <{tag}> holds the template's placeholder "
                             f"{found.group(2).strip()!r}, copied from the instructions: write "
                             f"your own content inside <{tag}>...</{tag}>.", raw=reply[:200])
    return None


def echoed(move: Malformed, dropped: int) -> Malformed:
    """``move`` with a first sentence saying the reply repeated the instructions."""
    if not dropped:
        return move
    lead = (f"Your reply repeated {dropped} line(s) of the instructions; quoted "
            "instructions are not a move.")
    return Malformed(move.reason, f"{lead} {move.feedback}", raw=move.raw, details=move.details)


__all__ = ["MIN_WORDS", "PLACEHOLDERS", "echoed", "instruction_lines", "placeholder", "unecho"]
