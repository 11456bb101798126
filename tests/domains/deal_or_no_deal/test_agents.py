"""Code agents: Bayesian workflow (Algorithm 1), greedy, human replay; real-data self-play."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from accord.agents.base import Agent
from accord.agents.spec import AgentSpec, AgentSpecError, parse_agent_spec
from accord.core.moves import Accept, Message, Move, Offer, Reject, Walk
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
from accord.domains.deal_or_no_deal.agents import AGENT_KINDS, AgentContext, make_agent
from accord.domains.deal_or_no_deal.load import Turn
from accord.domains.deal_or_no_deal.rules import best, hardest, is_envy_free, is_pareto_optimal
from accord.domains.deal_or_no_deal.workflow import render_belief
from accord.protocols.base import Observation
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


# -- agent kinds from outside the domain ------------------------------------------------------
class _Walker(Agent):
    """Walks at its first turn, saying what its items are worth to it (from its context)."""

    name = "walker"

    def __init__(self, worth: int, role: str) -> None:
        self.worth, self.role = worth, role
        self.reset()

    async def act(self, observation: Observation) -> Move:
        return Walk(f"{self.role}: my items are worth {self.worth} to me")


@pytest.fixture
def walker() -> Iterator[list[AgentContext]]:
    """``walker`` registered in the DoND registry for one test; yields its contexts."""
    seen: list[AgentContext] = []

    def factory(spec: AgentSpec, ctx: AgentContext) -> Agent:
        seen.append(ctx)
        dp = ctx.datapoint
        values = dp.alice if ctx.role == "alice" else dp.bob
        return _Walker(sum(c * v for c, v in zip(dp.counts, values, strict=True)), ctx.role)

    def check(spec: AgentSpec) -> None:
        if spec.options:
            raise AgentSpecError(f"walker takes no options, got {sorted(spec.options)}")

    AGENT_KINDS.register("walker", factory, check=check)
    try:
        yield seen
    finally:
        AGENT_KINDS.unregister("walker")


def test_a_registered_kind_runs_with_accord_run(walker: list[AgentContext], dond_dir: Path
                                                ) -> None:
    from typer.testing import CliRunner

    from accord.cli.main import app

    cli = CliRunner()
    res = cli.invoke(app, ["run", "deal-or-no-deal/test/5", "-a", "walker,greedy", "--data",
                           str(dond_dir), "-p", "max_retries=1", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert (out["status"], out["reason"], out["who"]) == ("no_deal", "walk", "alice")
    assert out["record"]["agents"] == {"alice": "walker", "bob": "greedy"}
    [ctx] = walker  # validation ran the kind's check; the episode built it once
    assert ctx.role == "alice" and ctx.datapoint.id == "test/5"
    assert ctx.settings.max_retries == 1 and len(ctx.settings.episode_id) == 16
    worth = sum(c * v for c, v in zip(ctx.datapoint.counts, ctx.datapoint.alice, strict=True))
    assert worth == 10  # every side of every datapoint values its items at 10 in all
    bad = cli.invoke(app, ["run", "deal-or-no-deal/test/5", "-a", "walker?x=1,greedy",
                           "--data", str(dond_dir)])
    assert bad.exit_code == 2 and "walker takes no options, got ['x']" in bad.output
    typo = cli.invoke(app, ["run", "deal-or-no-deal/test/5", "-a", "walkr,greedy", "--data",
                            str(dond_dir)])
    assert typo.exit_code == 2 and "Traceback" not in typo.output
    assert ("unknown deal-or-no-deal agent kind 'walkr' (did you mean 'walker'?); known: "
            "dataset-human, greedy, human, llm, llm-workflow, walker, workflow") in typo.output
    assert len(walker) == 1  # neither refused line-up built anything


def test_the_registry_checks_specs_without_building() -> None:
    from accord.domains import EpisodeSpec, get_domain

    dom = get_domain("deal-or-no-deal")
    assert dom.agent_kinds() == sorted(AGENT_KINDS.kinds())
    with pytest.raises(AgentSpecError, match="no option"):  # caught before any data is read
        dom.validate(EpisodeSpec("deal-or-no-deal", "test/0",
                                 tuple(map(parse_agent_spec, ["greedy?gamma=1", "workflow"]))))
    with pytest.raises(AgentSpecError, match="needs a model"):
        dom.validate(EpisodeSpec("deal-or-no-deal", "test/0",
                                 tuple(map(parse_agent_spec, ["llm", "workflow"]))))
    dom.validate(EpisodeSpec("deal-or-no-deal", "test/0",  # a person is seated at run time
                             tuple(map(parse_agent_spec, ["human", "llm:mock/dond"]))))
    agent = make_agent("greedy", HAND[0], "bob", {"max_retries": 0, "episode_id": "e"})
    assert isinstance(agent, GreedyAgent)
