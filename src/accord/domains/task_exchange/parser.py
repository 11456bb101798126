"""Turning an agent's reply text into a typed move (seed 000, Appendix A.4).

Replies use the tags ``<PROPOSAL>{json}</PROPOSAL>``, ``<ACCEPT>...</ACCEPT>``,
``<REJECT>...</REJECT>`` and the private ``<CONSIDER>...</CONSIDER>``. The parser
first removes every ``<CONSIDER>`` block, so private reasoning never reaches a move,
a log or the other agent. Text-level faults become :class:`~accord.core.moves.Malformed`
moves with the pattern as ``reason`` and Figure 9 style ``feedback``; the protocol's
``validate`` turns them into engine invalid attempts. Semantic checks (unknown task,
overlap, ...) are the protocol's job (:mod:`.validation`), not the parser's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from accord.core.moves import Accept, Malformed, Message, Move, Offer, Reject
from accord.domains.task_exchange.templates import render_feedback

Phase = Literal["consider", "propose", "respond"]

_CONSIDER_BLOCK = re.compile(r"<CONSIDER\s*>.*?</CONSIDER\s*>", re.I | re.S)
_CONSIDER_OPEN = re.compile(r"<CONSIDER\s*>", re.I)
_OTHER_TAG = re.compile(r"</?(PROPOSAL|ACCEPT|REJECT)\s*>", re.I)
_STRAY_CLOSE = re.compile(r"</CONSIDER\s*>", re.I)
_OPEN = re.compile(r"<PROPOSAL\s*>", re.I)
_CLOSE = re.compile(r"</PROPOSAL\s*>", re.I)
_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")


def strip_consider(text: str) -> str:
    """``text`` without any ``<CONSIDER>`` content.

    Closed blocks are removed; an unclosed ``<CONSIDER>`` hides everything up to the next
    ``PROPOSAL``/``ACCEPT``/``REJECT`` tag (or the end), so a forgotten closing tag cannot
    leak private reasoning.
    """
    out = _CONSIDER_BLOCK.sub("", text)
    while (m := _CONSIDER_OPEN.search(out)) is not None:
        nxt = _OTHER_TAG.search(out, m.end())
        out = out[:m.start()] + (out[nxt.start():] if nxt else "")
    return _STRAY_CLOSE.sub("", out).strip()


def _block(tag: str, text: str) -> tuple[bool, str]:
    """Whether ``<tag>`` occurs, and its inner text (up to the closing tag or the next tag)."""
    m = re.search(rf"<{tag}\s*>", text, re.I)
    if m is None:
        return False, ""
    close = re.search(rf"</{tag}\s*>", text[m.end():], re.I)
    if close is not None:
        return True, text[m.end():m.end() + close.start()].strip()
    nxt = _OTHER_TAG.search(text, m.end())
    return True, text[m.end():nxt.start() if nxt else len(text)].strip()


def _json_object(text: str) -> Any:
    """Parse ``text`` as JSON, tolerating code fences and prose around one object."""
    body = _FENCE.sub("", text.strip())
    try:
        return json.loads(body)
    except json.JSONDecodeError:
        start, end = body.find("{"), body.rfind("}")
        if start < 0 or end <= start:
            raise
        return json.loads(body[start:end + 1])


def _looks_like_proposal(text: str) -> bool:
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return False
    try:
        return isinstance(_json_object(text[start:end + 1]), dict)
    except json.JSONDecodeError:
        return False


def _malformed(reason: str, public: str, roles: Sequence[str], **ctx: Any) -> Malformed:
    return Malformed(reason, render_feedback(reason, roles=list(roles), **ctx), public)


def parse_assignment(body: str, roles: Sequence[str]) -> dict[str, list[str]] | str:
    """The JSON inside ``<PROPOSAL>`` as ``role -> [descriptions]``, or a problem string.

    Role names match case-insensitively; a value may be one string or a list of strings;
    a missing role, ``[]``, ``""`` or ``null`` all mean the role receives nothing.
    """
    try:
        data = _json_object(body)
    except json.JSONDecodeError as exc:
        return (f"the proposal is not valid JSON ({exc.msg} at line {exc.lineno} "
                f"column {exc.colno}).")
    if not isinstance(data, dict):
        return f"the proposal must be a JSON object, got {type(data).__name__}."
    by_key = {r.lower(): r for r in roles}
    out: dict[str, list[str]] = {r: [] for r in roles}
    for key, val in data.items():
        role = by_key.get(str(key).strip().lower())
        if role is None:
            return f"unknown agent {key!r}; the agents are {', '.join(roles)}."
        items = [] if val is None else [val] if isinstance(val, str) else val
        if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
            return f"the value for {key!r} must be a list of description strings."
        out[role] = [x for x in items if x != ""]
    return out


def _proposal(public: str, roles: Sequence[str]) -> Offer | Malformed | None:
    has_open, has_close = _OPEN.search(public), _CLOSE.search(public)
    if has_open is None and has_close is None:
        if _looks_like_proposal(public):
            return _malformed("missing_proposal_open_tag", public, roles,
                              after_reject=False, bare_json=True)
        return None
    if has_open is None:
        return _malformed("missing_proposal_open_tag", public, roles,
                          after_reject=False, bare_json=True)
    if has_close is None or has_close.start() < has_open.end():
        return _malformed("missing_proposal_close_tag", public, roles)
    assignment = parse_assignment(public[has_open.end():has_close.start()], roles)
    if isinstance(assignment, str):
        return _malformed("malformed_proposal", public, roles, problem=assignment)
    crowded = [r for r, v in assignment.items() if len(v) > 1]
    if crowded:
        entries = [{"description": d, "where": ""} for d in assignment[crowded[0]]]
        feedback = render_feedback("multiple_descriptions", role=crowded[0], entries=entries,
                                   merged=None)
        return Malformed("multiple_descriptions", feedback, public, {"proposal": assignment})
    return Offer({r: v[0] for r, v in assignment.items() if v}, message=public)


def parse_reply(text: str, roles: Sequence[str], phase: Phase = "respond") -> Move:
    """Turn one reply into a move for the task-exchange protocol.

    ``phase`` ``consider`` (Turn 1) always yields a :class:`Message` holding only the public
    remainder. Otherwise: ``<ACCEPT>`` -> :class:`Accept`; ``<REJECT>`` -> :class:`Reject`
    with the proposal (if any) as ``counter``; a lone proposal -> :class:`Offer`. Each move's
    ``message`` is the public text (``<CONSIDER>`` removed) that is forwarded to the partner.
    """
    public = strip_consider(text)
    if phase == "consider":
        return Message(public)
    has_accept, accept_text = _block("ACCEPT", public)
    has_reject, _ = _block("REJECT", public)
    if has_accept and has_reject:
        return _malformed("ambiguous_response", public, roles)
    if has_accept:
        return Accept(message=public or accept_text)
    proposal = _proposal(public, roles)
    if isinstance(proposal, Malformed):
        return proposal
    if has_reject:
        return Reject(counter=proposal, message=public)
    if proposal is not None:
        return proposal
    return _malformed("missing_proposal_open_tag", public, roles,
                      after_reject=False, bare_json=False)


def format_proposal(assignment: Mapping[str, str | Sequence[str]], roles: Sequence[str]) -> str:
    """A ``<PROPOSAL>`` block in the Figure 7 JSON layout (each role -> list of descriptions)."""
    body = {r: ([assignment[r]] if isinstance(assignment.get(r), str)
                else list(assignment.get(r, ()))) for r in roles}
    return "<PROPOSAL>" + json.dumps(body, indent=2, ensure_ascii=False) + "</PROPOSAL>"


def format_move(move: Move, roles: Sequence[str]) -> str:
    """Canonical public text for a structured move (code agents send no text of their own)."""
    msg = getattr(move, "message", None)
    if isinstance(msg, str) and msg:
        return msg
    if isinstance(move, Offer):
        return format_proposal(move.package, roles)  # type: ignore[arg-type]
    if isinstance(move, Accept):
        return "<ACCEPT> I agree with this allocation. </ACCEPT>"
    if isinstance(move, Reject):
        text = "<REJECT> This doesn't work for me. Let's try another allocation. </REJECT>"
        if move.counter is not None:
            text += "\n" + format_proposal(move.counter.package, roles)  # type: ignore[arg-type]
        return text
    if isinstance(move, Malformed):
        return move.raw
    return ""


__all__ = [
    "Phase",
    "format_move",
    "format_proposal",
    "parse_assignment",
    "parse_reply",
    "strip_consider",
]
