import asyncio

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.agents.registry import build_negotiator
from accord.agents.spec import AgentSpecError, parse_agent_list, parse_agent_spec
from accord.core import LinearAdditiveUtility, OutcomeSpace, Party, Scenario
from accord.domains.bargaining import resolve_scenario, run_negotiation

KINDS = ["boulware", "linear", "conceder", "tit-for-tat", "hardliner", "random"]


@st.composite
def random_scenario(draw):
    sizes = [draw(st.integers(2, 5)) for _ in range(draw(st.integers(1, 3)))]
    space = OutcomeSpace.from_mapping({f"i{k}": list(range(s)) for k, s in enumerate(sizes)})
    parties = []
    for name in ("a", "b"):
        w = {f"i{k}": draw(st.floats(0.1, 1.0)) for k in range(len(sizes))}
        sc = {f"i{k}": {v: draw(st.floats(0, 1)) for v in range(s)} for k, s in enumerate(sizes)}
        parties.append(Party(name, LinearAdditiveUtility(w, sc), draw(st.floats(0, 1.5))))
    return Scenario("random", space, tuple(parties))


@settings(max_examples=60, deadline=None)
@given(random_scenario(), st.sampled_from(KINDS), st.sampled_from(KINDS), st.integers(0, 99))
def test_no_agent_accepts_below_batna(scenario, ka, kb, seed):
    res = asyncio.run(run_negotiation(scenario, [ka, kb], seed=seed,
                                      params={"max_rounds": 12}))
    assert res.flags["sycophancy"] is False
    if res.status == "agreement":
        for p in scenario.parties:
            assert res.record["utilities"][p.name] >= p.batna - 1e-12


def _concession_curve(kind):
    scenario = resolve_scenario("split")
    res = asyncio.run(run_negotiation(scenario, [kind, "hardliner"], seed=0,
                                      params={"max_rounds": 20, "stagnation_rounds": 0}))
    u = scenario.party("alice").utility
    return [u(e.move["package"]) for e in res.trajectory.of_kind("move")
            if e.party == "alice" and e.move["kind"] == "offer"] + [
        u(e.move["counter"]["package"]) for e in res.trajectory.of_kind("move")
        if e.party == "alice" and e.move["kind"] == "reject" and e.move.get("counter")]


def test_boulware_concedes_later_than_conceder():
    boulware, conceder = _concession_curve("boulware"), _concession_curve("conceder")
    mid = len(boulware) // 2
    assert boulware[mid] > conceder[mid]
    assert boulware[0] == conceder[0] == 1.0  # both open with their best


def test_hardliner_never_concedes():
    curve = _concession_curve("hardliner")
    assert set(curve) == {1.0}


def test_random_agent_is_seeded():
    scenario = resolve_scenario("procurement")
    runs = [asyncio.run(run_negotiation(scenario, ["random", "random"], seed=4))
            for _ in range(2)]
    assert runs[0].record == runs[1].record


def test_agent_spec_grammar():
    s = parse_agent_spec("llm:openai/gpt-4.1-mini?temperature=0.2&max_tokens=400")
    assert (s.kind, s.arg, dict(s.options)) == ("llm", "openai/gpt-4.1-mini",
                                                 {"temperature": 0.2, "max_tokens": 400})
    assert str(parse_agent_spec(str(s))) == str(s)
    assert [a.kind for a in parse_agent_list("boulware, conceder")] == ["boulware", "conceder"]
    assert parse_agent_spec({"kind": "time-based", "e": 0.5}).options == {"e": 0.5}
    with pytest.raises(AgentSpecError, match="key=value"):
        parse_agent_spec("boulware?e")
    with pytest.raises(AgentSpecError, match="unknown agent 'nope'"):
        build_negotiator(parse_agent_spec("nope"))
    with pytest.raises(AgentSpecError, match="no option"):
        build_negotiator(parse_agent_spec("boulware?speed=3"))
    agent = build_negotiator(parse_agent_spec("time-based?e=0.5"))
    assert agent.e == 0.5


def test_time_based_target_convention():
    from accord.agents.concession import TimeBasedAgent

    scenario = resolve_scenario("split")
    obs_agent = TimeBasedAgent(0.2)
    from accord.protocols.alternating import AlternatingOffers

    proto = AlternatingOffers(scenario)
    obs = proto.observe(proto.initial_state(), "alice")
    assert obs_agent.target_at(obs, 0.0) == pytest.approx(1.0)
    assert obs_agent.target_at(obs, 1.0) == pytest.approx(0.2)  # BATNA floor
    assert obs_agent.target_at(obs, 0.5) == pytest.approx(0.2 + 0.8 * (1 - 0.5 ** 5))
    assert np.isclose(TimeBasedAgent(2.0).target_at(obs, 0.5), 0.2 + 0.8 * (1 - 0.5 ** 0.5))


def test_tit_for_tat_mirrors_each_concession_once():
    from accord.agents.concession import TitForTatAgent
    from accord.protocols.alternating import AlternatingOffers
    from accord.protocols.negotiation import OfferRecord

    scenario = resolve_scenario("split")
    proto = AlternatingOffers(scenario)
    base = proto.observe(proto.initial_state(), "alice")
    agent = TitForTatAgent(initial_concession=0.0)
    # bob's offers give alice 0.2 then 0.4: a gain of 0.2 of her 0.8 range (floor 0.2)
    hist = (OfferRecord(1, "bob", {"alice_share": 2}, 2),
            OfferRecord(2, "bob", {"alice_share": 4}, 4))
    import dataclasses

    obs = dataclasses.replace(base, history=hist, round=3)
    first = agent.target(obs)
    assert first == pytest.approx(0.2 + 0.8 * (1 - 0.25))
    assert agent.target(obs) == first  # asking twice does not concede twice


def _tft_reference(agent, obs):
    """Tit-for-tat's target as first written: the whole history scanned every call."""
    import itertools

    p = agent.prepare(obs)
    theirs = [obs.utility(r.package) for r in obs.history if r.party != obs.role]
    level = 1.0
    if theirs:
        span = max(p.best - p.floor, 1e-12)
        gained = sum(max(0.0, b - a) for a, b in itertools.pairwise(theirs))
        level = 1.0 - agent.initial_concession - gained / span
    return p.floor + (p.best - p.floor) * min(1.0, max(0.0, level))


def test_tit_for_tat_evaluates_each_offer_once_and_targets_as_before():
    """Issue 30: tit-for-tat evaluated every earlier offer of the other side each round
    (a round's cost grew with the episode); now each offer once per episode, with the
    same targets, also when asked out of order or in another episode."""
    import asyncio

    from accord.agents.concession import TimeBasedAgent, TitForTatAgent
    from accord.protocols.alternating import AlternatingConfig, AlternatingOffers
    from accord.protocols.engine import Bounds, run_episode

    scenario = resolve_scenario("buyer-seller")
    calls = {"n": 0}

    class Counted:
        """The buyer's utility, counting its direct calls."""

        def __init__(self, inner):
            self.inner = inner

        def __call__(self, package):
            calls["n"] += 1
            return self.inner(package)

        def __getattr__(self, name):
            return getattr(self.inner, name)

    seen = []

    class Spy(TitForTatAgent):
        def act_now(self, obs):
            seen.append(obs)
            return super().act_now(obs)

    rounds = 200
    proto = AlternatingOffers(scenario, AlternatingConfig(max_rounds=rounds,
                                                          stagnation_rounds=0))
    tft, other = Spy(), TimeBasedAgent(0.1)  # a very late conceder (boulware): a long episode
    tft.reset(np.random.default_rng(0))
    other.reset(np.random.default_rng(1))
    real_observe = proto.observe

    def observe(state, role):
        obs = real_observe(state, role)
        if role == "buyer":
            import dataclasses

            obs = dataclasses.replace(obs, utility=counted)
        return obs

    counted = Counted(scenario.parties[0].utility)
    proto.observe = observe
    res = asyncio.run(run_episode(proto, {"buyer": tft, "seller": other},
                                  bounds=Bounds(max_rounds=rounds)))
    offers = sum(1 for e in res.trajectory.of_kind("move") if e.party == "seller")
    assert res.rounds > 50 and len(seen) > 50
    # each seller offer once (plus what acceptance and the offer choice ask), not once a round
    assert calls["n"] <= 2 * offers + 2 * len(seen), (calls["n"], offers, len(seen))
    fresh = TitForTatAgent()
    fresh.reset(None)
    for obs in [*seen, *reversed(seen), seen[len(seen) // 2], seen[-1]]:
        assert fresh.target(obs) == _tft_reference(fresh, obs)


def _choose_reference(agent, obs, target):
    """The offer choice as first written (fancy indexing, float mean): the fast path must
    pick the same outcome."""
    p = agent.prepare(obs)
    target = max(target, p.floor)
    pos = int(np.searchsorted(p.sorted_u, max(target - 1e-12, p.floor), side="left"))
    if pos >= len(p.order):
        return int(p.order[-1])
    hi = min(len(p.order), pos + agent.window)
    cand = p.order[pos:hi]
    cand = cand[p.sorted_u[pos:hi] <= p.sorted_u[pos] + 0.05 * (p.best - p.floor + 1e-12)]
    others = [r.index for r in obs.history[-len(obs.parties):] if r.party != obs.role]
    if len(cand) <= 1 or not others:
        return int(cand[0])
    ref = p.grid[others].astype(np.float64).mean(axis=0)
    dist = np.abs(p.grid[cand] - ref).sum(axis=1)
    return int(cand[int(np.argmin(dist))])


@pytest.mark.parametrize("scan", [64, 0])
@pytest.mark.parametrize(("n_parties", "n_issues", "n_values"),
                         [(2, 4, 6), (3, 4, 6), (2, 2, 40)])
def test_choose_matches_reference(n_parties, n_issues, n_values, scan, monkeypatch):
    """Bilateral choices on a small space take the unary-code path (popcount distances:
    a scan in Python over windows of at most ``_SCAN`` candidates, numpy's past it),
    2 issues of 40 values (78 bits) the row-sum path; each picks as the reference does."""
    import accord.agents.concession as concession
    from accord.protocols.negotiation import NegotiationObservation, OfferRecord

    monkeypatch.setattr(concession, "_SCAN", scan)

    rng = np.random.default_rng(n_parties)
    space = OutcomeSpace.from_mapping({f"i{k}": list(range(n_values))
                                       for k in range(n_issues)})
    assert (space.l1_codes is None) == (n_values == 40)
    names = [f"p{k}" for k in range(n_parties)]
    utilities = [LinearAdditiveUtility(
        {f"i{k}": float(w) for k, w in enumerate(rng.random(n_issues))},
        {f"i{k}": {v: float(rng.integers(0, 4)) / 4 for v in range(n_values)}
         for k in range(n_issues)})
        for _ in names]  # coarse scores: many ties in utility and in distance
    agent = build_negotiator(parse_agent_spec("boulware"), {"party": "p0"})
    for trial in range(300):
        k = int(rng.integers(0, 2 * n_parties))
        history = tuple(OfferRecord(1, names[int(rng.integers(0, n_parties))],
                                    space.package(int(i)), int(i))
                        for i in rng.integers(0, space.size, k))
        obs = NegotiationObservation(role="p0", round=1, phase="propose", max_rounds=10,
                                     space=space, parties=tuple(names), history=history,
                                     utility=utilities[0], batna=float(rng.random()) / 2)
        target = float(rng.random())
        assert agent.choose(obs, target) == _choose_reference(agent, obs, target), trial


def test_choose_never_below_batna_within_the_noise_tolerance():
    """Regression (hypothesis found it): the target's 1e-12 tolerance let an agent with
    BATNA 1e-15 offer a package worth 0, which the other side accepted."""
    from accord.protocols.negotiation import NegotiationObservation

    space = OutcomeSpace.from_mapping({"i0": [0, 1], "i1": [0, 1, 2]})
    u = LinearAdditiveUtility({"i0": 0.5, "i1": 0.5},
                              {"i0": {0: 0.0, 1: 1.0}, "i1": {0: 0.0, 1: 0.0, 2: 1.0}})
    agent = build_negotiator(parse_agent_spec("boulware"), {"party": "b"})
    obs = NegotiationObservation(role="b", round=1, max_rounds=10, space=space,
                                 parties=("a", "b"), utility=u, batna=1e-15)
    chosen = space.package(agent.choose(obs, 1e-15))
    assert u(chosen) >= 1e-15
