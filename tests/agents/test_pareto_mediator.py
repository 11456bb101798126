"""The trusted ``pareto`` mediator: an exact Pareto-improving, unproposed package that
reveals nothing of any party's utility."""

from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest

from accord.agents.base import Agent
from accord.agents.pareto_mediator import NOTHING, ParetoMediator, pareto_improving_package
from accord.agents.registry import build_mediator
from accord.agents.spec import AgentSpecError, parse_agent_spec
from accord.core import Accept, Message, Offer, Reject
from accord.core.pareto import pareto_mask_bruteforce
from accord.domains.bargaining import resolve_scenario, run_negotiation
from accord.protocols.alternating import MEDIATOR, AlternatingConfig, AlternatingOffers
from accord.protocols.engine import Bounds, run_episode
from accord.protocols.negotiation import MediatorObservation, OfferRecord

B = {"price": 1000, "delivery_days": 10, "warranty_years": 1}  # buyer holds
S = {"price": 1050, "delivery_days": 2, "warranty_years": 2}  # seller holds


class Holds(Agent):
    def __init__(self, package, takes=True):
        self.package, self.takes, self.seen = package, takes, []
        self.reset()

    async def act(self, obs):
        self.seen.append(obs)
        if obs.phase == "respond":
            if self.takes and obs.proposer == MEDIATOR:
                return Accept()
            return Reject(counter=Offer(self.package))
        return Offer(self.package)


@pytest.fixture
def deal():
    return resolve_scenario("buyer-seller")


def _brute(scenario, latest, proposed):
    u = scenario.utility_matrix
    ref = u[[scenario.space.index_of(p) for p in latest]]
    cands = [i for i in range(len(u)) if i not in proposed and any(
        (u[i] >= r).all() and (u[i] > r).any() for r in ref)]
    front = [cands[j] for j in np.flatnonzero(pareto_mask_bruteforce(u[cands]))]
    key = {i: ((u[i] - scenario.batnas).min(), u[i].sum(), -i) for i in front}
    return max(front, key=key.__getitem__), set(cands)


def test_suggestion_is_exact_and_unproposed(deal):
    proposed = {deal.space.index_of(B), deal.space.index_of(S)}
    pick = pareto_improving_package(deal, [B, S], proposed)
    want, cands = _brute(deal, [B, S], proposed)
    assert pick == want and pick in cands and pick not in proposed
    u = deal.utility_matrix
    assert any((u[pick] >= u[i]).all() and (u[pick] > u[i]).any() for i in proposed)


def test_nothing_to_suggest_on_the_frontier(deal):
    # both latest offers Pareto-optimal and everything improving on them proposed
    u = deal.utility_matrix
    best_b = int(np.argmax(u[:, 0] + 1e-9 * u[:, 1]))
    pkg = deal.space.package(best_b)
    assert pareto_improving_package(deal, [pkg], {best_b}) is None
    med = ParetoMediator(deal)
    obs = MediatorObservation(role=MEDIATOR, round=3, space=deal.space,
                              parties=deal.party_names,
                              history=(OfferRecord(1, "buyer", pkg, best_b),),
                              latest={"buyer": pkg})
    move = asyncio.run(med.act(obs))
    assert move == Message(NOTHING)


def test_episode_with_pareto_mediator_reveals_no_utility(deal):
    cfg = AlternatingConfig(max_rounds=10, stagnation_rounds=2, mediator=True)
    buyer, seller = Holds(B), Holds(S)
    agents = {"buyer": buyer, "seller": seller, MEDIATOR: ParetoMediator(deal)}
    for i, a in enumerate(agents.values()):
        a.reset(np.random.default_rng(i))
    res = asyncio.run(run_episode(AlternatingOffers(deal, cfg), agents,
                                  bounds=Bounds(max_rounds=10)))
    assert res.status == "agreement" and res.record["proposer"] == MEDIATOR
    proposed = {deal.space.index_of(B), deal.space.index_of(S)}
    want, _ = _brute(deal, [B, S], proposed)
    assert res.record["agreement"] == deal.space.package(want)
    # each party's observations carry its own utility only; nothing the mediator said
    # (suggestion, rationale, messages) holds another party's number
    others = {"buyer": deal.party("seller"), "seller": deal.party("buyer")}
    for name, agent in (("buyer", buyer), ("seller", seller)):
        other = others[name]
        secret = {f"{other.batna:g}", *(f"{other.utility(p):g}" for p in (B, S))}
        for obs in agent.seen:
            assert obs.utility is deal.party(name).utility
            public = json.dumps([obs.suggestion, obs.messages, obs.current_offer], default=str)
            assert not any(s in public for s in secret if len(s) > 2), (name, public)
    move = next(e for e in res.trajectory.of_kind("move") if e.party == MEDIATOR).move
    assert move["kind"] == "suggest" and not any(ch.isdigit() for ch in move["rationale"])


def test_registry_needs_the_scenario_and_runner_provides_it(deal):
    with pytest.raises(AgentSpecError, match="needs the scenario"):
        build_mediator(parse_agent_spec("pareto"), {})
    med = build_mediator(parse_agent_spec("pareto"), {"scenario": deal})
    assert isinstance(med, ParetoMediator)
    res = asyncio.run(run_negotiation(resolve_scenario("split"), ["hardliner", "hardliner"],
                                      params={"mediator": "pareto", "max_rounds": 8,
                                              "stagnation_order": "mediator-first"}))
    moves = [e.move for e in res.trajectory.of_kind("move") if e.party == MEDIATOR]
    # on split every package is Pareto-optimal: nothing improves on an offer
    assert moves and moves[0] == {"kind": "message", "text": NOTHING}
