"""The human agent: a person's replies go through the engine like any agent's moves."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from accord.agents.human import HumanAgent, Seat, SeatClosed, Turn
from accord.agents.human.bargaining import BargainingView
from accord.agents.spec import AgentSpecError
from accord.domains.bargaining import resolve_scenario, run_negotiation


class ScriptedSeat(Seat):
    """A person who answers from a list (and leaves when it runs out)."""

    def __init__(self, replies: list[Mapping[str, Any]]) -> None:
        self.replies = list(replies)
        self.turns: list[Turn] = []

    async def ask(self, turn: Turn) -> Mapping[str, Any]:
        self.turns.append(turn)
        if not self.replies:
            raise SeatClosed("the person closed the terminal")
        return self.replies.pop(0)


async def test_person_reaches_agreement_through_the_engine_with_feedback() -> None:
    seat = ScriptedSeat([
        {"kind": "offer", "package": {"price": "9999", "delivery_days": "5",
                                      "warranty_years": "1"}},            # not a value
        {"kind": "offer", "package": {"price": "1200"}},                  # not a full package
        {"kind": "offer", "package": {"price": "800", "delivery_days": "10",
                                      "warranty_years": "3"}, "message": "final <b>offer</b>"},
        {"kind": "accept"},
    ])
    res = await run_negotiation(resolve_scenario("buyer-seller"), ["human", "boulware"],
                                params={"max_rounds": 4}, ctx={"seat": seat})
    invalid = res.trajectory.of_kind("invalid")
    assert [e.reason for e in invalid] == ["unreadable_reply", "missing_issue"]
    assert "9999" in (invalid[0].feedback or "") and "choose one of" in (invalid[0].feedback or "")
    # the engine re-asked with the protocol's feedback, attempt by attempt
    assert seat.turns[1].feedback == {"reason": "unreadable_reply",
                                      "feedback": invalid[0].feedback}
    assert seat.turns[2].feedback is not None and seat.turns[2].attempt == 3
    moves = res.trajectory.of_kind("move")
    assert moves[0].party == "buyer" and moves[0].move is not None
    assert moves[0].move["package"] == {"price": 800, "delivery_days": 10, "warranty_years": 3}
    assert moves[0].move["message"] == "final <b>offer</b>"
    assert res.status in ("agreement", "no_deal")


async def test_view_is_private_and_live_utility_matches_the_utility_function() -> None:
    scenario = resolve_scenario("buyer-seller")
    seat = ScriptedSeat([{"kind": "walk"}])
    res = await run_negotiation(scenario, ["boulware", "human"], ctx={"seat": seat})
    assert res.status == "no_deal" and res.reason == "walk" and res.who == "seller"
    turn = seat.turns[0]
    view = turn.view
    seller = next(p for p in scenario.parties if p.name == "seller")
    buyer = next(p for p in scenario.parties if p.name == "buyer")
    assert view["batna"] == pytest.approx(seller.batna)
    # every utility the person sees is their own; the other side's BATNA is nowhere
    assert set(view) == {"domain", "role", "round", "max_rounds", "phase", "parties", "issues",
                         "batna", "proposer", "current_offer", "my_last_offer", "suggestion",
                         "offers", "messages", "brief"}
    # the brief: the seller's own weights and scores and BATNA, none of the buyer's
    brief = view["brief"]
    assert dict(brief["facts"])["Your BATNA (utility with no deal)"] == "0.35"
    rows = brief["tables"][0]["rows"]
    assert {r[0]: r[1] for r in rows} == {"price": "0.7", "delivery_days": "0.2",
                                          "warranty_years": "0.1"}  # the seller's weights
    assert ["delivery_days", "0.2", "10", "1", "best"] in rows
    assert "0.4" not in repr(brief["facts"]) and "0.15" not in repr(rows)  # buyer's numbers
    for shown in [view["current_offer"], *view["offers"]]:
        assert shown["utility"] == pytest.approx(seller.utility(shown["package"]), abs=1e-4)
        assert shown["utility"] != pytest.approx(buyer.utility(shown["package"]), abs=1e-4)
    assert "batna" not in repr(view["offers"]) and buyer.batna != seller.batna
    table = view["current_offer"]
    assert table["utility"] == pytest.approx(seller.utility(table["package"]), abs=1e-4)
    assert turn.evaluate is not None
    pkg = {"price": "1200", "delivery_days": "10", "warranty_years": "0"}
    assert turn.evaluate(pkg) == pytest.approx(
        seller.utility({"price": 1200, "delivery_days": 10, "warranty_years": 0}), abs=1e-4)
    assert turn.evaluate({"price": "1200"}) is None


async def test_a_person_who_leaves_ends_the_episode_as_quit_not_error() -> None:
    res = await run_negotiation(resolve_scenario("buyer-seller"), ["human", "boulware"],
                                ctx={"seat": ScriptedSeat([])})
    assert (res.status, res.reason, res.who) == ("no_deal", "quit", "buyer")
    assert "closed the terminal" in (res.detail or "")
    assert next(e.reason for e in res.trajectory.of_kind("note")) == "quit"


async def test_human_without_a_seat_is_a_clear_error() -> None:
    with pytest.raises(AgentSpecError, match="needs a person at a seat"):
        await run_negotiation(resolve_scenario("buyer-seller"), ["human", "boulware"])


def test_bargaining_view_rejects_foreign_observations() -> None:
    from accord.protocols.base import Observation

    with pytest.raises(TypeError, match="NegotiationObservation"):
        HumanAgent(ScriptedSeat([]), BargainingView()).turn(Observation("x", 1))
