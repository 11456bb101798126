"""The bargaining prompts (seed 002's Stakeholder Agent), rendered from template files.

:func:`system_text` is the setup sent once per session; :func:`turn_text` the per-call
prompt ("Round {n}. Current issue tracker ... Offer history ... Your move:");
:func:`feedback_text` the retry after an invalid reply. The LLM negotiator and tests that
build requests by hand render through these, so the rule-based stub reads exactly what a
model reads.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from accord.agents.templates import render
from accord.agents.utility_render import readable_utility

PROTOCOL_TEXT = (
    "Stacked alternating offers: each round one party proposes a full package and every "
    "other party answers at once (accept, reject with an optional counter-offer, or walk). "
    "A deal needs every party's acceptance. The round cap is {max_rounds}; after it the "
    "negotiation ends with no deal and everyone gets their BATNA. Rounds in which nobody "
    "concedes may end the negotiation early. Invalid replies get feedback and a retry.")


#: where the BATNA rule stands in the system prompt (a prompt variant; seed 002: "Place
#: non-negotiable constraints at the start ... or at the end"); ``both`` is the seed's
CONSTRAINTS = ("both", "start", "end")
#: what comes first in a turn prompt: the new offers or the other parties' messages
ORDERS = ("offers-first", "messages-first")


def system_text(role: str, others: Sequence[str], issues: Mapping[str, Sequence[Any]],
                payload: Mapping[str, Any], batna: float, max_rounds: int, *,
                floor_rule: bool = False, constraints: str = "both",
                discount: float = 1.0) -> str:
    """The setup of ``role``'s session: ``payload`` is
    :func:`~accord.agents.utility_render.utility_payload`'s output (rendered readably);
    ``constraints`` places the BATNA rule (:data:`CONSTRAINTS`). A ``discount`` below 1
    adds the sentence of the time discount (utility and BATNA worth
    ``u * discount ** (round / (max_rounds + 1))``)."""
    listed = {k: list(v) for k, v in issues.items()}
    return render("negotiator_system.j2", role=role, others=list(others), issues=listed,
                  readable=readable_utility(dict(payload)), batna=batna,
                  protocol=PROTOCOL_TEXT.format(max_rounds=max_rounds),
                  example=json.dumps({k: v[0] for k, v in listed.items()}),
                  floor_rule=floor_rule, constraints=constraints, discount=discount,
                  max_rounds=max_rounds, at_deadline=round(discount, 4),
                  first_round=round(discount ** (1 / (max_rounds + 1)), 4))


def turn_text(round: int, max_rounds: int, move: str, current: Mapping[str, Any] | None,
              proposer: str | None, new_offers: Sequence[Mapping[str, Any]] = (),
              messages: Sequence[str] = (), order: str = "offers-first") -> str:
    """One call's prompt; ``move`` is ``propose`` or ``respond``; ``new_offers`` are
    :meth:`~accord.protocols.negotiation.OfferRecord.to_dict` rows; ``order``
    (:data:`ORDERS`) puts the offers or the messages first."""
    return render("negotiator_turn.j2", round=round, max_rounds=max_rounds, move=move,
                  current=current, proposer=proposer, new_offers=list(new_offers),
                  messages=list(messages), order=order)


def feedback_text(reason: str, feedback: str, attempt: int, max_attempts: int, round: int,
                  max_rounds: int, move: str, current: Mapping[str, Any] | None,
                  proposer: str | None) -> str:
    """The retry prompt after an invalid reply (round and move restated)."""
    return render("negotiator_feedback.j2", reason=reason, feedback=feedback, attempt=attempt,
                  max_attempts=max_attempts, round=round, max_rounds=max_rounds, move=move,
                  current=current, proposer=proposer)


__all__ = ["CONSTRAINTS", "ORDERS", "PROTOCOL_TEXT", "feedback_text", "system_text", "turn_text"]
