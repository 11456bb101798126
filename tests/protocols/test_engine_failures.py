"""A failing judge or mediator (code) ends the episode as a clean ``error`` record naming it."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest

from accord.agents.base import Agent
from accord.agents.concession import HardlinerAgent, TimeBasedAgent
from accord.core import Move, Offer, Reject
from accord.domains.bargaining import resolve_scenario
from accord.protocols.alternating import MEDIATOR, AlternatingConfig, AlternatingOffers
from accord.protocols.base import Observation, Termination
from accord.protocols.engine import Bounds, EpisodeResult, run_episode
from accord.protocols.judge import JUDGE, JudgeVerdict, TerminationJudge


class RaisingJudge(TerminationJudge):
    """Raises on its first call, as a judge whose backend fell over."""

    name = "raising"

    async def judge(self, view: dict[str, Any], proposed: Termination | None,
                    bounds: dict[str, Any]) -> JudgeVerdict:
        raise ConnectionError("judge backend unreachable")


class WrongJudge(TerminationJudge):
    """Returns something that is not a verdict."""

    name = "wrong"

    async def judge(self, view: dict[str, Any], proposed: Termination | None,
                    bounds: dict[str, Any]) -> JudgeVerdict:
        return JudgeVerdict("stop", "not a decision")  # type: ignore[arg-type]


class RaisingMediator(Agent):
    """A mediator that crashes when asked."""

    async def act(self, observation: Observation) -> Move:
        raise ValueError("mediator lost its notes")


def _parties() -> dict[str, Agent]:
    agents: dict[str, Agent] = {"alice": HardlinerAgent(), "bob": TimeBasedAgent(e=0.5)}
    for i, agent in enumerate(agents.values()):
        agent.reset(np.random.default_rng(i))
    return agents


def _run(judge: TerminationJudge) -> EpisodeResult:
    proto = AlternatingOffers(resolve_scenario("split"))
    return asyncio.run(run_episode(proto, _parties(), bounds=Bounds(max_rounds=6), judge=judge))


@pytest.mark.parametrize("judge, reason, text", [
    (RaisingJudge(), "judge_exception", "ConnectionError: judge backend unreachable"),
    (WrongJudge(), "judge_invalid_verdict", "judge 'wrong' returned"),
])
def test_failing_code_judge_ends_in_a_clean_error(judge: TerminationJudge, reason: str,
                                                  text: str) -> None:
    res = _run(judge)
    assert (res.status, res.reason, res.who) == ("error", "error", JUDGE)
    assert res.detail is not None and text in res.detail
    assert res.record["who"] == JUDGE and res.record["detail"] == res.detail
    errors = res.trajectory.of_kind("agent_error")
    assert [(e.party, e.reason) for e in errors] == [(JUDGE, reason)]
    assert errors[0].data["judge"] == judge.name
    end = res.trajectory.events[-1]
    assert end.kind == "end" and end.party == JUDGE and end.data["status"] == "error"


class Holds(Agent):
    """Repeats one share of split (above the other side's BATNA): stagnation without a
    walker, so the mediator is asked (seed 002 walks first)."""

    def __init__(self, share: int) -> None:
        self.share = share
        self.reset()

    async def act(self, observation: Observation) -> Move:
        pkg = {"alice_share": self.share}
        return Reject(counter=Offer(pkg)) if observation.phase == "respond" else Offer(pkg)


def test_failing_code_mediator_ends_in_a_clean_error() -> None:
    proto = AlternatingOffers(resolve_scenario("split"),
                              AlternatingConfig(mediator=True, stagnation_rounds=1))
    agents = {"alice": Holds(6), "bob": Holds(4), MEDIATOR: RaisingMediator()}
    res = asyncio.run(run_episode(proto, agents, bounds=Bounds(max_rounds=10)))
    assert (res.status, res.who) == ("error", MEDIATOR)
    assert res.detail == "ValueError: mediator lost its notes"
    assert [e.party for e in res.trajectory.of_kind("agent_error")] == [MEDIATOR]


def test_persistently_invalid_role_names_the_last_problem() -> None:
    class Garbage(Agent):
        async def act(self, observation: Observation) -> Move:
            from accord.core import Malformed

            return Malformed("missing_proposal", "Reply with one <PROPOSAL>.", raw="hm")

    proto = AlternatingOffers(resolve_scenario("split"))
    res = asyncio.run(run_episode(proto, {"alice": Garbage(), "bob": HardlinerAgent()},
                                  bounds=Bounds(max_rounds=3, max_retries=1)))
    assert (res.status, res.who) == ("error", "alice")
    assert res.detail == ("alice made 2 invalid attempts in one turn; last: missing_proposal: "
                          "Reply with one <PROPOSAL>.")
