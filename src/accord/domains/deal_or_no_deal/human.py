"""The person's view of a Deal-or-No-Deal dialogue: the counts and *their own* values.

A proposal has ``<deal>`` semantics (:mod:`accord.domains.deal_or_no_deal.deal_tag`): the
package is the share the proposer takes; the partner gets the rest. The view shows what the
partner's pending proposal leaves the person and what it is worth to them -- never the
partner's values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from accord.agents.human.agent import HumanView
from accord.agents.human.brief import make_brief, rounds_left, table
from accord.agents.human.replies import coerce_counts, reply_to_move
from accord.agents.human.seat import Reply
from accord.core.moves import Move
from accord.domains.deal_or_no_deal.protocol import DondObservation
from accord.domains.deal_or_no_deal.rules import utility
from accord.protocols.base import Observation


def _obs(obs: Observation) -> DondObservation:
    if not isinstance(obs, DondObservation):
        raise TypeError(f"the Deal-or-No-Deal human view needs a DondObservation, got "
                        f"{type(obs).__name__}")
    return obs


def _worth(obs: DondObservation, share: Mapping[str, Any] | None) -> int | None:
    if share is None:
        return None
    return utility(obs.values, [int(share[i]) for i in obs.items])


class DondView(HumanView):
    """Counts, own values, the table from the person's side, the public history."""

    domain = "deal-or-no-deal"

    def __init__(self, scenario: str = "") -> None:
        self.scenario = scenario

    def brief(self, o: DondObservation) -> dict[str, Any]:
        """The person's private brief: the items, their own values, no-deal, rounds."""
        total = utility(o.values, o.counts)
        rows = [[i, str(c), str(v), str(c * v)]
                for i, c, v in zip(o.items, o.counts, o.values, strict=True)]
        return make_brief(
            f"Deal or No Deal {self.scenario}".strip(),
            "Divide the items on the table with your partner. A proposal names what you "
            "take; your partner gets the rest. You score the items you end up with at your "
            "own values; your partner values them differently, and their values are hidden "
            "from you.",
            [("You are", o.role), ("Against", o.partner),
             ("Everything is worth to you", f"{total} points"),
             ("No deal (BATNA)", "0 points for both"),
             ("Rounds left", rounds_left(o.round, o.max_rounds))],
            [table("Your values (your partner's are hidden)",
                   ["item", "count", "your value each", "all of them"], rows, "preferences")])

    def view(self, obs: Observation) -> dict[str, Any]:
        o = _obs(obs)
        return {
            "brief": self.brief(o),
            "domain": self.domain, "role": o.role, "partner": o.partner, "round": o.round,
            "max_rounds": o.max_rounds, "last_turn": o.last_turn,
            "items": [{"name": i, "count": c, "value": v}
                      for i, c, v in zip(o.items, o.counts, o.values, strict=True)],
            "total": utility(o.values, o.counts),
            "offer": None if o.offer is None else {
                "partner_takes": dict(o.offer), "you_get": dict(o.offer_for_you or {}),
                "worth": _worth(o, o.offer_for_you)},
            "my_offer": None if o.my_offer is None else {
                "you_take": dict(o.my_offer), "worth": _worth(o, o.my_offer)},
            "history": [dict(e) for e in o.history],
        }

    def evaluate(self, obs: Observation) -> Callable[[Mapping[str, Any]], float | None]:
        o = _obs(obs)

        def score(raw: Mapping[str, Any]) -> float | None:
            share = coerce_counts(raw)
            if isinstance(share, str) or set(share) != set(o.items):
                return None
            if any(share[i] > c for i, c in zip(o.items, o.counts, strict=True)):
                return None
            return _worth(o, share)
        return score

    def move(self, obs: Observation, reply: Reply) -> Move:
        return reply_to_move(reply, coerce_counts)
