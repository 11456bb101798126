"""Turning an agent's reply text into a typed move (seed 000, Appendix A.4).

Replies use the tags ``<PROPOSAL>{json}</PROPOSAL>``, ``<ACCEPT>...</ACCEPT>``,
``<REJECT>...</REJECT>`` and the private ``<CONSIDER>...</CONSIDER>``, read by structure
(:mod:`accord.agents.tags`, :data:`GRAMMAR`). Every ``<CONSIDER>`` block is removed, so
private reasoning never reaches a move, a log or the other agent, and tags inside it or
inside the free text of an ``<ACCEPT>``/``<REJECT>`` never make a move. Text-level faults
become :class:`~accord.core.moves.Malformed` moves with the pattern as ``reason`` and
Figure 9 style ``feedback``; the protocol's ``validate`` turns them into engine invalid
attempts. Semantic checks (unknown task, overlap, ...) are the protocol's job
(:mod:`.validation`), not the parser's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from accord.agents.jsonsafe import loads_bounded, strip_fence
from accord.agents.replies import too_long
from accord.agents.tags import FREE_TEXT, Grammar, Parsed, Tag, parse_tags
from accord.core.moves import Accept, Malformed, Message, Move, Offer, Reject
from accord.domains.task_exchange.llm.templates import render_feedback

Phase = Literal["consider", "propose", "respond"]

GRAMMAR = Grammar.of(text=FREE_TEXT, data=["PROPOSAL"], loose=["ACCEPT", "REJECT"],
                     nest={"REJECT": ["PROPOSAL"]}, private=["CONSIDER", "THINK"])
"""The grammar of a task-exchange reply (Appendix A.4).

``<ACCEPT>`` and ``<REJECT>`` hold free text whose closing tag may be missing (the text
then ends at the next tag); a counter ``<PROPOSAL>`` may follow a ``<REJECT>`` or stand
inside it; ``<CONSIDER>`` (and ``<THINK>``) is private and opaque: a tag inside it is never
a move, and an unclosed one hides everything to the end of the reply and is an error
(``unclosed_tag``; issue 24: ``<CONSIDER><ACCEPT> ok </ACCEPT>`` once ended an episode
as agreed).
"""


def strip_consider(text: str) -> str:
    """``text`` without any ``<CONSIDER>`` (or ``<THINK>``) content.

    Closed blocks are removed; an unclosed ``<CONSIDER>`` hides everything to the end, so a
    forgotten closing tag cannot leak private reasoning.
    """
    return parse_tags(text, GRAMMAR).public


def considerations(text: str) -> list[str]:
    """The private ``<CONSIDER>`` texts of a reply, for the agent's own record."""
    return parse_tags(text, GRAMMAR).private_bodies()


def _json_object(text: str) -> Any:
    """Parse ``text`` as JSON, tolerating code fences and prose around one object."""
    body = strip_fence(text)
    try:
        return loads_bounded(body)
    except json.JSONDecodeError:
        start, end = body.find("{"), body.rfind("}")
        if start < 0 or end <= start:
            raise
        return loads_bounded(body[start:end + 1])


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


def _proposal(parsed: Parsed, roles: Sequence[str]) -> Offer | Malformed | None:
    public = parsed.public
    found: list[Tag] = parsed.all("PROPOSAL")
    if not found:
        # bare JSON counts outside every tag only: JSON quoted in free text is text
        if "PROPOSAL" in parsed.strays or _looks_like_proposal(parsed.outside):
            return _malformed("missing_proposal_open_tag", public, roles,
                              after_reject=False, bare_json=True)
        return None
    if not found[0].closed:
        return _malformed("missing_proposal_close_tag", public, roles)
    if len(found) > 1:
        return _malformed("malformed_proposal", public, roles, problem=f"you sent "
                          f"{len(found)} <PROPOSAL> blocks; send exactly one per turn.")
    assignment = parse_assignment(found[0].text, roles)
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
    The reply is read by structure (:data:`GRAMMAR`): a tag inside the text of an
    ``<ACCEPT>``/``<REJECT>``, a ``<MESSAGE>`` or private reasoning is text, never a move;
    ``<ACCEPT>`` together with ``<REJECT>`` or with a ``<PROPOSAL>`` is ambiguous.
    """
    parsed = parse_tags(text, GRAMMAR)
    public = parsed.public
    if (long := too_long(parsed)) is not None:
        return long
    private = parsed.error("unclosed")
    if private is not None and private.tags[0] in GRAMMAR.private:
        return _malformed("unclosed_tag", public, roles, tag=private.tags[0], private=True)
    if phase == "consider":
        return Message(public)
    has_accept, has_reject = parsed.has("ACCEPT"), parsed.has("REJECT")
    if has_accept and has_reject:
        return _malformed("ambiguous_response", public, roles, with_proposal=False)
    unclosed = [n for n in parsed.unclosed() if n in GRAMMAR.text]
    if unclosed:
        return _malformed("unclosed_tag", public, roles, tag=unclosed[0])
    if has_accept:
        if parsed.has("PROPOSAL"):
            return _malformed("ambiguous_response", public, roles, with_proposal=True)
        accept = parsed.first("ACCEPT")
        return Accept(message=public or (accept.text if accept else ""))
    proposal = _proposal(parsed, roles)
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
    "GRAMMAR",
    "Phase",
    "considerations",
    "format_move",
    "format_proposal",
    "parse_assignment",
    "parse_reply",
    "strip_consider",
]
