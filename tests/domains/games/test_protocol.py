"""The cheap-talk-then-play protocol, driven through the engine's run_episode."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from accord.agents.base import Agent
from accord.core.moves import Accept, Action, Malformed, Message, Move
from accord.domains.games import GameObservation, GameProtocol, load_catalog_game
from accord.protocols.base import Observation
from accord.protocols.engine import Bounds, run_episode


class Script(Agent):
    """Plays a fixed list of moves and records every observation it gets."""

    name = "script"

    def __init__(self, moves: Sequence[Move], *, wait: float = 0.0) -> None:
        self.moves = list(moves)
        self.seen: list[GameObservation] = []
        self.wait = wait
        self.reset()

    async def act(self, observation: Observation) -> Move:
        assert isinstance(observation, GameObservation)
        self.seen.append(observation)
        if self.wait:
            await asyncio.sleep(self.wait)
        return self.moves.pop(0)


async def test_simultaneous_play_without_talk() -> None:
    game = load_catalog_game("prisoners-dilemma")
    alice, bob = Script([Action("defect")]), Script([Action("cooperate")])
    res = await run_episode(GameProtocol(game), {"Alice": alice, "Bob": bob})
    assert res.status == "completed"
    rec = res.record
    assert rec["actions"] == {"Alice": "defect", "Bob": "cooperate"}
    assert rec["profile"] == ["defect", "cooperate"]
    assert rec["payoffs"] == {"Alice": 5, "Bob": 0}
    assert rec["messages"] == [] and rec["completed"]
    assert rec["spec"]["type"] == "normal"
    # both were asked at once, from the same state: nobody saw a choice
    for agent in (alice, bob):
        (obs,) = agent.seen
        assert obs.phase == "play" and obs.legal == ("action",)
        assert obs.actions == ("cooperate", "defect") and obs.history == ()


async def test_cheap_talk_alternates_from_the_first_speaker() -> None:
    game = load_catalog_game("battle-of-the-sexes")
    alice = Script([Message("a1"), Message("a2"), Action("opera")], wait=0.01)
    bob = Script([Message("b1"), Message("b2"), Action("opera")])
    proto = GameProtocol(game, negotiation_rounds=2, first_speaker="Bob")
    res = await run_episode(proto, {"Alice": alice, "Bob": bob})
    assert [(m["round"], m["speaker"], m["text"]) for m in res.record["messages"]] == [
        (1, "Bob", "b1"), (1, "Alice", "a1"), (2, "Bob", "b2"), (2, "Alice", "a2")]
    assert res.record["first_speaker"] == "Bob"
    assert res.record["payoffs"] == {"Alice": 2, "Bob": 1}
    # Bob speaks first and sees nothing; Alice sees only what was already said
    assert [len(o.messages) for o in bob.seen] == [0, 2, 4]
    assert [len(o.messages) for o in alice.seen] == [1, 3, 4]
    assert [o.phase for o in alice.seen] == ["negotiation", "negotiation", "play"]
    assert [o.negotiation_round for o in bob.seen] == [1, 2, 0]
    assert alice.seen[0].legal == ("message",) and alice.seen[0].negotiation_rounds == 2
    moves = [e for e in res.trajectory if e.kind == "move"]
    assert [e.party for e in moves][:4] == ["Bob", "Alice", "Bob", "Alice"]


async def test_invalid_moves_get_feedback_and_retry() -> None:
    game = load_catalog_game("stag-hunt")
    alice = Script([Action("stag"), Message(" "), Message("let's hunt the stag"),
                    Message("too late to talk"), Action("rabbit"), Action("stag")])
    bob = Script([Message("ok"), Malformed("no tags", "Answer with <ACTION>..."),
                  Action("stag")])
    res = await run_episode(GameProtocol(game, negotiation_rounds=1),
                            {"Alice": alice, "Bob": bob})
    assert res.status == "completed"
    invalid = [(e.party, e.reason) for e in res.trajectory if e.kind == "invalid"]
    # talk is sequential; in play both are asked concurrently, so compare as a multiset
    assert invalid[:2] == [("Alice", "expected_message"), ("Alice", "empty_message")]
    assert sorted(invalid[2:]) == [("Alice", "expected_action"), ("Alice", "illegal_action"),
                                   ("Bob", "malformed")]
    retry = alice.seen[1]
    assert retry.feedback is not None and retry.attempt == 2
    assert "negotiation round 1 of 1" in retry.feedback.feedback
    last = alice.seen[-1]
    assert last.feedback is not None and "'rabbit'" in last.feedback.feedback
    assert res.record["profile"] == ["stag", "stag"]


async def test_too_many_invalid_moves_end_in_error() -> None:
    game = load_catalog_game("prisoners-dilemma")
    alice = Script([Accept()] * 3)
    bob = Script([Action("defect")])
    res = await run_episode(GameProtocol(game), {"Alice": alice, "Bob": bob},
                            bounds=Bounds(max_retries=2))
    assert res.status == "error" and res.who == "Alice"
    assert res.record["completed"] is False and res.record["payoffs"] is None


async def test_sequential_play_follows_the_tree() -> None:
    game = load_catalog_game("trigame")
    alice = Script([Message("hi"), Action("choice_2"), Action("choice_9"), Action("choice_2")])
    bob = Script([Message("hello"), Action("choice_1")])
    res = await run_episode(GameProtocol(game, negotiation_rounds=1),
                            {"Alice": alice, "Bob": bob})
    rec = res.record
    assert rec["path"] == ["choice_2", "choice_1", "choice_2"]
    assert rec["moves"] == [{"player": "Alice", "action": "choice_2"},
                            {"player": "Bob", "action": "choice_1"},
                            {"player": "Alice", "action": "choice_2"}]
    assert rec["payoffs"] == {"Alice": 4, "Bob": 10}
    bob_play = bob.seen[-1]
    assert bob_play.node == ("choice_2",) and bob_play.history == (("Alice", "choice_2"),)
    assert alice.seen[-1].node == ("choice_2", "choice_1")
    assert res.rounds == 1 + 3


def test_protocol_configuration_errors() -> None:
    game = load_catalog_game("prisoners-dilemma")
    with pytest.raises(ValueError, match="not one of the players"):
        GameProtocol(game, first_speaker="Carol")
    with pytest.raises(ValueError, match=">= 0"):
        GameProtocol(game, negotiation_rounds=-1)
    proto = GameProtocol(game, first_speaker=1, max_message_chars=5)
    state = proto.initial_state()
    assert proto.to_move(state) == ("Alice", "Bob")  # no talk: straight to play
    talk = GameProtocol(game, negotiation_rounds=1, max_message_chars=5)
    s0 = talk.initial_state()
    assert talk.to_move(s0) == ("Alice",)
    bad = talk.validate(s0, "Bob", Message("hi"))
    assert bad is not None and bad.reason == "not_your_turn"
    long = talk.validate(s0, "Alice", Message("far too long"))
    assert long is not None and long.reason == "message_too_long"
    view = talk.public_view(s0)
    assert view["phase"] == "negotiation" and view["outcome"] is None
