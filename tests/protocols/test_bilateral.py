"""The fused bilateral loop (:mod:`accord.protocols.bilateral`) plays the general loop's
episode: the same records and events, and, round by round, the same state.

Each episode here is played twice, once with the fused loop and once with the protocol's
``fused`` hook returning ``None`` (every round through the general loop), and compared event
by event; a unit test also steps the general loop by hand beside the fused one and compares
the states themselves, field by field.
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest

from accord.agents import concession
from accord.agents.concession import TimeBasedAgent
from accord.core import Party, Scenario
from accord.core.trajectory import Trajectory
from accord.domains.bargaining import build_agents, resolve_scenario
from accord.protocols import bilateral
from accord.protocols.alternating import AlternatingConfig, AlternatingOffers
from accord.protocols.engine import Bounds, EpisodeResult, run_episode
from accord.protocols.judge import RuleJudge
from accord.testing.episodes import random_scenario, rendered


def _random(n_issues: int, n_values: int, seed: int, batnas: tuple[float, float] = (0.1, 0.2)
            ) -> Scenario:
    return random_scenario(n_issues, n_values, 2, seed, batnas=batnas)


def _play(sc: Scenario, lineup: list[str], cfg: AlternatingConfig, bound: int | None,
          fused: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[EpisodeResult, int]:
    """One episode, with or without the fused loop; and the rounds the fused loop played."""
    played = [0]
    real = bilateral.fused_rounds

    def counting(*args: Any) -> Any:
        play = real(*args)
        if play is None:
            return None

        def counted(state: Any, events: Any, t0: float) -> Any:
            after = play(state, events, t0)
            played[0] += after.round - state.round
            return after
        return counted

    with monkeypatch.context() as m:
        if fused:
            m.setattr(bilateral, "fused_rounds", counting)
        else:
            m.setattr(AlternatingOffers, "fused", lambda self, agents, max_rounds: None)
        agents = build_agents(sc, lineup, 0, {"episode_id": "x"})
        result = asyncio.run(run_episode(AlternatingOffers(sc, cfg), agents,
                                         bounds=Bounds(max_rounds=bound)))
    return result, played[0]


#: (scenario, line-up, protocol settings, the engine's round bound, whether the fused loop
#: plays rounds)
CASES: list[tuple[Any, list[str], dict[str, Any], int | None, bool]] = [
    ("buyer-seller", ["boulware", "conceder"], {"stagnation_rounds": 0}, None, True),
    ("buyer-seller", ["boulware", "conceder"], {"stagnation_rounds": 3}, None, True),
    ("buyer-seller", ["linear", "linear"], {"stagnation_rounds": 1, "max_rounds": 40}, 40,
     True),
    ("buyer-seller", ["boulware", "boulware"], {"stagnation_rounds": 0, "max_rounds": 60},
     25, True),  # the engine's bound ends it before the protocol's cap
    ("procurement", ["conceder", "boulware"], {"stagnation_rounds": 2, "max_rounds": 30},
     None, True),
    ((3, 10, 4), ["boulware", "boulware"], {"stagnation_rounds": 0, "max_rounds": 100},
     100, True),
    ((4, 10, 5), ["boulware", "linear"], {"stagnation_rounds": 0, "max_rounds": 100}, 100,
     True),
    ((4, 6, 6), ["conceder", "conceder"], {"stagnation_rounds": 3, "max_rounds": 50}, None,
     True),
    ((3, 8, 7), ["time-based?e=0.05", "time-based?e=5"],
     {"stagnation_rounds": 0, "max_rounds": 80}, None, True),
    # where it does not apply: the general loop plays every round
    ((3, 6, 8), ["boulware", "tit-for-tat"], {"stagnation_rounds": 0}, None, False),
    ((3, 6, 8), ["hardliner", "boulware"], {"stagnation_rounds": 0}, None, False),
    ("buyer-seller", ["boulware", "conceder"],
     {"stagnation_rounds": 3, "stagnation_measure": "issues"}, None, False),
    ("buyer-seller", ["boulware", "conceder"], {"stagnation_rounds": 0, "max_offers": 8},
     None, False),
]


def _scenario(spec: Any) -> Scenario:
    return resolve_scenario(spec) if isinstance(spec, str) else _random(*spec)


@pytest.mark.parametrize(("scenario", "lineup", "settings", "bound", "fuses"), CASES,
                         ids=[f"{c[0]}-{'-'.join(c[1])}-{i}" for i, c in enumerate(CASES)])
def test_the_fused_loop_plays_the_general_loops_episode(
        scenario: Any, lineup: list[str], settings: dict[str, Any], bound: int | None,
        fuses: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    sc = _scenario(scenario)
    cfg = AlternatingConfig(**settings)
    fast, played = _play(sc, lineup, cfg, bound, True, monkeypatch)
    slow, none = _play(sc, lineup, cfg, bound, False, monkeypatch)
    assert none == 0
    assert rendered(fast) == rendered(slow)
    assert (played > 0) == fuses, played
    if fuses:  # most rounds were fused, and the episode ended as usual
        assert played >= fast.rounds - 3
        assert fast.trajectory.events[-1].kind == "end"


def test_the_stagnation_rule_still_fires_where_the_general_loop_fires_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two hardline-ish agents that stop moving: K rounds without a concession end the
    episode with the rule's walk, fused or not (the fused loop hands the firing round
    back)."""
    sc = _random(2, 4, 3, batnas=(0.75, 0.75))
    cfg = AlternatingConfig(max_rounds=60, stagnation_rounds=2)
    fast, played = _play(sc, ["time-based?e=0.02"] * 2, cfg, None, True, monkeypatch)
    slow, _ = _play(sc, ["time-based?e=0.02"] * 2, cfg, None, False, monkeypatch)
    assert rendered(fast) == rendered(slow)
    assert played > 0
    assert fast.reason == "stagnation", fast.summary()


def test_a_discount_or_a_batna_above_every_package_keeps_the_general_loop() -> None:
    base = resolve_scenario("buyer-seller")
    agents = build_agents(base, ["boulware", "conceder"], 0, {"episode_id": "x"})
    cfg = AlternatingConfig(stagnation_rounds=0)
    assert AlternatingOffers(base, cfg).fused(agents, None) is not None
    discounted = Scenario(base.name, base.space, tuple(
        Party(p.name, p.utility, p.batna, discount=0.9) for p in base.parties))
    agents = build_agents(discounted, ["boulware", "conceder"], 0, {"episode_id": "x"})
    assert AlternatingOffers(discounted, cfg).fused(agents, None) is None
    hopeless = Scenario(base.name, base.space, (base.parties[0], Party(
        base.parties[1].name, base.parties[1].utility, 2.0)))
    agents = build_agents(hopeless, ["boulware", "conceder"], 0, {"episode_id": "x"})
    assert AlternatingOffers(hopeless, cfg).fused(agents, None) is None


def test_a_patched_or_subclassed_agent_keeps_the_general_loop() -> None:
    sc = resolve_scenario("buyer-seller")
    cfg = AlternatingConfig(stagnation_rounds=0)
    agents = build_agents(sc, ["boulware", "conceder"], 0, {"episode_id": "x"})
    agents["buyer"].choose = lambda obs, target: 0  # type: ignore[method-assign]
    assert AlternatingOffers(sc, cfg).fused(agents, None) is None

    class Picky(TimeBasedAgent):
        def accepts(self, obs: Any, u: float) -> bool:
            return False

    agents = build_agents(sc, ["boulware", "conceder"], 0, {"episode_id": "x"})
    agents["seller"] = Picky(2.0)
    assert AlternatingOffers(sc, cfg).fused(agents, None) is None


def test_the_fused_state_is_the_general_loops_state_round_by_round() -> None:
    """From the state after the opening offer, the fused loop's state after n rounds equals
    the state the protocol reaches applying the agents' moves one round at a time."""
    sc = _random(3, 10, 12)
    for k in (0, 2):
        proto = AlternatingOffers(sc, AlternatingConfig(max_rounds=100, stagnation_rounds=k))
        agents = build_agents(sc, ["boulware", "linear"], 0, {"episode_id": "x"})
        state = proto.initial_state()
        (role,) = proto.to_move(state)
        state, _ = proto.apply(state, {role: agents[role].act_now(proto.observe(state, role))})
        general = [state]
        while len(general) < 200:
            (role,) = proto.to_move(general[-1])
            move = agents[role].act_now(proto.observe(general[-1], role))
            nxt, notes = proto.apply(general[-1], {role: move})
            if nxt.phase != "respond" or notes:
                break
            general.append(nxt)
        assert len(general) > (12 if k == 0 else 2)  # K = 2: the rule fires in round 4
        for bound in (state.round, state.round + 1, state.round + 5, None):
            fresh = build_agents(sc, ["boulware", "linear"], 0, {"episode_id": "x"})
            play = proto.fused(fresh, bound)
            assert play is not None
            log = Trajectory()
            got = play(state, log.events, 0.0)
            steps = got.round - state.round
            assert got == general[steps], (k, bound, steps)
            assert len(log.events) == steps
            if bound is not None:
                assert got.round <= bound
            else:
                assert steps == len(general) - 1  # up to the round that is not a counter
            again = play(got, log.events, 0.0)
            assert again is got  # nothing left to fuse: the same state, no events
            assert len(log.events) == steps


def test_the_engine_asks_for_the_fused_loop_only_where_nothing_can_tell(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A wall clock, an offer cap, a judge other than the rule judge or an agent with notes
    keeps every round in the general loop."""
    sc = resolve_scenario("buyer-seller")
    asked: list[Any] = []
    real = AlternatingOffers.fused

    def spy(self: AlternatingOffers, agents: Any, max_rounds: int | None) -> Any:
        asked.append(max_rounds)
        return real(self, agents, max_rounds)

    monkeypatch.setattr(AlternatingOffers, "fused", spy)

    class Judge(RuleJudge):
        name = "custom"

    def run(bounds: Bounds, judge: Any = None) -> None:
        agents = build_agents(sc, ["boulware", "conceder"], 0, {"episode_id": "x"})
        asyncio.run(run_episode(AlternatingOffers(sc, AlternatingConfig(stagnation_rounds=0)),
                                agents, bounds=bounds, judge=judge))

    run(Bounds(max_rounds=20))
    assert asked == [20]
    run(Bounds(max_rounds=20, wall_clock=30.0))
    run(Bounds(max_rounds=20, max_offers=10))
    run(Bounds(max_rounds=20), Judge())
    assert asked == [20]


def test_a_scenarios_episodes_share_the_agents_memos_and_a_full_memo_is_emptied(
        monkeypatch: pytest.MonkeyPatch) -> None:
    sc = _random(3, 10, 4)
    cfg = AlternatingConfig(max_rounds=100, stagnation_rounds=0)
    first, _ = _play(sc, ["boulware", "boulware"], cfg, 100, True, monkeypatch)
    utility = sc.parties[0].utility
    floor = max(sc.parties[0].batna, float(utility.ranking(sc.space)[1][0]))
    picks = utility.memo(sc.space, ("concession.picks", floor, concession.NegotiatorAgent.window))
    assert picks  # filled by the first episode, kept for the next
    memo = dict(picks)
    second, _ = _play(sc, ["boulware", "boulware"], cfg, 100, True, monkeypatch)
    assert rendered(second) == rendered(first)
    assert dict(picks) == memo  # every choice was remembered: nothing new
    picks[(-1, ())] = -1  # a marker: gone once the memo is emptied
    monkeypatch.setattr(concession, "_MEMO_CAP", 3)
    third, _ = _play(sc, ["boulware", "boulware"], cfg, 100, True, monkeypatch)
    assert rendered(third) == rendered(first)  # emptied on the way, the same choices
    assert (-1, ()) not in picks
    assert dict(picks) == memo  # chosen again, alike


def test_a_seeded_reset_makes_the_generator_when_the_agent_first_draws() -> None:
    """``reset_seeded`` is ``reset(default_rng([seed, i]))``: the same draws, made lazily for
    an agent that keeps the base ``reset``; an agent with its own ``reset`` gets the
    generator at once (it may read it there, as the LLM agents read its seed sequence)."""
    sc = resolve_scenario("buyer-seller")
    eager = build_agents(sc, ["random", "random"], 7, {"episode_id": "x"})
    lazy = build_agents(sc, ["random", "random"], 7, {"episode_id": "x"})
    for role in eager:
        eager[role].reset(np.random.default_rng([7, list(eager).index(role)]))
        assert lazy[role]._rng is None  # not made yet
    for role in eager:
        assert eager[role].rng.random(5).tolist() == lazy[role].rng.random(5).tolist()

    class Own(TimeBasedAgent):
        def reset(self, rng: Any = None) -> None:
            super().reset(rng)
            self.given = rng

    own = Own(1.0)
    own.reset_seeded(3, 1)
    assert isinstance(own.given, np.random.Generator)
    assert own.given.random() == np.random.default_rng([3, 1]).random()
    plain = TimeBasedAgent(1.0)
    plain.reset_seeded(3, 1)
    plain.reset()  # a later reset without a generator: the documented default again
    assert plain.rng.random() == np.random.default_rng(0).random()


def test_a_kernel_that_raises_hands_the_round_to_the_general_loop(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure inside the fused loop's decision is never a traceback: the general loop
    asks the agent's ``act_now`` for that round, which plays it (or logs its crash)."""
    sc = resolve_scenario("buyer-seller")
    cfg = AlternatingConfig(stagnation_rounds=0)
    slow, _ = _play(sc, ["boulware", "conceder"], cfg, None, False, monkeypatch)
    real = TimeBasedAgent.fused_counter

    def breaking(self: TimeBasedAgent, obs: Any) -> Any:
        kernel = real(self, obs)
        assert kernel is not None

        def failing(rnd: int, index: int, others: tuple[int, ...]) -> Any:
            if rnd >= 4:
                raise RuntimeError("lost the table")
            return kernel(rnd, index, others)
        return failing

    monkeypatch.setattr(TimeBasedAgent, "fused_counter", breaking)
    fast, played = _play(sc, ["boulware", "conceder"], cfg, None, True, monkeypatch)
    assert rendered(fast) == rendered(slow)
    assert played >= 2  # rounds 2 and 3 fused, the rest asked through act_now
