"""Structured output for the Deal-or-No-Deal LLM agents (``structured=json_schema|grammar``).

With structured output on, a turn's reply is one JSON object whose shape the endpoint
enforces (:mod:`accord.agents.structured`), derived from the turn's legal moves and the
game: ``move`` is one of the moves the protocol allows now (``offer``, ``accept``,
``reject``, ``message``, ``walk``), ``deal`` names every item with a count from 0 to its
count (the share the replier takes: its proposal with ``offer``, its counter-proposal with
``reject``), ``message`` is free text. The seed mode of ``llm-workflow`` adds ``belief``:
one row per valuation of the partner, each item's value per unit and the probability as
text (``1/3``, ``0.33``), which is read by the same :func:`~accord.domains.
deal_or_no_deal.llm.belief.parse_belief` as a ``<BELIEF>`` block.

The reply becomes the same typed move the tag parser gives; the protocol validates it as
always (a count out of range cannot be written; accepting with nothing on the table is not
offered).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from accord.agents import structured as st
from accord.core.moves import Accept, Malformed, Message, Move, Offer, Reject, Walk
from accord.domains.deal_or_no_deal.protocol import DondObservation
from accord.solvers.bayes import valuation_space


def deal_schema(items: Sequence[str], counts: Sequence[int]) -> dict[str, Any]:
    """Every item once, with a count from 0 to its count."""
    return st.obj({item: st.enum(list(range(count + 1)))
                   for item, count in zip(items, counts, strict=True)})


def belief_schema(items: Sequence[str], counts: Sequence[int], total: int) -> dict[str, Any]:
    """Rows of (valuation, probability): each item's value per unit can be at most what
    makes all its units worth ``total``; at most as many rows as there are valuations."""
    values = st.obj({item: st.enum(list(range(total // max(count, 1) + 1)))
                     for item, count in zip(items, counts, strict=True)})
    rows = len(valuation_space(tuple(counts), total))
    return st.array(st.obj({"values": values, "p": st.text(16)}), max_items=rows)


def reply_schema(obs: DondObservation, *, belief: bool = False) -> dict[str, Any]:
    """The JSON schema of a valid reply on this turn (``belief``: the seed mode's statement)."""
    fields: dict[str, Any] = {}
    if belief:
        total = sum(v * c for v, c in zip(obs.values, obs.counts, strict=True))
        fields["belief"] = belief_schema(obs.items, obs.counts, total)
    fields["move"] = st.enum(list(obs.legal))
    fields["deal"] = deal_schema(obs.items, obs.counts)
    fields["message"] = st.text(min_chars=1)  # a message-only move needs words
    return st.obj(fields)


def belief_block(data: Mapping[str, Any], items: Sequence[str]) -> str:
    """The ``belief`` rows of a structured reply as a ``<BELIEF>`` block (what
    :func:`~accord.domains.deal_or_no_deal.llm.belief.parse_belief` reads); no block when
    the reply has none."""
    rows = data.get("belief")
    if not isinstance(rows, list):
        return ""
    lines = []
    for row in rows:
        values = row.get("values") if isinstance(row, Mapping) else None
        if not isinstance(values, Mapping):
            continue
        share = " ".join(f"{i}={values.get(i)}" for i in items)
        lines.append(f"{share}: {str(row.get('p', '')).strip()}")
    return "<BELIEF>\n" + "\n".join(lines) + "\n</BELIEF>"


def read_move(data: Mapping[str, Any], obs: DondObservation) -> Move:
    """The move a reply in :func:`reply_schema`'s shape expresses (``Malformed`` if none)."""
    move = data.get("move")
    text = data.get("message")
    message = (text.strip() or None) if isinstance(text, str) else None
    if move not in obs.legal:
        return Malformed("invalid_move", f"move must be one of {', '.join(obs.legal)}; got "
                         f"{str(move)[:40]!r}.", raw=st.raw(data))
    if move == "walk":
        return Walk(reason=message or "walked away")
    if move == "accept":
        return Accept(message=message)
    if move == "message":
        if message is None:
            return Malformed("empty_message", "With move message, write something in "
                             "message.", raw=st.raw(data))
        return Message(message)
    deal = data.get("deal")
    if not isinstance(deal, Mapping):
        return Malformed("invalid_json", "deal must be an object with a count for every "
                         "item.", raw=st.raw(data))
    package = dict(deal)
    if move == "reject":
        return Reject(counter=Offer(package, message=message))
    return Offer(package, message=message)


__all__ = ["belief_block", "belief_schema", "deal_schema", "read_move", "reply_schema"]
