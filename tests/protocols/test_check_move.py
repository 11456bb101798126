"""Malformed -> Invalid happens in one place, the engine's ``check_move``: a protocol's
``validate`` never sees an unparseable reply; ``Protocol.malformed`` decides, by default
refusing it with the parser's reason, feedback and details."""

from __future__ import annotations

import asyncio
from typing import Any

from accord.agents.concession import HardlinerAgent
from accord.core.moves import Malformed, Move, Walk
from accord.domains.bargaining import resolve_scenario
from accord.protocols.agent import Agent
from accord.protocols.alternating import AlternatingOffers
from accord.protocols.base import Invalid, Observation
from accord.protocols.engine import Bounds, check_move, run_episode

BAD = Malformed("parse_error", "Reply with <PROPOSAL>{...}</PROPOSAL>.", raw="??",
                details={"line": 3})


class Spy(AlternatingOffers):
    """Alternating offers that records every move its ``validate`` is given."""

    def __init__(self, *args: Any, forward: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seen: list[Move] = []
        self.forward = forward

    def validate(self, state: Any, role: str, move: Move) -> Invalid | None:
        self.seen.append(move)
        return super().validate(state, role, move)

    def malformed(self, state: Any, role: str, move: Malformed) -> Invalid | None:
        if self.forward:  # a protocol that deliberately lets unparsed text through
            return None
        return super().malformed(state, role, move)


class Garbled(Agent):
    """Malformed once, then walks."""

    def __init__(self) -> None:
        self.reset()
        self.seen: list[Observation] = []

    async def act(self, observation: Observation) -> Move:
        self.seen.append(observation)
        return BAD if len(self.seen) == 1 else Walk("done")


def test_the_default_refusal_carries_the_parsers_words() -> None:
    proto = Spy(resolve_scenario("buyer-seller"))
    invalid = check_move(proto, proto.initial_state(), "buyer", BAD)
    assert invalid == Invalid("parse_error", BAD.feedback, {"line": 3})
    assert proto.seen == []  # validate never saw it
    assert check_move(proto, proto.initial_state(), "buyer",
                      Malformed("x", "")).feedback  # type: ignore[union-attr]


def test_the_engine_refuses_it_with_feedback_and_the_agent_retries() -> None:
    proto = Spy(resolve_scenario("buyer-seller"))
    agent = Garbled()
    res = asyncio.run(run_episode(proto, {"buyer": agent, "seller": HardlinerAgent()},
                                  bounds=Bounds(max_rounds=3, max_retries=2)))
    assert (res.status, res.reason) == ("no_deal", "walk")
    assert [e.reason for e in res.trajectory.of_kind("invalid")] == ["parse_error"]
    retry = agent.seen[1]
    assert retry.feedback is not None and retry.feedback.feedback == BAD.feedback
    assert (retry.attempt, retry.max_attempts) == (2, 3)
    assert not any(isinstance(m, Malformed) for m in proto.seen)


def test_a_protocol_hook_may_accept_it() -> None:
    proto = Spy(resolve_scenario("buyer-seller"), forward=True)
    assert check_move(proto, proto.initial_state(), "buyer", BAD) is None
    assert proto.seen == []
