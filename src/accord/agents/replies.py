"""Turning LLM reply text into typed moves (DESIGN.md principle 3).

Replies use tags: ``<PROPOSAL>{json}</PROPOSAL>``, ``<ACCEPT/>``, ``<REJECT/>``
(optionally followed by a PROPOSAL as counter-offer), ``<WALK/>``,
``<MESSAGE>text</MESSAGE>`` and private ``<CONSIDER>...</CONSIDER>`` /
``<THINK>...</THINK>`` that is removed before anything reaches another party. A reply
that cannot be parsed becomes :class:`~accord.core.moves.Malformed` with a reason and
targeted feedback, which the protocol refuses so the engine's retry loop handles it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from accord.core.moves import Accept, Malformed, Message, Move, Offer, Reject, Walk

_PRIVATE = re.compile(r"<(CONSIDER|THINK)>.*?(</\1>|$)", re.S | re.I)
_PROPOSAL = re.compile(r"<PROPOSAL>(.*?)</PROPOSAL>", re.S | re.I)
_MESSAGE = re.compile(r"<MESSAGE>(.*?)</MESSAGE>", re.S | re.I)


def strip_private(text: str) -> str:
    """The reply without private reasoning (an unclosed block is dropped to the end)."""
    return _PRIVATE.sub("", text).strip()


def private_reasoning(text: str) -> str:
    """The private reasoning of a reply (for the agent's own log, never forwarded)."""
    return "\n".join(m.group(0) for m in _PRIVATE.finditer(text))


def _tag(text: str, name: str) -> bool:
    return re.search(rf"<{name}\s*/?>", text, re.I) is not None


def _proposal(text: str, issues: dict[str, list[Any]]) -> dict[str, Any] | Malformed:
    found = _PROPOSAL.findall(text)
    if not found:
        if re.search(r"<PROPOSAL>", text, re.I):
            return Malformed("unclosed_tag", "Your <PROPOSAL> tag is not closed. Write "
                             "<PROPOSAL>{...}</PROPOSAL> with the JSON between the tags.",
                             raw=text)
        return Malformed("missing_proposal", "No <PROPOSAL>{...}</PROPOSAL> found.", raw=text)
    if len(found) > 1:
        return Malformed("multiple_proposals", "Give exactly one <PROPOSAL>; you gave "
                         f"{len(found)}.", raw=text)
    body = found[0].strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        return Malformed("invalid_json", f"The PROPOSAL is not valid JSON ({exc.msg} at "
                         f"position {exc.pos}). Use an object like "
                         f"{json.dumps({k: v[0] for k, v in issues.items()})}.", raw=text)
    if not isinstance(data, dict):
        return Malformed("invalid_json", "The PROPOSAL must be a JSON object mapping each "
                         "issue to one value.", raw=text)
    return data


def parse_negotiation_reply(text: str, issues: dict[str, list[Any]], phase: str) -> Move:
    """The move a negotiation reply expresses, or ``Malformed`` with targeted feedback.

    ``phase`` is ``propose`` or ``respond``; a bare PROPOSAL while responding is read as a
    counter-offer (reject with counter).
    """
    public = strip_private(text)
    msg_match = _MESSAGE.search(public)
    message = msg_match.group(1).strip() if msg_match else None
    if _tag(public, "WALK"):
        return Walk(message or "walked away")
    if phase == "respond" and _tag(public, "ACCEPT"):
        if _tag(public, "REJECT"):
            return Malformed("conflicting_tags", "Use either <ACCEPT/> or <REJECT/>, not both.",
                             raw=text)
        return Accept(message=message)
    if phase == "respond" and (_tag(public, "REJECT") or _PROPOSAL.search(public)):
        if re.search(r"<PROPOSAL>", public, re.I):
            prop = _proposal(public, issues)
            if isinstance(prop, Malformed):
                return prop
            return Reject(counter=Offer(prop), message=message)
        return Reject(message=message)
    if phase == "propose":
        if re.search(r"<PROPOSAL>", public, re.I):
            prop = _proposal(public, issues)
            return prop if isinstance(prop, Malformed) else Offer(prop, message=message)
        if message:
            return Message(message)
        return Malformed("missing_proposal", "It is your turn to propose: reply with "
                         "<PROPOSAL>{json}</PROPOSAL> (a value for every issue), or <WALK/>.",
                         raw=text)
    return Malformed("missing_verdict", "You must answer the offer on the table with <ACCEPT/>, "
                     "<REJECT/> (optionally followed by a counter <PROPOSAL>{json}</PROPOSAL>) "
                     "or <WALK/>.", raw=text)
