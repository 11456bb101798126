"""Concurrent turns (several responders at once): code agents that never wait take no task,
agents that wait run on as tasks, each turn in its own context, and a failure cancels the
turns still waiting (issue 30, goal 2)."""

from __future__ import annotations

import asyncio
from contextvars import ContextVar

import numpy as np

from accord.agents.base import Agent
from accord.agents.concession import TimeBasedAgent
from accord.core import LinearAdditiveUtility, OutcomeSpace, Party, Scenario
from accord.core.moves import Move
from accord.protocols.alternating import AlternatingConfig, AlternatingOffers
from accord.protocols.base import Observation
from accord.protocols.engine import Bounds, EpisodeResult, run_episode
from accord.protocols.negotiation import NegotiationObservation

SEEN: ContextVar[str | None] = ContextVar("test_engine_concurrent_seen", default=None)


def _scenario() -> Scenario:
    """Three parties over 3 issues of 4 values, opposed enough to take several rounds."""
    rng = np.random.default_rng(7)
    names = ["x", "y", "z"]
    parties = []
    for p in ("a", "b", "c"):
        w = rng.random(3)
        w /= w.sum()
        parties.append(Party(p, LinearAdditiveUtility(
            {n: float(v) for n, v in zip(names, w, strict=True)},
            {n: {v: float(s) for v, s in enumerate(rng.random(4))} for n in names}), 0.0))
    return Scenario("three", OutcomeSpace.from_mapping({n: list(range(4)) for n in names}),
                    tuple(parties))


def _mark(seen: list[str | None], observation: Observation) -> None:
    """A responder notes the variable it sees and sets it: no other responder of the same
    round may see that."""
    assert isinstance(observation, NegotiationObservation)
    if observation.phase == "respond":
        seen.append(SEEN.get())
        SEEN.set(observation.role)


class Waits(Agent):
    """A time-based agent that waits on the event loop ``times`` times before each move
    (as an LLM agent waits on its calls), marking the context as it responds."""

    def __init__(self, times: int) -> None:
        self.inner = TimeBasedAgent(e=0.5)
        self.times = times
        self.contexts: list[str | None] = []
        self.reset()

    def reset(self, rng: np.random.Generator | None = None) -> None:
        super().reset(rng)
        self.inner.reset(rng)

    async def act(self, observation: Observation) -> Move:
        _mark(self.contexts, observation)
        for _ in range(self.times):
            await asyncio.sleep(0)
        return await self.inner.act(observation)


class Peeks(TimeBasedAgent):
    """A code agent (never waits) marking the context as it responds."""

    def __init__(self) -> None:
        super().__init__(e=0.5)
        self.contexts: list[str | None] = []

    async def act(self, observation: Observation) -> Move:
        _mark(self.contexts, observation)
        return await super().act(observation)


def _run(agents: dict[str, Agent]) -> EpisodeResult:
    proto = AlternatingOffers(_scenario(), AlternatingConfig(max_rounds=12,
                                                             stagnation_rounds=0))
    return asyncio.run(run_episode(proto, agents, bounds=Bounds(max_rounds=12)))


def _moves(res: EpisodeResult) -> list[tuple[int, str | None, object]]:
    return [(e.round, e.party, e.move) for e in res.trajectory if e.kind == "move"]


def test_waiting_and_immediate_agents_play_the_same_episode() -> None:
    plain = _run({p: TimeBasedAgent(e=0.5) for p in "abc"})
    assert plain.rounds > 3  # several rounds with two responders at once
    mixed_agents: dict[str, Agent] = {"a": Waits(1), "b": Peeks(), "c": Waits(3)}
    mixed = _run(mixed_agents)
    assert _moves(mixed) == _moves(plain)
    assert (mixed.status, mixed.rounds, mixed.record) == (plain.status, plain.rounds,
                                                          plain.record)


def test_each_turn_runs_in_its_own_context() -> None:
    peeks: dict[str, Peeks | Waits] = {"a": Peeks(), "b": Waits(2), "c": Peeks()}
    _run(dict(peeks))
    for agent in peeks.values():
        assert agent.contexts and set(agent.contexts) == {None}, agent.contexts


class Crashes(TimeBasedAgent):
    """Raises on its first response, without waiting."""

    async def act(self, observation: Observation) -> Move:
        assert isinstance(observation, NegotiationObservation)
        if observation.phase == "respond":
            raise RuntimeError("lost the thread")
        return await super().act(observation)


class Hangs(TimeBasedAgent):
    """Waits forever when asked to respond; records its cancellation."""

    def __init__(self) -> None:
        super().__init__(e=0.5)
        self.cancelled = False

    async def act(self, observation: Observation) -> Move:
        assert isinstance(observation, NegotiationObservation)
        if observation.phase == "respond":
            try:
                await asyncio.get_running_loop().create_future()
            except asyncio.CancelledError:
                self.cancelled = True
                raise
        return await super().act(observation)


def test_a_failure_cancels_the_turn_still_waiting() -> None:
    hangs = Hangs()
    res = _run({"a": TimeBasedAgent(e=0.5), "b": hangs, "c": Crashes(e=0.5)})
    assert (res.status, res.who) == ("error", "c")
    assert res.detail == "RuntimeError: lost the thread"
    assert hangs.cancelled
