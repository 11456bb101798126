"""One test per termination path, plus verdict concurrency, k-of-n and the mediator."""

import asyncio

import numpy as np
import pytest

from accord.agents.base import Agent
from accord.agents.concession import AcceptAllAgent, HardlinerAgent, TimeBasedAgent
from accord.agents.mediator import MidpointMediator
from accord.core import Accept, Malformed, Offer, Reject, Walk
from accord.domains.bargaining import resolve_scenario
from accord.protocols.alternating import MEDIATOR, AlternatingConfig, AlternatingOffers
from accord.protocols.engine import Bounds, run_episode
from accord.protocols.judge import JudgeVerdict, TerminationJudge


class Scripted(Agent):
    """Plays a fixed list of moves (the last one repeats)."""

    def __init__(self, moves):
        self.moves = list(moves)
        self.observations = []
        self.reset()

    async def act(self, observation):
        self.observations.append(observation)
        return self.moves.pop(0) if len(self.moves) > 1 else self.moves[0]


def _reset(*agents):
    for i, a in enumerate(agents):
        a.reset(np.random.default_rng(i))
    return agents


def run(protocol, agents, **bounds):
    return asyncio.run(run_episode(protocol, agents, bounds=Bounds(**bounds)))


@pytest.fixture
def split():
    return resolve_scenario("split")


def test_agreement_path():
    scenario = resolve_scenario("buyer-seller")
    proto = AlternatingOffers(scenario, AlternatingConfig(max_rounds=10))
    buyer, seller = _reset(TimeBasedAgent(1.0), TimeBasedAgent(1.0))
    res = run(proto, {"buyer": buyer, "seller": seller}, max_rounds=10)
    assert res.status == "agreement" and res.reason is None
    rec = res.record
    assert set(rec["agreement"]) == {"price", "delivery_days", "warranty_years"}
    assert rec["utilities"]["buyer"] >= 0.4 and rec["utilities"]["seller"] >= 0.35
    assert rec["accepted_below_batna"] == {"buyer": False, "seller": False}
    assert res.trajectory.events[-1].kind == "end"


def test_no_zopa_ends_without_deal(laptop):
    """The issue's example file has no outcome both parties rate above their BATNA."""
    buyer, seller = _reset(TimeBasedAgent(1.0), TimeBasedAgent(1.0))
    res = run(AlternatingOffers(laptop), {"buyer": buyer, "seller": seller}, max_rounds=20)
    assert res.status == "no_deal" and res.reason in ("walk", "stagnation")


def test_walk_path(split):
    proto = AlternatingOffers(split)
    alice = Scripted([Offer({"alice_share": 9})])
    bob = Scripted([Walk("better offer elsewhere")])
    res = run(proto, {"alice": alice, "bob": bob}, max_rounds=20)
    assert (res.status, res.reason, res.who) == ("no_deal", "walk", "bob")
    assert res.record["last_offers"] == {"alice": {"alice_share": 9}}
    assert res.record["utilities"] == {"alice": 0.2, "bob": 0.2}


def test_stagnation_walks_party_below_batna(split):
    proto = AlternatingOffers(split, AlternatingConfig(max_rounds=20, stagnation_rounds=3))
    a, b = _reset(HardlinerAgent(), HardlinerAgent())
    res = run(proto, {"alice": a, "bob": b}, max_rounds=20)
    assert (res.status, res.reason) == ("no_deal", "stagnation")
    assert res.who == "alice"  # first in turn order whose best available offer is below BATNA
    assert res.rounds == 5  # rounds 3, 4, 5 repeat earlier offers
    names = [e.reason for e in res.trajectory.of_kind("note")]
    assert "stagnation" in names and "stagnation_walk" in names


class Holds(Agent):
    """Repeats one package (above the other side's BATNA) and rejects the other's;
    accepts a mediator's suggestion."""

    def __init__(self, share):
        self.share = share
        self.reset()

    async def act(self, observation):
        if observation.phase == "respond":
            if observation.proposer == MEDIATOR:
                return Accept()
            return Reject(counter=Offer({"alice_share": self.share}))
        return Offer({"alice_share": self.share})


def test_stagnation_goes_to_mediator_when_configured(split):
    # seed 002: walk first, so the parties here hold offers above each other's BATNA
    # (hardliners at 10 and 0 would make alice walk; see tests/protocols/test_stagnation.py)
    cfg = AlternatingConfig(max_rounds=12, stagnation_rounds=2, mediator=True)
    a, b, m = _reset(Holds(6), Holds(4), MidpointMediator())
    res = run(AlternatingOffers(split, cfg), {"alice": a, "bob": b, MEDIATOR: m}, max_rounds=12)
    assert res.status == "agreement"
    assert res.record["proposer"] == MEDIATOR
    assert res.record["agreement"] == {"alice_share": 5}  # median of 6 and 4
    notes = [e.reason for e in res.trajectory.of_kind("note")]
    assert notes[:2] == ["stagnation", "mediator_suggestion"]


def test_mediator_observation_has_no_utilities(split):
    seen = []

    class Spy(MidpointMediator):
        async def act(self, observation):
            seen.append(observation)
            return await super().act(observation)

    cfg = AlternatingConfig(max_rounds=6, stagnation_rounds=1, mediator=True)
    a, b, m = _reset(Holds(7), Holds(3), Spy())
    run(AlternatingOffers(split, cfg), {"alice": a, "bob": b, MEDIATOR: m}, max_rounds=6)
    assert seen
    for obs in seen:
        assert not hasattr(obs, "utility") and not hasattr(obs, "batna")


def test_bound_hit_path(split):
    proto = AlternatingOffers(split, AlternatingConfig(max_rounds=6, stagnation_rounds=0))
    a, b = _reset(HardlinerAgent(), HardlinerAgent())
    res = run(proto, {"alice": a, "bob": b}, max_rounds=6)
    assert (res.status, res.reason, res.detail) == ("no_deal", "bound_hit", "max_rounds")
    assert res.rounds == 6
    # one round numbering: the record, the end event and the last move all say round 6
    # (the record used to name round 7, the unplayed round after the bound)
    assert res.record["round"] == 6
    assert res.trajectory.events[-1].round == 6
    assert max(e.round for e in res.trajectory.of_kind("move")) == 6
    offers = [e for e in res.trajectory.of_kind("move") if e.move["kind"] == "offer"]
    assert len(offers) == 1  # the rest are counters carried by rejects


@pytest.mark.parametrize("cap", [1, 2, 4])
def test_max_offers_bound(split, cap):
    cfg = AlternatingConfig(max_rounds=50, stagnation_rounds=0, max_offers=cap)
    a, b = _reset(HardlinerAgent(), HardlinerAgent())
    res = run(AlternatingOffers(split, cfg), {"alice": a, "bob": b}, max_rounds=50,
              max_offers=cap)
    assert (res.reason, res.detail) == ("bound_hit", "max_offers")
    offers = [e for e in res.trajectory.of_kind("move") if e.move["kind"] == "offer"
              or (e.move["kind"] == "reject" and e.move.get("counter"))]
    table = set(res.record["last_offers"])
    assert len(offers) >= cap and len(table) <= 2
    # exactly `cap` offers were put on the table: the last counter is not carried
    assert res.rounds == cap
    assert res.record["round"] == cap  # the record's round is the engine's rounds


def test_no_agent_keeps_running_after_the_episode_ends():
    scenario = resolve_scenario("sprint-planning")
    finished: list[str] = []

    class Crash(Agent):
        async def act(self, observation):
            if observation.phase == "propose":
                return Offer(observation.space.package(0))
            raise RuntimeError("boom")

    class Slow(Agent):
        async def act(self, observation):
            await asyncio.sleep(0.5)
            finished.append("slow")
            return Accept()

    async def go():
        res = await run_episode(AlternatingOffers(scenario),
                                {"engineering": Crash(), "product": Crash(),
                                 "operations": Slow()}, bounds=Bounds(max_rounds=3))
        await asyncio.sleep(0.8)  # a leaked task would finish meanwhile
        return res

    res = asyncio.run(go())
    assert res.status == "error" and finished == []


def test_observation_names_who_put_the_offer_on_the_table(split):
    alice = Scripted([Offer({"alice_share": 7}), Accept()])
    bob = Scripted([Reject(counter=Offer({"alice_share": 3}))])
    run(AlternatingOffers(split), {"alice": alice, "bob": bob}, max_rounds=3)
    assert bob.observations[0].proposer == "alice"
    assert alice.observations[1].proposer == "bob"
    assert alice.observations[1].current_offer == {"alice_share": 3}


def test_wall_clock_bound(split):
    class Slow(Agent):
        async def act(self, observation):
            await asyncio.sleep(10)

    proto = AlternatingOffers(split)
    res = run(proto, {"alice": Slow(), "bob": Slow()}, max_rounds=20, wall_clock=0.2)
    assert (res.status, res.reason, res.detail) == ("no_deal", "bound_hit", "wall_clock")
    assert res.wall_time < 5


def test_error_after_k_invalid_moves(split):
    bad = Malformed("parse_error", "Reply with <PROPOSAL>{...}</PROPOSAL>.", raw="??")
    alice = Scripted([bad])
    bob = Scripted([Accept()])
    res = run(AlternatingOffers(split), {"alice": alice, "bob": bob}, max_rounds=5, max_retries=5)
    assert (res.status, res.reason, res.who) == ("error", "error", "alice")
    invalid = res.trajectory.of_kind("invalid")
    assert len(invalid) == 6  # the first attempt and five retries
    assert all(e.reason == "parse_error" and e.feedback for e in invalid)
    # feedback reached the mover on each retry, and the attempt counter grew
    assert [o.attempt for o in alice.observations] == [1, 2, 3, 4, 5, 6]
    assert alice.observations[1].feedback.reason == "parse_error"


def test_retries_do_not_consume_turn_and_reset(split):
    alice = Scripted([Offer({"alice_share": 99}), Offer({"alice_share": 6}), Accept()])
    bob = Scripted([Reject(), Offer({"bogus": 1}), Offer({"alice_share": 5})])
    res = run(AlternatingOffers(split), {"alice": alice, "bob": bob}, max_rounds=20,
              max_retries=1)
    assert res.status == "agreement"  # one invalid per turn never exceeds K = 1
    assert [e.reason for e in res.trajectory.of_kind("invalid")] == ["invalid_value",
                                                                     "unknown_issue"]
    assert res.record["agreement"] == {"alice_share": 5}
    assert res.record["round"] == 2


def test_sycophancy_flag(split):
    alice = Scripted([Offer({"alice_share": 10})])
    bob = AcceptAllAgent()
    bob.reset()
    res = run(AlternatingOffers(split), {"alice": alice, "bob": bob}, max_rounds=5)
    assert res.status == "agreement"
    assert res.record["accepted_below_batna"] == {"alice": False, "bob": True}
    assert res.flags["sycophancy"] is True


def test_verdicts_are_asked_concurrently():
    scenario = resolve_scenario("sprint-planning")
    started: list[str] = []
    both = asyncio.Event()

    class Barrier(Agent):
        async def act(self, observation):
            if observation.phase == "propose":
                return Offer(observation.space.package(0))
            started.append(observation.role)
            if len(started) == 2:
                both.set()
            await asyncio.wait_for(both.wait(), 2)  # deadlocks if asked one after the other
            return Accept()

    agents = {p: Barrier() for p in scenario.party_names}
    res = run(AlternatingOffers(scenario), agents, max_rounds=3)
    assert res.status == "agreement" and sorted(started) == ["operations", "product"]


def test_k_of_n_acceptance():
    scenario = resolve_scenario("sprint-planning")
    eng = Scripted([Offer(scenario.space.package(5))])
    prod = Scripted([Accept()])
    ops = Scripted([Reject()])
    cfg = AlternatingConfig(max_rounds=3, acceptance=2)
    res = run(AlternatingOffers(scenario, cfg),
              {"engineering": eng, "product": prod, "operations": ops}, max_rounds=3)
    assert res.status == "agreement" and res.record["accepted_by"] == ["product"]
    pkg = scenario.space.package(5)
    ops_party = scenario.party("operations")
    if ops_party.utility(pkg) < ops_party.batna:  # outvoted, not sycophantic
        assert res.flags["accepted_below_batna"]["operations"] is False
        assert res.flags["outvoted_below_batna"] == ["operations"]
    res = run(AlternatingOffers(scenario, AlternatingConfig(max_rounds=1)),
              {"engineering": Scripted([Offer(scenario.space.package(5))]),
               "product": Scripted([Accept()]), "operations": Scripted([Reject()])},
              max_rounds=1)
    assert res.status == "no_deal"


def test_turn_order_is_configurable(split):
    cfg = AlternatingConfig(turn_order=("bob", "alice"))
    alice, bob = Scripted([Accept()]), Scripted([Offer({"alice_share": 3})])
    res = run(AlternatingOffers(split, cfg), {"alice": alice, "bob": bob}, max_rounds=3)
    assert res.record["proposer"] == "bob"


def test_judge_can_end_with_no_deal(split):
    class Impatient(TerminationJudge):
        async def judge(self, view, proposed, bounds):
            if view["round"] >= 3:
                return JudgeVerdict("no_deal", "parties are not converging")
            return JudgeVerdict("continue")

    a, b = _reset(HardlinerAgent(), HardlinerAgent())
    proto = AlternatingOffers(split, AlternatingConfig(stagnation_rounds=0))
    res = asyncio.run(run_episode(proto, {"alice": a, "bob": b},
                                  bounds=Bounds(max_rounds=20), judge=Impatient()))
    assert (res.status, res.reason) == ("no_deal", "judge")
    assert any(e.reason == "judge" for e in res.trajectory.of_kind("note"))


def test_agent_crash_ends_cleanly(split):
    class Broken(Agent):
        async def act(self, observation):
            raise RuntimeError("model endpoint vanished")

    res = run(AlternatingOffers(split), {"alice": Broken(), "bob": Broken()}, max_rounds=3)
    assert (res.status, res.who) == ("error", "alice")
    assert "model endpoint vanished" in res.detail


def test_observations_hold_only_own_private_data(laptop):
    buyer, seller = Scripted([Offer({"price": 1000, "warranty": 1})]), Scripted([Reject()])
    run(AlternatingOffers(laptop), {"buyer": buyer, "seller": seller}, max_rounds=2)
    for obs in buyer.observations:
        assert obs.utility is laptop.party("buyer").utility and obs.batna == 0.3
    for obs in seller.observations:
        assert obs.utility is laptop.party("seller").utility and obs.batna == 0.2


def test_outcomes_are_trusted_only_from_the_protocols_own_space(split):
    """Issue 16: an Outcome of the scenario's space is valid by construction and kept as the
    record's package; one from another space (or built by hand) is validated in full."""
    from accord.core import Outcome, OutcomeSpace
    from accord.protocols.alternating import NegotiationState

    protocol = AlternatingOffers(split)
    state = protocol.initial_state()
    role = state.proposer
    own = split.space.outcome(1)
    assert protocol.validate(state, role, Offer(own)) is None
    after, _ = protocol.apply(state, {role: Offer(own)})
    assert isinstance(after, NegotiationState)
    assert after.current.package is own and after.current.index == 1
    names = split.space.names
    stranger = OutcomeSpace.from_mapping({n: ["nope"] for n in names}).outcome(0)
    bad = protocol.validate(state, role, Offer(stranger))
    assert bad is not None and bad.reason == "invalid_value"
    loose = Outcome({n: "nope" for n in names})
    bad = protocol.validate(state, role, Offer(loose))
    assert bad is not None and bad.reason == "invalid_value"


def test_observation_field_order_matches_the_positional_build() -> None:
    """``AlternatingOffers.observe`` builds its observation positionally (the hot path):
    reordering the fields must fail here, not silently swap values."""
    import dataclasses

    from accord.protocols.negotiation import NegotiationObservation

    assert [f.name for f in dataclasses.fields(NegotiationObservation)] == [
        "role", "round", "legal", "feedback", "attempt", "max_attempts", "phase",
        "max_rounds", "space", "parties", "proposer", "current_offer", "current_index",
        "history", "messages", "my_last_offer", "suggestion", "utility", "batna", "discount",
        "game"]
