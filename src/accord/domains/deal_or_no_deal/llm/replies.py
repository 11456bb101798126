"""Turning a Deal-or-No-Deal LLM reply into a typed move (DESIGN.md principle 3).

Reply tags:

* ``<deal>book=x hat=y ball=z</deal>`` - a proposal of the replier's *own* share;
* ``<ACCEPT/>`` - take the partner's proposal on the table;
* ``<REJECT/>`` - refuse it, optionally followed by a counter ``<deal>``;
* ``<MESSAGE>...</MESSAGE>`` - public text, alone (talk) or attached to a move;
* ``<WALK/>`` - leave with no deal;
* ``<CONSIDER>...</CONSIDER>`` / ``<THINK>...</THINK>`` - private, removed first.

Tags inside ``MESSAGE`` or private reasoning are text, never a move (issue 12).

A reply that cannot be read becomes :class:`~accord.core.moves.Malformed` with a reason
and targeted feedback; its ``raw`` text never holds the private reasoning. Whether the move
is legal now (e.g. accepting with nothing on the table, counts out of range) is the
protocol's call, not the parser's.

:func:`value_leaks` flags public text that states one of the replier's own per-unit
values (an item named next to its exact value and a word such as "worth" or "points").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from accord.agents.replies import too_long
from accord.agents.tags import Grammar, parse_tags
from accord.core.moves import Accept, Malformed, Message, Move, Offer, Reject, Walk
from accord.domains.deal_or_no_deal.deal_tag import DealTagError, parse_deal_body
from accord.domains.deal_or_no_deal.load import ITEMS

GRAMMAR = Grammar.of(data=["deal"], markers=["ACCEPT", "REJECT", "WALK"])
"""The grammar of a Deal-or-No-Deal reply (``MESSAGE`` is free text)."""

_CLAUSE = re.compile(r"[^.!?;\n]+")
_STATED = re.compile(r"(?:\bworth|\bvalued? (?:at|of)|\bvalue is)\s*(\d+)\b"
                     r"|\b(\d+)\s*(?:points?|pts)\b", re.I)
_DISCLOSE = re.compile(r"\bmy (point |item )?values? (are|is)\b", re.I)

MOVE_HELP = ("Reply with one move: <deal>book=x hat=y ball=z</deal> to propose your own share, "
             "<ACCEPT/> or <REJECT/> (optionally with a counter <deal>) for the proposal on "
             "the table, <MESSAGE>...</MESSAGE> alone to talk, or <WALK/>.")
_UNCLOSED = {"DEAL": "Your <deal> tag is not closed; write <deal>book=x hat=y ball=z</deal>.",
             "MESSAGE": "Your <MESSAGE> tag is not closed; write <MESSAGE>...</MESSAGE>."}


def _conflict(public: str, feedback: str) -> Malformed:
    return Malformed("conflicting_tags", feedback, raw=public)


def parse_reply(text: str, items: Sequence[str] = ITEMS, *,
                offer_for_you: Mapping[str, int] | None = None,
                responding: bool | None = None) -> Move:
    """The move a reply expresses, or :class:`Malformed` with targeted feedback.

    The reply is read by structure (:mod:`accord.agents.tags`): tags inside the
    ``<MESSAGE>`` (or any other free-text block) or inside private reasoning are text, so
    a message that quotes ``<ACCEPT/>``, ``<WALK/>`` or a ``<deal>`` makes no move; text
    outside every tag is ignored. ``offer_for_you`` is what the partner's pending proposal
    leaves the replier: an ``<ACCEPT/>`` restating exactly that share in a ``<deal>`` is
    still an accept. ``responding=False`` (nothing of the partner's on the table) reads
    ``<REJECT/>`` plus a ``<deal>`` as a proposal.
    """
    parsed = parse_tags(text, GRAMMAR)
    public = parsed.public
    if (long := too_long(parsed)) is not None:
        return long
    unclosed = parsed.error("unclosed")
    if unclosed is not None:
        name = unclosed.tags[0]
        return Malformed("unclosed_tag", _UNCLOSED.get(name, unclosed.feedback), raw=public)
    deals = parsed.all("deal")
    if len(deals) > 1:
        return Malformed("multiple_deals", f"Give at most one <deal>; you gave {len(deals)}.",
                         raw=public)
    found = parsed.first("MESSAGE")
    message = (found.text or None) if found is not None else None
    package = None
    if deals:
        try:
            package = parse_deal_body(deals[0].text, items)
        except DealTagError as exc:
            return Malformed("bad_deal", f"Your <deal> could not be read: {exc}.", raw=public)
    walk, accept, reject = (parsed.has(t) for t in ("WALK", "ACCEPT", "REJECT"))
    if walk:
        if accept or reject or package is not None:
            return _conflict(public, "<WALK/> ends the negotiation; do not combine it with "
                             "<ACCEPT/>, <REJECT/> or a <deal>.")
        return Walk(reason=message or "walked away")
    if accept and reject:
        return _conflict(public, "Use either <ACCEPT/> or <REJECT/>, not both.")
    if accept:
        if package is not None and (offer_for_you is None or package != dict(offer_for_you)):
            return _conflict(public, "<ACCEPT/> takes the proposal on the table as it is; to "
                             "ask for a different split, use <REJECT/> with your <deal>.")
        return Accept(message=message)
    if reject:
        if package is None:
            return Reject(message=message)
        if responding is False:
            return Offer(package, message=message)
        return Reject(counter=Offer(package, message=message))
    if package is not None:
        return Offer(package, message=message)
    if message:
        return Message(message)
    return Malformed("missing_move", MOVE_HELP, raw=public)


def value_leaks(text: str, values: Sequence[int], items: Sequence[str] = ITEMS) -> list[str]:
    """Clauses of ``text`` that state one of ``values`` (per unit of ``items``).

    A clause leaks when it says "my values are ...", or names an item and gives a number
    that is that item's value *as a value* ("worth 3", "valued at 3", "3 points"); counts
    ("I take 3 balls", ``book=3``) are not values and are not flagged.
    """
    out: list[str] = []
    for clause in _CLAUSE.findall(text):
        if _DISCLOSE.search(clause):
            out.append(clause.strip())
            continue
        stated = {int(x) for pair in _STATED.findall(clause) for x in pair if x}
        for item, value in zip(items, values, strict=True):
            if value in stated and re.search(rf"\b{item}(e?s)?\b", clause, re.I):
                out.append(clause.strip())
                break
    return out
