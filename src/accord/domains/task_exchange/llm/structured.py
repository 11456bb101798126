"""Structured output for the task-exchange LLM agent (``structured=json_schema|grammar``).

The reply of each turn is one JSON object whose shape the endpoint enforces
(:mod:`accord.agents.structured`), derived from the phase and the task universe:

* Agent Turn 1 (``consider``): ``{"consider": text}`` - the private plan, never forwarded;
* a proposal turn: ``{"proposal": {...}, "message": text}``;
* an answer: ``{"move": "accept"|"reject", "proposal": {...}, "message": text}`` (the
  proposal is the alternative that goes with a reject), on the final turn without a
  proposal.

A proposal gives each agent one composite description, exactly as listed, and the two
together make a valid split: every atomic task once, each agent at least one (Rules 2, 4
and 7; the split's masks are complements). Up to :data:`MAX_SPLITS` splits the schema
lists them all (``anyOf``), so even a tiny model can only write a valid one; beyond that
each agent's value is one of the listed descriptions and the protocol checks the rest.

The reply becomes the same typed move as the tagged reply (:func:`read_move`), with the
public text the partner sees written in the Figure 7 tags (:func:`tagged_text`), so a
partner reading the dialogue history gets the same format from either kind of reply.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from accord.agents import structured as st
from accord.agents.jsonsafe import loads_bounded, strip_fence
from accord.core.moves import Accept, Malformed, Message, Move, Offer, Reject
from accord.domains.task_exchange.llm.replies import format_proposal
from accord.domains.task_exchange.protocol import TaskExchangeObservation
from accord.domains.task_exchange.scenario import TaskUniverse

#: the most splits a proposal schema lists one by one (2^n - 2 for n atomic tasks)
MAX_SPLITS = 254
ACCEPT_TEXT = "I agree with this allocation."
REJECT_TEXT = "This doesn't work for me. Let's try another allocation."


def proposal_schema(universe: TaskUniverse, roles: Sequence[str]) -> dict[str, Any]:
    """A proposal that is a valid split of the tasks between ``roles`` (see the module
    docstring); each agent's value is one listed composite description."""
    a, b = roles
    full = universe.full
    splits = range(1, full)
    about = ("each agent gets one composite description copied from the list; together "
             "they hold every atomic task exactly once and each agent holds at least one")
    if len(splits) <= MAX_SPLITS:
        return {"anyOf": [st.obj({a: st.enum([universe.description(m)]),
                                  b: st.enum([universe.description(full ^ m)])})
                          for m in splits], "description": about}
    every = st.enum([universe.description(m) for m in splits])
    return {**st.obj({a: every, b: every}), "description": about}


def reply_schema(obs: TaskExchangeObservation) -> dict[str, Any]:
    """The JSON schema of a valid reply in this turn's phase."""
    assert obs.view is not None
    if obs.phase == "consider":
        return st.obj({"consider": st.text()})
    proposal = proposal_schema(obs.view.universe, list(obs.view.initial))
    if obs.phase == "propose":
        return st.obj({"proposal": proposal, "message": st.text()})
    if obs.final_response:
        return st.obj({"move": st.enum(["accept", "reject"]), "message": st.text()})
    return st.obj({"move": st.enum(["accept", "reject"]), "proposal": proposal,
                   "message": st.text()})


#: what an ``llm_call`` note shows instead of the private plan of a structured reply
PRIVATE = "(private)"


def without_plan(text: str) -> str:
    """A structured reply without its private ``consider`` text (for notes and logs); a
    reply that is not a JSON object is returned as it is, unless it mentions the field at
    all, when nothing of it is kept (it may hold the plan)."""
    try:
        data = loads_bounded(strip_fence(text))
    except (ValueError, RecursionError):
        return PRIVATE if '"consider"' in text else text
    if isinstance(data, dict) and "consider" in data:
        return json.dumps({**data, "consider": PRIVATE}, ensure_ascii=False)
    return text


def tagged_text(move: Move, message: str | None, roles: Sequence[str]) -> str:
    """The public text of a structured move in the Figure 7 tags (what the partner sees)."""
    if isinstance(move, Accept):
        return f"<ACCEPT> {message or ACCEPT_TEXT} </ACCEPT>"
    if isinstance(move, Reject):
        text = f"<REJECT> {message or REJECT_TEXT} </REJECT>"
        if move.counter is not None:
            text += "\n" + format_proposal(move.counter.package, roles)  # type: ignore[arg-type]
        return text
    if isinstance(move, Offer):
        block = format_proposal(move.package, roles)  # type: ignore[arg-type]
        return f"{message}\n{block}" if message else block
    return message or ""


def read_move(data: Mapping[str, Any], obs: TaskExchangeObservation) -> Move:
    """The move a reply in :func:`reply_schema`'s shape expresses (``Malformed`` if none).

    Agent Turn 1 gives an empty :class:`Message` (the plan is private); otherwise an
    :class:`Offer`, :class:`Accept` or :class:`Reject` whose ``message`` is
    :func:`tagged_text`."""
    assert obs.view is not None
    roles = list(obs.view.initial)
    if obs.phase == "consider":
        return Message("")
    text = data.get("message")
    message = text.strip() or None if isinstance(text, str) else None
    proposal = data.get("proposal")
    offer = None
    if isinstance(proposal, Mapping) and proposal:
        bad = [k for k, v in proposal.items() if k not in roles or not isinstance(v, str)]
        if bad:
            return Malformed("malformed_proposal", f"proposal must give each of {', '.join(roles)} "
                             "one composite description (a string).", raw=st.raw(data))
        offer = Offer({str(k): v for k, v in proposal.items()})
    if obs.phase == "propose":
        if offer is None:
            return Malformed("missing_proposal_open_tag", "Your reply has no proposal: give "
                             "each agent one composite description in proposal.",
                             raw=st.raw(data))
        return Offer(offer.package, message=tagged_text(offer, message, roles))
    if data.get("move") == "accept":
        return Accept(message=tagged_text(Accept(), message, roles))
    if data.get("move") == "reject":
        counter = None if obs.final_response else offer
        public = tagged_text(Reject(counter=counter), message, roles)
        return Reject(counter=None if counter is None else Offer(counter.package,
                                                                 message=public),
                      message=public)
    return Malformed("illegal_move", f"move must be accept or reject; got "
                     f"{str(data.get('move'))[:40]!r}.", raw=st.raw(data))


__all__ = ["MAX_SPLITS", "PRIVATE", "proposal_schema", "read_move", "reply_schema",
           "tagged_text", "without_plan"]
