"""The person's view of a multi-issue negotiation (alternating offers, seed 002).

Shows only what the protocol's :class:`~accord.protocols.negotiation.NegotiationObservation`
holds for this party: the issues, *its own* utility of each offer and its BATNA, the public
offers and messages. Never another party's utility or BATNA.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from accord.agents.human.agent import HumanView
from accord.agents.human.brief import make_brief, num, preference_tables, rounds_left
from accord.agents.human.replies import coerce_package, reply_to_move
from accord.agents.human.seat import Reply
from accord.core.moves import Move, Package, Value
from accord.protocols.base import Observation
from accord.protocols.negotiation import NegotiationObservation


def _obs(obs: Observation) -> NegotiationObservation:
    if not isinstance(obs, NegotiationObservation) or obs.space is None or obs.utility is None:
        raise TypeError(f"the bargaining human view needs a NegotiationObservation, got "
                        f"{type(obs).__name__}")
    return obs


def _issues(obs: NegotiationObservation) -> dict[str, tuple[Value, ...]]:
    assert obs.space is not None
    return {i.name: tuple(i.values) for i in obs.space.issues}


def made_in(rec_round: int, source: str, parties: int) -> int:
    """The round a move was made in, as the record counts it (1-based protocol rounds).

    The protocol puts a two-party counter-offer on the table in the round *after* the
    rejection that made it; the transcript lists it under the rejection's round, and so
    does the person's view. (With more parties a counter waits for its maker's turn to
    propose; the table's round is kept.)
    """
    return rec_round - 1 if source == "counter" and parties == 2 and rec_round > 1 \
        else rec_round


def _briefing(o: NegotiationObservation) -> dict[str, str] | None:
    """A game's rules and briefing as this person is told them (``None`` for a plain
    scenario): the same texts an LLM negotiator gets, the private ones only its own."""
    game = o.game
    if game is None:
        return None
    from accord.agents.negotiator_prompts import rules_text
    from accord.agents.personas import persona_text

    brief = game.brief
    return {"rules": rules_text(o.role, len(o.parties), game),
            "instructions": game.instructions,
            "private": brief.instructions if brief else "",
            "persona": persona_text(brief.persona, brief.target)
            if brief and brief.persona else ""}


class BargainingView(HumanView):
    """Issues, own utility and BATNA, the table and the public history."""

    domain = "bargaining"

    def __init__(self, title: str = "", description: str = "") -> None:
        self.title = title
        self.description = description

    def brief(self, o: NegotiationObservation) -> dict[str, Any]:
        """The person's private brief: the scenario, their preferences, BATNA, rounds."""
        assert o.space is not None and o.utility is not None
        others = [p for p in o.parties if p != o.role]
        facts = [("You are", o.role), ("Against", ", ".join(others)),
                 ("Your BATNA (utility with no deal)", num(o.batna)),
                 ("Rounds left", rounds_left(o.round, o.max_rounds))]
        if o.discount < 1:  # Genius's time discount: the tables below are undiscounted
            facts.append(("Time costs you", f"a deal in round r is worth its utility x "
                          f"{o.discount:g}^(r/{o.max_rounds + 1}), and so is your BATNA "
                          "(the tables are undiscounted)"))
        return make_brief(self.title or "Negotiation", self.description, facts,
                          preference_tables(o.utility, o.space))

    def _utility(self, obs: NegotiationObservation, package: Package | None) -> float | None:
        if package is None:
            return None
        assert obs.utility is not None
        return round(float(obs.utility(package)), 4)

    def view(self, obs: Observation) -> dict[str, Any]:
        o = _obs(obs)

        def offer(pkg: Package | None) -> dict[str, Any] | None:
            return None if pkg is None else {"package": dict(pkg),
                                             "utility": self._utility(o, pkg)}

        out = {
            "domain": self.domain, "role": o.role, "round": o.round, "max_rounds": o.max_rounds,
            "phase": o.phase, "parties": list(o.parties),
            "issues": [{"name": n, "values": list(v)} for n, v in _issues(o).items()],
            "batna": round(float(o.batna), 4),
            "proposer": o.proposer,
            "current_offer": offer(o.current_offer),
            "my_last_offer": offer(o.my_last_offer),
            "suggestion": offer(o.suggestion),
            "brief": self.brief(o),
            "offers": [{"round": made_in(r.round, r.source, len(o.parties)),
                        "party": r.party, "source": r.source,
                        "package": dict(r.package), "utility": self._utility(o, r.package)}
                       for r in o.history],
            "messages": [{"round": r, "party": p, "text": t} for r, p, t in o.messages],
        }
        if o.discount < 1:  # utilities shown undiscounted; what a deal now is worth per unit
            out["discount"] = o.discount
            out["discount_now"] = round(o.discount_now, 4)
        briefing = _briefing(o)
        if briefing is not None:  # a game's rules and texts (a plain scenario has none)
            out["briefing"] = briefing
        return out

    def evaluate(self, obs: Observation) -> Callable[[Mapping[str, Any]], float | None]:
        o = _obs(obs)
        issues = _issues(o)

        def score(raw: Mapping[str, Any]) -> float | None:
            pkg = coerce_package(raw, issues)
            if isinstance(pkg, str) or set(pkg) != set(issues):
                return None
            return self._utility(o, pkg)
        return score

    def move(self, obs: Observation, reply: Reply) -> Move:
        issues = _issues(_obs(obs))
        return reply_to_move(reply, lambda raw: coerce_package(raw, issues))
