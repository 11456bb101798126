"""The ``human`` games agent: cheap talk, then an action, through the games protocol."""

from __future__ import annotations

import pytest

from accord.agents.human import SeatClosed
from accord.domains.base import EpisodeSpec, RunContext, get_domain


class ScriptedSeat:
    """A person answering from a list (structural Seat: only ``ask`` is used)."""

    def __init__(self, replies):
        self.replies = list(replies)
        self.turns = []

    async def ask(self, turn):
        self.turns.append(turn)
        if not self.replies:
            raise SeatClosed("gone")
        return self.replies.pop(0)


async def test_games_human_talks_then_plays_and_bad_actions_get_feedback() -> None:
    seat = ScriptedSeat([{"kind": "message", "text": "let us cooperate"},
                         {"kind": "action", "action": "betray"},
                         {"kind": "action", "action": "cooperate"}])
    spec = EpisodeSpec("games", "prisoners-dilemma", ("human", "rational"),
                       {"negotiation_rounds": 1})
    res = await get_domain("games").run_episode(spec, RunContext(extra={"seat": _seat(seat)}))
    assert res.status == "completed" and res.record["actions"] == {
        "Alice": "cooperate", "Bob": "defect"}
    assert [e.reason for e in res.trajectory.of_kind("invalid")] == ["illegal_action"]
    assert seat.turns[0].view["phase"] == "negotiation"
    assert seat.turns[1].view["actions"] == ["cooperate", "defect"]
    assert "(3, 3)" in seat.turns[1].view["description"]




def _seat(scripted):
    from accord.agents.human import Seat

    class Wrapped(Seat):
        async def ask(self, turn):
            return await scripted.ask(turn)
    return Wrapped()


async def test_games_person_who_leaves_is_recorded_as_quit() -> None:
    spec = EpisodeSpec("games", "prisoners-dilemma", ("rational", "human"))
    res = await get_domain("games").run_episode(spec, RunContext(extra={"seat": _seat(
        ScriptedSeat([]))}))
    assert (res.status, res.reason, res.who) == ("no_deal", "quit", "Bob")


def test_games_lists_human_and_validates_it_without_a_seat() -> None:
    dom = get_domain("games")
    assert "human" in dom.agent_kinds()
    dom.validate(EpisodeSpec("games", "prisoners-dilemma", ("human", "rational")))
    with pytest.raises(ValueError, match="takes no argument"):
        from accord.agents.spec import parse_agent_spec
        from accord.domains.games.agents import make_agent
        from accord.domains.games.catalog import resolve_game

        make_agent(parse_agent_spec("human:x"), resolve_game("prisoners-dilemma"), 0)
