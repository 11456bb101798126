"""``run_now``: an episode without an event loop (issue 30, start-up of ``accord run``).

An episode of code agents under the rule judge never waits, so it runs to its end in one
step of its coroutine, with the record and the trajectory ``asyncio.run`` gives; an episode
that waits (an awaited agent, a wall clock) gets an event loop of its own inside the engine.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from accord.agents.concession import TimeBasedAgent
from accord.core.moves import Move
from accord.domains.bargaining import resolve_scenario, run_negotiation
from accord.protocols.agent import Agent
from accord.protocols.alternating import AlternatingConfig, AlternatingOffers
from accord.protocols.base import Observation
from accord.protocols.engine import Bounds, EpisodeResult, loop_free, run_episode, run_now
from accord.protocols.judge import RuleJudge


class _Waits(Agent):
    """A code agent asked through a coroutine that really waits (``asyncio.sleep(0)``
    needs no loop; a future does): the engine must run it in an event loop."""

    def __init__(self, inner: Agent) -> None:
        self.inner = inner
        self.name = inner.name
        self.loops: list[bool] = []

    async def act(self, observation: Observation) -> Move:
        fut = asyncio.get_running_loop().create_future()
        fut.get_loop().call_soon(fut.set_result, None)
        await fut
        self.loops.append(True)
        return await self.inner.act(observation)


def _render(result: EpisodeResult) -> list[Any]:
    summary = result.summary()
    summary.pop("wall_time")
    events = [{k: v for k, v in ev.to_dict().items() if k != "t"} for ev in result.trajectory]
    return json.loads(json.dumps([summary, *events], sort_keys=True, default=str))


@pytest.mark.parametrize(("name", "line_up", "stagnation"), [
    ("buyer-seller", ["boulware", "conceder"], None),
    ("buyer-seller", ["hardliner", "random"], 3),
    ("split", ["hardliner", "hardliner"], 3),
])
def test_a_code_agent_episode_runs_without_a_loop_and_plays_the_same(name, line_up, stagnation):
    scenario = resolve_scenario(name)
    params = {} if stagnation is None else {"stagnation_rounds": stagnation}

    def episode():
        return run_negotiation(scenario, line_up, params=params, seed=7)

    with_loop = asyncio.run(episode())
    without = run_now(episode())
    assert _render(without) == _render(with_loop)
    assert without.rounds > 1


def test_an_episode_that_waits_gets_its_own_loop_and_plays_the_same():
    scenario = resolve_scenario("buyer-seller")

    def agents():
        out = {p: TimeBasedAgent(e) for p, e in zip(("buyer", "seller"), (4.0, 0.5),
                                                     strict=True)}
        for a in out.values():
            a.reset(None)
        return {"buyer": _Waits(out["buyer"]), "seller": out["seller"]}

    def episode(seated):
        proto = AlternatingOffers(scenario, AlternatingConfig(max_rounds=12))
        return run_episode(proto, seated, bounds=Bounds(max_rounds=12))

    seated = agents()
    assert not loop_free(seated, RuleJudge(), Bounds())
    without = run_now(episode(seated))
    assert seated["buyer"].loops  # its turns ran in the engine's own event loop
    assert _render(without) == _render(asyncio.run(episode(agents())))


def test_a_wall_clock_bound_needs_a_loop_and_still_runs():
    scenario = resolve_scenario("split")
    proto = AlternatingOffers(scenario, AlternatingConfig(max_rounds=6, stagnation_rounds=0))
    a, b = TimeBasedAgent(1.0), TimeBasedAgent(1.0)
    a.reset(None)
    b.reset(None)
    bounds = Bounds(max_rounds=6, wall_clock=60.0)
    assert not loop_free({"alice": a, "bob": b}, RuleJudge(), bounds)
    assert loop_free({"alice": a, "bob": b}, RuleJudge(), Bounds(max_rounds=6))
    res = run_now(run_episode(proto, {"alice": a, "bob": b}, bounds=bounds))
    assert res.status in ("agreement", "no_deal") and res.rounds >= 1


def test_a_coroutine_that_waits_outside_the_engine_is_continued_in_a_loop():
    async def outer() -> int:
        await asyncio.sleep(0)  # yields once, outside any loop
        await asyncio.sleep(0.001)  # needs the running loop
        return 42

    assert run_now(outer()) == 42


def test_an_agent_crash_is_still_a_record():
    class Crash(Agent):
        async def act(self, observation: Observation) -> Move:
            raise RuntimeError("boom")

    proto = AlternatingOffers(resolve_scenario("split"))
    res = run_now(run_episode(proto, {"alice": Crash(), "bob": Crash()}))
    assert (res.status, res.who) == ("error", "alice") and "boom" in (res.detail or "")
