"""The engine's synchronous turn for code agents, and the time-based agents' verdict in one
frame, change nothing: every episode is the one the general path (each turn a coroutine
awaited, each rule a method call) plays, event by event and record by record.

The pinned trajectories (``test_engine_pinned.py``, written by the general path before
the fast path existed) check the same against files; these tests run both paths side by
side on more scenarios, line-ups and seeds, and on the turn's failure paths (a refused
move, a crash, a person who quits, several concurrent movers of which some fail).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from accord.agents.concession import NegotiatorAgent, TimeBasedAgent, _inlined
from accord.core import Party, Scenario
from accord.core.moves import Accept, Move, Offer, Reject, Walk
from accord.domains.bargaining import resolve_scenario, run_negotiation, runner
from accord.protocols.agent import Agent, AgentQuit, CodeAgent, acts_now
from accord.protocols.alternating import AlternatingConfig, AlternatingOffers
from accord.protocols.base import Observation
from accord.protocols.engine import Bounds, EpisodeResult, run_episode
from accord.testing.episodes import random_scenario, rendered


class _Awaited(Agent):
    """Asks a code agent through its coroutine (``act``): the engine's general path."""

    def __init__(self, inner: Agent) -> None:
        self.inner = inner
        self.name = inner.name

    async def act(self, observation: Observation) -> Move:
        return await self.inner.act(observation)

    def drain_notes(self) -> list[dict[str, Any]]:
        return self.inner.drain_notes()

    def usage(self) -> dict[str, Any]:
        return self.inner.usage()


def _general(agent: Agent) -> Agent:
    """``agent`` on the general path: awaited, and (a time-based one) deciding through its
    rule methods, as a subclass that overrides one of them is."""
    if isinstance(agent, TimeBasedAgent):
        agent.__class__ = type(f"General{type(agent).__name__}", (type(agent),), {
            "accepts": lambda self, obs, u: NegotiatorAgent.accepts(self, obs, u)})
        assert not _inlined(type(agent))
    return _Awaited(agent)


#: (scenario, line-up, params): bilateral and multi-party, with and without the
#: stagnation rule, a mediator, k of n, an offer cap and time discounts
CASES: list[tuple[Any, list[str], dict[str, Any]]] = [
    ("buyer-seller", ["boulware", "conceder"], {"stagnation_rounds": 3}),
    ("buyer-seller", ["linear", "tit-for-tat"], {"max_rounds": 40}),
    ("buyer-seller", ["hardliner", "random"], {"max_rounds": 30, "stagnation_rounds": 0}),
    ("procurement", ["random", "boulware"], {"max_rounds": 30}),
    ("sprint-planning", ["boulware", "conceder", "linear"],
     {"mediator": "midpoint", "max_rounds": 40}),
    ("sprint-planning", ["hardliner", "boulware", "hardliner"],
     {"mediator": "midpoint", "stagnation_order": "mediator-first", "max_rounds": 30}),
    ((3, 10, 2, 4), ["boulware", "boulware"], {"max_rounds": 100, "stagnation_rounds": 0}),
    ((4, 6, 2, 5), ["linear", "boulware"], {"max_rounds": 60, "stagnation_rounds": 3}),
    ((3, 6, 3, 5), ["boulware", "linear", "conceder"],
     {"acceptance": 2, "max_rounds": 30, "stagnation_rounds": 0}),
    ((3, 6, 3, 6), ["conceder", "tit-for-tat", "random"],
     {"max_offers": 6, "max_rounds": 30}),
    ((2, 8, 4, 7), ["boulware", "conceder", "linear", "boulware"], {"max_rounds": 50}),
]


def _scenario(spec: Any) -> Scenario:
    return resolve_scenario(spec) if isinstance(spec, str) else \
        random_scenario(*spec, random_batna=0.3)


@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize(("scenario", "lineup", "params"), CASES,
                         ids=[f"{c[0]}-{'-'.join(c[1])}" for c in CASES])
def test_fast_and_general_paths_play_the_same_episode(
        scenario: Any, lineup: list[str], params: dict[str, Any], seed: int,
        monkeypatch: pytest.MonkeyPatch) -> None:
    sc = _scenario(scenario)
    fast = asyncio.run(run_negotiation(sc, lineup, params=params, seed=seed))
    built = runner.build_agents(sc, lineup, seed, {"episode_id": "x"})
    assert all(acts_now(a) for a in built.values())  # the fast path was the one taken
    original = runner.build_agents

    def general(*args: Any, **kwargs: Any) -> dict[str, Agent]:
        return {r: _general(a) for r, a in original(*args, **kwargs).items()}

    monkeypatch.setattr(runner, "build_agents", general)
    slow = asyncio.run(run_negotiation(sc, lineup, params=params, seed=seed))
    assert rendered(fast) == rendered(slow)
    assert len(fast.trajectory) > 2  # an episode, not an empty one


def test_a_discounted_time_based_verdict_is_the_general_one() -> None:
    """Time discounts change the acceptance rule (the waiting factor): the verdict in one
    frame applies it as the rule methods do."""
    base = resolve_scenario("buyer-seller")
    parties = tuple(Party(p.name, p.utility, p.batna, discount=d)
                    for p, d in zip(base.parties, (0.7, 0.9), strict=True))
    sc = Scenario(base.name, base.space, parties)
    runs = []
    for wrap in (lambda a: a, _general):
        agents = {p.name: wrap(TimeBasedAgent(e)) for p, e in zip(sc.parties, (0.5, 2.0),
                                                                   strict=True)}
        for a in agents.values():
            a.reset(np.random.default_rng(0))
        runs.append(asyncio.run(run_episode(
            AlternatingOffers(sc, AlternatingConfig(max_rounds=30)), agents,
            bounds=Bounds(max_rounds=30))))
    assert rendered(runs[0]) == rendered(runs[1])


# -- the turn's failure paths, a code agent against the same agent awaited ---------------


class _Scripted(CodeAgent):
    """Plays a script of moves (or raises what the script holds), then hardline offers."""

    name = "scripted"

    def __init__(self, script: list[Any], fallback: Move) -> None:
        self.script = list(script)
        self.fallback = fallback

    def act_now(self, observation: Observation) -> Move:
        if self.script:
            step = self.script.pop(0)
            if isinstance(step, BaseException):
                raise step
            return step(observation) if callable(step) else step
        return self.fallback

    def drain_notes(self) -> list[dict[str, Any]]:
        return [{"name": "scripted_note", "data": {"left": len(self.script)}}]


class _ScriptedAwaited(_Scripted):
    """The same agent, asked through an ``act`` of its own (so not on the fast path): each
    turn a coroutine, as the engine asked every code agent before it had the fast path."""

    async def act(self, observation: Observation) -> Move:
        return self.act_now(observation)


def _pkg(sc: Scenario, index: int) -> dict[str, Any]:
    return dict(sc.space.package(index))


def _play(sc: Scenario, scripts: dict[str, list[Any]], fallback: Callable[[str], Move],
          cls: type[_Scripted], max_retries: int = 2) -> EpisodeResult:
    agents: dict[str, Agent] = {p: cls(s, fallback(p)) for p, s in scripts.items()}
    for a in agents.values():
        a.reset(np.random.default_rng(0))
    proto = AlternatingOffers(sc, AlternatingConfig(max_rounds=6, stagnation_rounds=0))
    return asyncio.run(run_episode(proto, agents,
                                   bounds=Bounds(max_rounds=6, max_retries=max_retries)))


def _cases(sc: Scenario) -> Iterator[tuple[str, dict[str, list[Any]]]]:
    good = Offer(_pkg(sc, 0))
    bad = Offer({"no such issue": 1})
    names = sc.party_names
    yield "refused then valid", {names[0]: [bad, good], names[1]: []}
    yield "every attempt refused", {names[0]: [bad, bad, bad, bad], names[1]: []}
    yield "crash", {names[0]: [good], names[1]: [ValueError("lost the table")]}
    yield "quit", {names[0]: [good], names[1]: [AgentQuit("left the seat")]}
    if len(names) > 2:  # concurrent movers: a crash and a refusal in one round
        yield "several fail", {names[0]: [good], names[1]: [bad, RuntimeError("boom")],
                               names[2]: [KeyError("k")]}
        yield "one walks", {names[0]: [good], names[1]: [Reject()],
                            names[2]: [Walk("enough")]}
        yield "all accept", {names[0]: [good], names[1]: [Accept()], names[2]: [Accept()]}


@pytest.mark.parametrize("n_parties", [2, 3])
def test_a_code_agents_turn_fails_as_an_awaited_agents_does(n_parties: int) -> None:
    sc = random_scenario(2, 5, n_parties, 11, random_batna=0.3)
    for label, scripts in _cases(sc):
        got = [rendered(_play(sc, {p: list(scripts.get(p, [])) for p in sc.party_names},
                             lambda p: Reject(), cls)) for cls in (_Scripted, _ScriptedAwaited)]
        assert got[0] == got[1], label
        assert any(e.get("kind") in ("invalid", "agent_error", "note", "end")
                   for e in got[0][1:]), label
