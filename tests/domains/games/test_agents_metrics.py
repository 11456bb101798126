"""Code agents, the equilibrium selection rule and the metrics."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from accord.agents.spec import parse_agent_spec
from accord.domains.games import (
    ExtensiveGame,
    FixedAgent,
    GameProtocol,
    NormalFormGame,
    RationalAgent,
    action_distribution,
    catalog_names,
    episode_metrics,
    load_catalog_game,
    parse_game,
)
from accord.domains.games.agents import build_agent
from accord.domains.games.metrics import plot_action_distribution, rate
from accord.domains.games.selection import select_normal, select_spe
from accord.protocols.engine import run_episode

F = Fraction
EXPECTED_RATIONAL = {
    "prisoners-dilemma": ["defect", "defect"],
    "stag-hunt": ["stag", "stag"],                 # payoff dominance
    "battle-of-the-sexes": ["opera", "opera"],     # first-listed tie-break
    "wait-go": ["wait", "go"],
    "duopolistic-competition": ["action_3", "action_3"],
    "golden-balls": ["steal", "steal"],           # split is weakly dominated
    "escalation": ["choice_1"],
    "monopoly": ["choice_2", "choice_1"],
    "hot-cold": ["choice_1", "choice_2"],
    "draco": ["choice_2", "choice_2", "choice_2"],
    "trigame": ["choice_2", "choice_1", "choice_2"],
}


@pytest.mark.parametrize("name", sorted(EXPECTED_RATIONAL))
async def test_rational_agents_play_the_selected_equilibrium(name: str) -> None:
    game = load_catalog_game(name)
    agents = {}
    for i, p in enumerate(game.players):
        agent = build_agent(parse_agent_spec("rational"), game, i)
        agent.reset(np.random.default_rng(i))
        agents[p] = agent
    res = await run_episode(GameProtocol(game, negotiation_rounds=1), agents)
    rec = res.record
    assert (rec.get("profile") or rec.get("path")) == EXPECTED_RATIONAL[name]
    m = episode_metrics(rec)
    assert m["nash"] is True
    assert all("I will" in msg["text"] for msg in rec["messages"])


async def test_rational_mixes_in_rock_paper_scissors() -> None:
    game = load_catalog_game("rock-paper-scissors")
    assert isinstance(game, NormalFormGame)
    plan = select_normal(game)
    assert plan.kind == "mixed" and plan.strategies == ((F(1, 3),) * 3,) * 2
    seen = set()
    for seed in range(30):
        agents = {p: RationalAgent() for p in game.players}
        for i, a in enumerate(agents.values()):
            a.reset(np.random.default_rng([seed, i]))
        res = await run_episode(GameProtocol(game), agents)
        seen.add(res.record["profile"][0])
    assert seen == {"rock", "paper", "scissors"}


def test_selection_tie_break_random_uses_the_generator() -> None:
    game = load_catalog_game("battle-of-the-sexes")
    assert isinstance(game, NormalFormGame)
    picks = {select_normal(game, tie_break="random", rng=np.random.default_rng(s)
                           ).pure_profile() for s in range(20)}
    assert picks == {(0, 0), (1, 1)}
    with pytest.raises(ValueError, match="Generator"):
        select_normal(game, tie_break="random")


def test_three_player_game_without_pure_equilibrium_falls_back() -> None:
    # player 3 is a dummy; players 1-2 play matching pennies
    pennies = [[[[1, -1, 0], [1, -1, 0]], [[-1, 1, 0], [-1, 1, 0]]],
               [[[-1, 1, 0], [-1, 1, 0]], [[1, -1, 0], [1, -1, 0]]]]
    game = parse_game({"type": "normal", "players": ["A", "B", "C"],
                       "actions": [["h", "t"], ["h", "t"], ["x", "y"]], "payoffs": pennies})
    assert isinstance(game, NormalFormGame)
    plan = select_normal(game)
    assert plan.kind == "uniform-undominated"
    assert plan.strategies == ((F(1, 2), F(1, 2)),) * 3


def test_select_spe_with_ties_prefers_payoff_dominance() -> None:
    game = parse_game({"type": "extensive", "players": ["A", "B"], "tree": {
        "player": "A", "actions": {
            "l": {"player": "B", "actions": {"x": {"payoff": [1, 0]}, "y": {"payoff": [0, 0]}}},
            "r": {"player": "B", "actions": {"x": {"payoff": [2, 1]},
                                             "y": {"payoff": [-1, 1]}}}}}})
    assert isinstance(game, ExtensiveGame)
    assert select_spe(game).path == ("r", "x")  # (2, 1) dominates every other SPE outcome


def test_build_agent_checks_specs() -> None:
    game = load_catalog_game("prisoners-dilemma")
    with pytest.raises(ValueError, match="unknown action"):
        build_agent(parse_agent_spec("fixed:nope"), game, 0)
    with pytest.raises(ValueError, match="needs an action"):
        build_agent(parse_agent_spec("fixed"), game, 0)
    with pytest.raises(ValueError, match="unknown games agent kind"):
        build_agent(parse_agent_spec("llm:openai/x"), game, 0)
    with pytest.raises(ValueError, match="unknown option"):
        build_agent(parse_agent_spec("random?speed=3"), game, 0)
    with pytest.raises(ValueError, match="tie_break"):
        build_agent(parse_agent_spec("rational?tie_break=coin"), game, 0)
    agent = build_agent(parse_agent_spec("fixed:cooperate?message=trust me"), game, 0)
    assert isinstance(agent, FixedAgent) and agent.message == "trust me"


async def test_fixed_agent_sequence_in_a_tree() -> None:
    game = load_catalog_game("draco")
    alice = build_agent(parse_agent_spec("fixed:choice_2/choice_1"), game, 0)
    bob = build_agent(parse_agent_spec("fixed:choice_1"), game, 1)
    res = await run_episode(GameProtocol(game), {"Alice": alice, "Bob": bob})
    assert res.record["path"] == ["choice_2", "choice_1", "choice_1"]
    m = episode_metrics(res.record)
    assert m["nash"] is False and m["pareto_optimal"] is True  # (5, 5): trust, not SPE
    assert m["payoff_1"] == 5.0 and m["welfare"] == 10.0


async def _records(name: str, specs: list[str], n: int) -> list[dict]:
    game = load_catalog_game(name)
    out = []
    for seed in range(n):
        agents = {}
        for i, (p, s) in enumerate(zip(game.players, specs, strict=True)):
            agent = build_agent(parse_agent_spec(s), game, i)
            agent.reset(np.random.default_rng([seed, i]))
            agents[p] = agent
        out.append((await run_episode(GameProtocol(game), agents)).record)
    return out


async def test_rates_and_action_distribution(tmp_path: Path) -> None:
    recs = await _records("stag-hunt", ["random", "fixed:stag"], 40)
    metrics = [episode_metrics(r) for r in recs]
    stag_share = sum(r["profile"] == ["stag", "stag"] for r in recs) / 40
    assert rate(metrics, "nash") == stag_share  # (hare, stag) is never an equilibrium
    assert rate(metrics, "pareto_optimal_nash") == stag_share
    dist = action_distribution(recs)
    assert dist["players"]["Bob"] == {"stag": 1.0, "hare": 0.0}
    assert dist["players"]["Alice"]["stag"] == stag_share
    assert sum(dist["outcomes"].values()) == pytest.approx(1.0)
    png = plot_action_distribution(dist, tmp_path / "dist.png", title="stag hunt")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert rate([], "nash") is None


async def test_sequential_metrics_distinguish_nash_outcomes() -> None:
    (rec,) = await _records("monopoly", ["fixed:choice_1", "fixed:choice_2"], 1)
    m = episode_metrics(rec)
    # staying out is a Nash outcome (Bob's threat) but not subgame perfect
    assert m["nash_outcome"] is True and m["nash"] is False
    dist = action_distribution([rec])
    assert dist["outcomes"] == {"choice_1": 1.0} and dist["players"] == {
        "Alice": {"choice_1": 1.0}}


def test_every_catalog_game_has_metrics_for_an_unfinished_record() -> None:
    for name in catalog_names():
        game = load_catalog_game(name)
        proto = GameProtocol(game)
        rec = proto.result(proto.initial_state(), None)  # type: ignore[arg-type]
        m = episode_metrics(rec)
        assert m["completed"] is False and m["nash"] is None and m["welfare"] is None
