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

from accord.agents.personas import persona_text
from accord.agents.templates import render
from accord.agents.utility_render import readable_utility
from accord.protocols.negotiation import GameView

#: the protocol text's acceptance sentence, replaced by a game's voting rules
UNANIMOUS = "A deal needs every party's acceptance."

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


def rules_text(role: str, n: int, game: GameView) -> str:
    """The voting rules as told to ``role`` (one of ``n`` parties), from
    ``negotiator_rules.j2``."""
    return render("negotiator_rules.j2", role=role, n=n, game=game)


def game_text(role: str, game: GameView) -> str:
    """A game's briefing for ``role``: public instructions (``"role"`` marked as
    represented by you), private instructions and persona, from ``negotiator_game.j2``."""
    brief = game.brief
    public = game.instructions.replace(f'"{role}"', f'"{role}" (represented by you)')
    persona = persona_text(brief.persona, brief.target) if brief and brief.persona else ""
    return render("negotiator_game.j2", instructions=public.strip(),
                  private=brief.instructions.strip() if brief else "", persona=persona)


def system_text(role: str, others: Sequence[str], issues: Mapping[str, Sequence[Any]],
                payload: Mapping[str, Any], batna: float, max_rounds: int, *,
                floor_rule: bool = False, constraints: str = "both",
                discount: float = 1.0, game: GameView | None = None) -> str:
    """The setup of ``role``'s session: ``payload`` is
    :func:`~accord.agents.utility_render.utility_payload`'s output (rendered readably);
    ``constraints`` places the BATNA rule (:data:`CONSTRAINTS`). A ``discount`` below 1
    adds the sentence of the time discount (utility and BATNA worth
    ``u * discount ** (round / (max_rounds + 1))``). ``game`` (a scenario's voting rules
    and briefing) replaces the unanimity sentence with the rules and adds the briefing."""
    listed = {k: list(v) for k, v in issues.items()}
    protocol = PROTOCOL_TEXT.format(max_rounds=max_rounds)
    briefing = ""
    if game is not None:
        protocol = protocol.replace(UNANIMOUS, rules_text(role, len(others) + 1, game))
        briefing = game_text(role, game)
    return render("negotiator_system.j2", role=role, others=list(others), issues=listed,
                  readable=readable_utility(dict(payload)), batna=batna,
                  protocol=protocol, briefing=briefing,
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


__all__ = ["CONSTRAINTS", "ORDERS", "PROTOCOL_TEXT", "feedback_text", "game_text", "rules_text",
           "system_text", "turn_text"]
