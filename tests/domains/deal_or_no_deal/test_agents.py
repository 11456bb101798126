"""Code agents: Bayesian workflow (Algorithm 1), greedy, human replay; real-data self-play."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from accord.agents.spec import AgentSpecError
from accord.core.moves import Accept, Message, Offer, Reject, Walk
from accord.domains.deal_or_no_deal import (
    BayesianWorkflowAgent,
    Datapoint,
    DondProtocol,
    GreedyAgent,
    HumanReplayAgent,
    Outcome,
    load_split,
    play_datapoint,
)
from accord.domains.deal_or_no_deal.agents import make_agent
from accord.domains.deal_or_no_deal.load import Turn
from accord.domains.deal_or_no_deal.rules import best, hardest, is_envy_free, is_pareto_optimal
from accord.domains.deal_or_no_deal.workflow import render_belief
from accord.protocols.engine import run_episode
from accord.solvers.bayes import valuation_space

ITEMS = ("book", "hat", "ball")
Vec = tuple[int, ...]


def dp(counts: Vec, alice: Vec, bob: Vec, outcome: Outcome = Outcome("no_agreement"),
       turns: Sequence[Turn] = ()) -> Datapoint:
    return Datapoint("hand/0", counts, alice, bob, tuple(turns), outcome, "hand", (1,))


def share(rec: dict, role: str) -> tuple[int, ...]:
    return tuple(rec["shares"][role][i] for i in ITEMS)


HAND = [dp((1, 1, 1), (10, 0, 0), (0, 10, 0)), dp((1, 2, 3), (4, 0, 2), (1, 3, 1)),
        dp((2, 2, 2), (1, 2, 2), (2, 2, 1)), dp((1, 3, 1), (0, 0, 10), (2, 1, 5)),
        dp((3, 1, 1), (1, 5, 2), (2, 2, 2))]


@pytest.mark.parametrize("point", HAND, ids=[str(d.counts) for d in HAND])
async def test_workflow_self_play_reaches_an_envy_free_pareto_deal(point: Datapoint) -> None:
    res = await play_datapoint(point, ["workflow", "workflow"], seed=3)
    assert res.status == "agreement"
    a = share(res.record, "alice")
    assert is_envy_free(point.counts, point.alice, point.bob, a)
    assert is_pareto_optimal(point.counts, point.alice, point.bob, a)
    # each side's final support still holds the partner's true values (precision 1)
    for role, partner in (("alice", point.bob), ("bob", point.alice)):
        assert list(partner) in res.record["beliefs"][role][-1]["support"]


async def test_workflow_is_deterministic_given_seed() -> None:
    point = HAND[1]
    runs = [await play_datapoint(point, ["workflow", "workflow"], seed=s) for s in (7, 7)]
    moves = [[e.move for e in r.trajectory.of_kind("move")] for r in runs]
    assert moves[0] == moves[1]


async def test_workflow_opening_solves_problem_1() -> None:
    agent = BayesianWorkflowAgent()
    agent.reset(np.random.default_rng(0))
    p = DondProtocol((1, 1, 1), {"alice": (10, 0, 0), "bob": (0, 10, 0)})
    move = await agent.act(p.observe(p.initial_state(), "alice"))
    assert isinstance(move, Offer)
    # the book is all I value; keeping hat or ball too is still possibly envy-free, and the
    # tie-break gives away what is worthless to me (higher P_EF, more for the partner)
    assert move.package == {"book": 1, "hat": 0, "ball": 0}


async def test_workflow_accepts_fair_enough_and_rejects_unfair() -> None:
    p = DondProtocol((1, 1, 1), {"alice": (10, 0, 0), "bob": (0, 10, 0)})
    s = p.initial_state()
    s, _ = p.apply(s, {"alice": Offer({"book": 0, "hat": 1, "ball": 1})})
    bob = BayesianWorkflowAgent()
    bob.reset(np.random.default_rng(0))
    move = await bob.act(p.observe(s, "bob"))  # bob is offered only the book: not EF for him
    assert isinstance(move, Reject) and move.counter is not None
    s2, _ = p.apply(p.initial_state(), {"alice": Offer({"book": 1, "hat": 0, "ball": 0})})
    plain = BayesianWorkflowAgent(polish=False)
    plain.reset(np.random.default_rng(0))
    assert isinstance(await plain.act(p.observe(s2, "bob")), Accept)
    # with polish (default) bob hands back the ball, worth nothing to him, once
    bob.reset(np.random.default_rng(0))
    move = await bob.act(p.observe(s2, "bob"))
    assert isinstance(move, Reject) and move.counter is not None
    assert move.counter.package == {"book": 0, "hat": 1, "ball": 0}


def test_render_belief_shows_support_and_proposals() -> None:
    agent = BayesianWorkflowAgent()
    p = DondProtocol((1, 2, 3), {"alice": (4, 0, 2), "bob": (1, 3, 1)})
    agent.decide(p.observe(p.initial_state(), "alice"))
    assert agent.state is not None
    text = render_belief(agent.state)
    assert "possible" in text and "P_EF" in text and "book=1" in text
    assert "bob" not in text  # nothing about the partner's true values


def test_workflow_rejects_bad_hyperparameters() -> None:
    with pytest.raises(ValueError, match="gamma"):
        BayesianWorkflowAgent(gamma=2)
    with pytest.raises(ValueError, match="lambda"):
        BayesianWorkflowAgent(lam=-1)
    with pytest.raises(ValueError, match="view"):
        BayesianWorkflowAgent(view="oracle")  # type: ignore[arg-type]


async def test_lambda_below_one_with_threshold_still_agrees() -> None:
    res = await play_datapoint(HAND[1], ["workflow?lam=0.5&threshold=0.2", "workflow"], seed=1)
    assert res.status == "agreement"
    prior = len(valuation_space((1, 2, 3), 10))
    assert len(res.record["beliefs"]["alice"][-1]["support"]) == prior  # lam < 1: no shrinking
    assert len(res.record["beliefs"]["bob"][-1]["support"]) < prior


def test_greedy_claims_valued_items_and_accepts_good_offers() -> None:
    p = DondProtocol((1, 2, 3), {"alice": (4, 0, 2), "bob": (1, 3, 1)})
    g = GreedyAgent()
    move = g.decide(p.observe(p.initial_state(), "alice"))
    assert isinstance(move, Offer) and move.package == {"book": 1, "hat": 0, "ball": 3}
    s, _ = p.apply(p.initial_state(), {"bob": Offer({"book": 0, "hat": 2, "ball": 2})})
    # alice would get book + 1 ball = 6 >= 0.6 * 10
    p2 = DondProtocol((1, 2, 3), {"alice": (4, 0, 2), "bob": (1, 3, 1)}, first="bob")
    s, _ = p2.apply(p2.initial_state(), {"bob": Offer({"book": 0, "hat": 2, "ball": 2})})
    assert isinstance(g.decide(p2.observe(s, "alice")), Accept)
    s, _ = p2.apply(p2.initial_state(), {"bob": Offer({"book": 1, "hat": 2, "ball": 2})})
    assert isinstance(g.decide(p2.observe(s, "alice")), Reject)


async def test_human_replay_both_sides_reproduces_the_outcome() -> None:
    turns = [Turn("bob", "i want hats"), Turn("alice", "ok, book and balls for me"),
             Turn("bob", "deal")]
    point = dp((1, 2, 3), (4, 0, 2), (1, 3, 1), Outcome("agreement", (1, 0, 3), (0, 2, 0)),
               turns)
    res = await play_datapoint(point, ["dataset-human", "dataset-human"], first="data")
    assert res.status == "agreement"
    assert share(res.record, "alice") == (1, 0, 3)
    moves = [e.move for e in res.trajectory.of_kind("move") if e.move is not None]
    texts = [m["text"] for m in moves if m["kind"] == "message"]
    assert texts == [t.text for t in turns]
    failed = dp((1, 2, 3), (4, 0, 2), (1, 3, 1), Outcome("disagree"), turns)
    res = await play_datapoint(failed, ["dataset-human", "dataset-human"], first="data")
    assert res.status == "no_deal" and res.reason == "walk"


def test_human_replay_walks_without_deal() -> None:
    a = HumanReplayAgent(dp((1, 1, 1), (10, 0, 0), (0, 10, 0)), "alice")
    p = DondProtocol((1, 1, 1), {"alice": (10, 0, 0), "bob": (0, 10, 0)})
    assert isinstance(a.decide(p.observe(p.initial_state(), "alice")), Walk)
    with pytest.raises(ValueError):
        HumanReplayAgent(HAND[0], "carol")


def test_agent_specs() -> None:
    assert isinstance(make_agent("workflow?gamma=0.5", HAND[0], "alice"), BayesianWorkflowAgent)
    assert isinstance(make_agent("greedy?accept_share=0.7", HAND[0], "bob"), GreedyAgent)
    with pytest.raises(AgentSpecError,
                       match="known: dataset-human, greedy, human, llm, llm-workflow, workflow"):
        make_agent("nosuch:x", HAND[0], "alice")
    with pytest.raises(AgentSpecError, match="no option"):
        make_agent("greedy?gamma=1", HAND[0], "alice")
    with pytest.raises(AgentSpecError, match="gamma"):
        make_agent("workflow?gamma=3", HAND[0], "alice")


async def test_message_only_partner_does_not_break_workflow() -> None:
    p = DondProtocol((1, 2, 3), {"alice": (4, 0, 2), "bob": (1, 3, 1)}, rounds=3)

    class Talker(GreedyAgent):
        async def act(self, observation):  # type: ignore[no-untyped-def]
            return Message("tell me more")

    w = BayesianWorkflowAgent()
    w.reset(np.random.default_rng(0))
    t = Talker()
    res = await run_episode(p, {"alice": w, "bob": t})
    assert res.status == "no_deal" and res.reason == "max_rounds" and res.rounds == 3


async def test_real_hardest_44_self_play_reaches_best(dond_dir: Path) -> None:
    points = hardest(load_split(dond_dir / "test.txt"), 44)
    for point in points:
        res = await play_datapoint(point, ["workflow", "workflow"], seed=0)
        assert res.status == "agreement", point.id
        a = share(res.record, "alice")
        assert is_envy_free(point.counts, point.alice, point.bob, a), point.id
        b = best(point.counts, point.alice, point.bob)
        assert b is not None and sum(res.record["scores"].values()) == b.total, point.id
