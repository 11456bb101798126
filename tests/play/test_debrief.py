"""The debrief's numbers by known values and brute force; the person's view counts rounds
the way the record does."""

from __future__ import annotations

import asyncio
from itertools import product
from typing import Any

import numpy as np
import pytest

from accord.agents.human import Seat, Turn
from accord.agents.spec import AgentSpec
from accord.domains.base import EpisodeSpec, RunContext, get_domain
from accord.play.debrief import Plane, debrief, gap_to_optimum


def run(domain: str, scenario: str, agents: tuple[str, ...], params: dict[str, Any] | None = None,
        seat: Seat | None = None) -> Any:
    spec = EpisodeSpec(domain, scenario, tuple(AgentSpec(a) for a in agents), params or {}, 0)
    result = asyncio.run(get_domain(domain).run_episode(
        spec, RunContext(extra={"seat": seat} if seat else {})))
    return spec, result


def test_value_left_is_the_best_joint_pareto_improvement() -> None:
    pts = np.array([[0.0, 0.0], [0.2, 0.2], [0.5, 0.3], [0.3, 0.6], [0.9, 0.1]])
    plane = Plane("a", "b", pts, (0.0, 0.0), (0.2, 0.2), True)
    gap = gap_to_optimum(plane)
    # outcomes at least as good for both as (0.2, 0.2): (0.5, 0.3) and (0.3, 0.6)
    assert gap["value_left"] == pytest.approx(0.9 - 0.4)
    assert gap["better"] == [0.3, 0.6]
    assert gap["frontier"] == [[0.3, 0.6], [0.5, 0.3], [0.9, 0.1]]
    # Nash bargaining over (0, 0): max product 0.18 at (0.3, 0.6)
    assert gap["nash"] == [[0.3, 0.6]]
    assert gap["l2_to_pareto"] == pytest.approx(float(np.hypot(0.3, 0.1)))  # to (0.5, 0.3)
    on_front = gap_to_optimum(Plane("a", "b", pts, (0.0, 0.0), (0.9, 0.1), True))
    assert on_front["value_left"] == 0.0 and on_front["better"] is None


def test_bargaining_debrief_agrees_with_accord_analyze() -> None:
    from accord.domains.bargaining import analyze, resolve_scenario

    spec, result = run("bargaining", "buyer-seller", ("boulware", "conceder"))
    d = debrief(spec, result, "seller")
    assert d is not None and d["role"] == "seller" and d["other"] == "buyer"
    nash = analyze(resolve_scenario("buyer-seller"))["nash"]["utilities"]
    assert d["plane"]["nash"] == [[pytest.approx(nash["seller"]), pytest.approx(nash["buyer"])]]
    utils = result.record["utilities"]
    assert d["plane"]["outcome"] == [utils["seller"], utils["buyer"]]  # the person on x
    assert d["l2_to_pareto"] == pytest.approx(
        get_domain("bargaining").metrics(spec, result)["l2_to_pareto"])


def test_deal_or_no_deal_plane_is_every_split_by_brute_force() -> None:
    from accord.play.debrief import plane_of

    class Fake:
        status = "agreement"

        def __init__(self) -> None:
            self.record = {"counts": [1, 2], "values": {"alice": [4, 3], "bob": [0, 5]},
                           "scores": {"alice": 4, "bob": 10}, "agreement": True}

    fake: Any = Fake()
    plane = plane_of(EpisodeSpec("deal-or-no-deal", "x", (), {}, 0), fake, "alice")
    assert plane is not None
    expect = sorted((a * 4 + b * 3, (1 - a) * 0 + (2 - b) * 5)
                    for a, b in product(range(2), range(3)))
    assert sorted(map(tuple, plane.points.tolist())) == expect
    gap = gap_to_optimum(plane)
    assert gap["value_left"] == 0.0  # (4, 10): alice takes the book, bob the hats


def test_game_debrief_names_the_equilibrium_and_what_cooperation_left() -> None:
    spec, result = run("games", "prisoners-dilemma", ("rational", "rational"),
                       {"negotiation_rounds": 0})
    d = debrief(spec, result, "Bob")
    assert d is not None
    assert d["plane"]["nash"] == [[1.0, 1.0]] and d["value_left"] == 4.0
    assert d["plane"]["disagreement"] is None  # a game has no BATNA


def test_task_exchange_and_deliberation_debriefs() -> None:
    spec, result = run("task-exchange", "competitive", ("utility-aware", "selfish"))
    d = debrief(spec, result, "Bob")
    assert d is not None and d["plane"]["disagreement"] == [0.25, 0.58]
    spec, result = run("deliberation", "menu-numeric", ("share", "share"))
    d = debrief(spec, result, "agent_1")
    assert d is not None and d["plane"] is None
    assert d["rows"] == [["team reward", "186.84", "186.84"]]


class Scripted(Seat):
    """Answers every turn from a list; keeps every turn it was shown."""

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies = replies
        self.turns: list[Turn] = []

    async def ask(self, turn: Turn) -> dict[str, Any]:
        self.turns.append(turn)
        return self.replies.pop(0)


def test_the_persons_view_numbers_a_counter_offer_by_the_round_it_was_made() -> None:
    """Regression: the view said a seller's counter came in round 2 while the record (and
    the transcript) put that rejection in round 1."""
    counter = {"kind": "reject", "counter": {"price": "1150", "delivery_days": "10",
                                             "warranty_years": "0"}}
    seat = Scripted([counter, counter, {"kind": "walk"}])
    _, result = run("bargaining", "buyer-seller", ("hardliner", "human"), seat=seat)
    last = seat.turns[-1].view
    made = {(e.party, e.round) for e in result.trajectory.events
            if e.kind == "move" and e.move is not None}
    for offer in last["offers"]:
        assert (offer["party"], offer["round"]) in made, offer
    assert [(o["party"], o["round"]) for o in last["offers"][:3]] == [
        ("buyer", 1), ("seller", 1), ("buyer", 2)]
