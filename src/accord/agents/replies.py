"""Turning LLM reply text into typed moves (DESIGN.md principle 3).

Replies use tags: ``<PROPOSAL>{json}</PROPOSAL>``, ``<ACCEPT/>``, ``<REJECT/>``
(optionally followed by a PROPOSAL as counter-offer), ``<WALK/>``,
``<MESSAGE>text</MESSAGE>`` and private ``<CONSIDER>...</CONSIDER>`` /
``<THINK>...</THINK>`` that is removed before anything reaches another party. Replies are
read by structure (:mod:`accord.agents.tags`): a tag inside ``MESSAGE``, ``THINK`` or any
other free-text block is text and never a move, and text outside every tag is ignored.
A reply that cannot be parsed becomes :class:`~accord.core.moves.Malformed` with a reason
and targeted feedback, which the protocol refuses so the engine's retry loop handles it:
an unclosed tag (``unclosed_tag``), two PROPOSALs (``multiple_proposals``) or two move
tags that contradict each other (``conflicting_tags``: ``WALK`` with anything else,
``ACCEPT`` with ``REJECT``, ``ACCEPT`` with a PROPOSAL other than the offer on the table).

The mediator's and the termination judge's replies are read here too
(:func:`parse_mediator_reply`, :func:`parse_verdict`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from accord.agents import tags
from accord.agents.jsonsafe import loads_bounded, strip_fence
from accord.agents.tags import Grammar, Parsed, parse_tags
from accord.core.moves import Accept, Malformed, Message, Move, Offer, Reject, Suggest, Walk
from accord.protocols.judge import DECISIONS, JudgeVerdict

NEGOTIATION_GRAMMAR = Grammar.of(data=["PROPOSAL"], markers=["ACCEPT", "REJECT", "WALK"],
                         once=["PROPOSAL"],
                         exclusive=[["WALK", "ACCEPT", "REJECT"], ["WALK", "PROPOSAL"]])
"""The grammar of a negotiator's reply."""

MEDIATOR_GRAMMAR = Grammar.of(data=["PROPOSAL"], once=["PROPOSAL"])
"""The grammar of a mediator's reply (``RATIONALE`` is free text)."""

JUDGE_GRAMMAR = Grammar.of(data=["VERDICT"], once=["VERDICT"])
"""The grammar of a termination judge's reply (``REASON`` is free text)."""


def strip_private(text: str) -> str:
    """The reply without private reasoning (an unclosed block is dropped to the end)."""
    return tags.strip_private(text)


def private_reasoning(text: str) -> str:
    """The private reasoning of a reply (for the agent's own log, never forwarded)."""
    return "\n".join(parse_tags(text, tags.PRIVATE_ONLY).private)


def too_long(parsed: Parsed) -> Malformed | None:
    """``reply_too_long`` when the reply was over the length cap and left unread (issue 24:
    :data:`accord.agents.tags.MAX_REPLY_CHARS`), else ``None``. Every domain parser asks
    this first, so an overlong reply is a retry with feedback, never a hang."""
    err = parsed.error("too_long")
    return None if err is None else Malformed("reply_too_long", err.feedback, raw="")


def _unclosed(parsed: Parsed, raw: str) -> Malformed | None:
    err = parsed.error("unclosed")
    if err is None:
        return None
    name = err.tags[0]
    if name in tags.PRIVATE:
        return Malformed("unclosed_tag", err.feedback, raw=raw)
    if name == "PROPOSAL":
        return Malformed("unclosed_tag", "Your <PROPOSAL> tag is not closed. Write "
                         "<PROPOSAL>{...}</PROPOSAL> with the JSON between the tags.", raw=raw)
    return Malformed("unclosed_tag", f"Your <{name}> tag is not closed. Write "
                     f"<{name}>...</{name}>; everything after an unclosed tag is read as "
                     "its text.", raw=raw)


def _json_package(body: str, issues: Mapping[str, list[Any]], raw: str
                  ) -> dict[str, Any] | Malformed:
    try:
        data = loads_bounded(strip_fence(body))  # a fenced ```json block inside the tag too
    except json.JSONDecodeError as exc:
        return Malformed("invalid_json", f"The PROPOSAL is not valid JSON ({exc.msg} at "
                         f"position {exc.pos}). Use an object like "
                         f"{json.dumps({k: v[0] for k, v in issues.items()})}.", raw=raw)
    if not isinstance(data, dict):
        return Malformed("invalid_json", "The PROPOSAL must be a JSON object mapping each "
                         "issue to one value.", raw=raw)
    return data


def _conflict(parsed: Parsed, raw: str) -> Malformed | None:
    dup = parsed.error("duplicate")
    if dup is not None:
        n = len(parsed.all("PROPOSAL"))
        return Malformed("multiple_proposals", f"Give exactly one <PROPOSAL>; you gave {n}.",
                         raw=raw)
    clash = parsed.error("conflict")
    if clash is None:
        return None
    if "WALK" in clash.tags:
        return Malformed("conflicting_tags", "<WALK/> ends the negotiation; do not combine it "
                         "with <ACCEPT/>, <REJECT/> or a <PROPOSAL>.", raw=raw)
    return Malformed("conflicting_tags", "Use either <ACCEPT/> or <REJECT/>, not both.",
                     raw=raw)


def parse_negotiation_reply(text: str, issues: dict[str, list[Any]], phase: str, *,
                            current: Mapping[str, Any] | None = None) -> Move:
    """The move a negotiation reply expresses, or ``Malformed`` with targeted feedback.

    ``phase`` is ``propose`` or ``respond``; a bare PROPOSAL while responding is read as a
    counter-offer (reject with counter). ``current`` is the offer on the table: an
    ``<ACCEPT/>`` that restates exactly it in a PROPOSAL is still an accept, any other
    PROPOSAL beside an ``<ACCEPT/>`` contradicts it.
    """
    parsed = parse_tags(text, NEGOTIATION_GRAMMAR)
    raw = parsed.public
    bad = too_long(parsed) or _unclosed(parsed, raw) or _conflict(parsed, raw)
    if bad is not None:
        return bad
    msg = parsed.first("MESSAGE")
    message = (msg.text or None) if msg is not None else None
    found = parsed.first("PROPOSAL")
    prop = None if found is None else _json_package(found.text, issues, raw)
    if parsed.has("WALK"):
        return Walk(message or "walked away")
    if phase == "propose":
        if isinstance(prop, Malformed):
            return prop
        if prop is not None:
            return Offer(prop, message=message)
        if message:
            return Message(message)
        return Malformed("missing_proposal", "It is your turn to propose: reply with "
                         "<PROPOSAL>{json}</PROPOSAL> (a value for every issue), or <WALK/>.",
                         raw=raw)
    if isinstance(prop, Malformed):
        return prop
    if parsed.has("ACCEPT"):
        if prop is not None and (current is None or prop != dict(current)):
            return Malformed("conflicting_tags", "<ACCEPT/> takes the offer on the table as "
                             "it is; to ask for a different package, answer <REJECT/> with "
                             "your counter <PROPOSAL>.", raw=raw)
        return Accept(message=message)
    if prop is not None:
        return Reject(counter=Offer(prop), message=message)
    if parsed.has("REJECT"):
        return Reject(message=message)
    return Malformed("missing_verdict", "You must answer the offer on the table with <ACCEPT/>, "
                     "<REJECT/> (optionally followed by a counter <PROPOSAL>{json}</PROPOSAL>) "
                     "or <WALK/>.", raw=raw)


def parse_mediator_reply(text: str) -> Suggest | Malformed:
    """A mediator's suggestion: one ``<PROPOSAL>{json}</PROPOSAL>`` and an optional
    ``<RATIONALE>`` (free text), or ``Malformed``."""
    parsed = parse_tags(text, MEDIATOR_GRAMMAR)
    raw = parsed.public
    if (long := too_long(parsed)) is not None:
        return long
    err = parsed.error("unclosed")
    if err is not None:
        return Malformed("unclosed_tag", f"Your <{err.tags[0]}> tag is not closed. Write "
                         f"<{err.tags[0]}>...</{err.tags[0]}>.", raw=raw)
    found = parsed.all("PROPOSAL")
    if len(found) != 1:
        return Malformed("missing_proposal", "Reply with exactly one "
                         "<PROPOSAL>{json}</PROPOSAL>.", raw=raw)
    try:
        package = loads_bounded(strip_fence(found[0].text))
    except json.JSONDecodeError as exc:
        return Malformed("invalid_json", f"The PROPOSAL is not valid JSON ({exc.msg}).",
                         raw=raw)
    if not isinstance(package, dict):
        return Malformed("invalid_json", "The PROPOSAL must be a JSON object.", raw=raw)
    why = parsed.first("RATIONALE")
    return Suggest(package, rationale=why.text if why is not None else None)


def parse_verdict(text: str) -> JudgeVerdict | None:
    """The verdict in a judge reply (``None`` without exactly one readable ``<VERDICT>``).

    A ``<VERDICT>`` inside ``<REASON>`` (free text) or private reasoning does not count.
    """
    parsed = parse_tags(text, JUDGE_GRAMMAR)
    found = parsed.all("VERDICT")
    if len(found) != 1 or not found[0].closed:
        return None
    decision = next((d for d in DECISIONS if d == found[0].text.lower()), None)
    if decision is None:
        return None
    why = parsed.first("REASON")
    return JudgeVerdict(decision, why.text if why is not None else "")


__all__ = ["JUDGE_GRAMMAR", "MEDIATOR_GRAMMAR", "NEGOTIATION_GRAMMAR", "parse_mediator_reply",
           "parse_negotiation_reply", "parse_verdict", "private_reasoning", "strip_private",
           "too_long"]
