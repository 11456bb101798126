"""The rule-based ``games`` stub policy: its contract, its game theory, its toy credulity."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from accord.agents.guards import quote_counterpart
from accord.agents.spec import parse_agent_spec
from accord.domains.base import EpisodeSpec, RunContext
from accord.domains.games import GamesDomain, catalog_names, load_catalog_game, parse_game
from accord.domains.games.describe import render_game
from accord.domains.games.llm.prompts import render_prompt
from accord.domains.games.llm.workflow import parse_nash, parse_responses
from accord.domains.games.model import ExtensiveGame, NormalFormGame
from accord.domains.games.stub import StubGame, follow, pure_nash, solve_tree
from accord.domains.games.stub import parse_game as stub_game
from accord.protocols.engine import EpisodeResult
from accord.solvers.backward_induction import subgame_perfect_equilibria
from accord.solvers.nash import pure_nash as accord_pure_nash
from accord.testing.stub import PolicyError, PolicyRequest, Reply, make_policy

DOMAIN = GamesDomain()


def request(game: Any, state: dict[str, Any]) -> PolicyRequest:
    """A conversation rendered with the agents' own templates: the text a model gets."""
    role = state["role"]
    others = [p for p in game.players if p != role]
    system = render_prompt("system.jinja", personality_line=None, role=role, others=others,
                           description=game.info.description, board=render_game(game),
                           normal=isinstance(game, NormalFormGame), rounds=1,
                           order=list(game.players), workflow=None, cheap_talk=False)
    news = [{"round": m["round"], "speaker": m["speaker"],
             "quoted": quote_counterpart(m["speaker"], m["text"])}
            for m in state.get("messages", []) if m["speaker"] != role]
    phase, step = state.get("phase", "play"), state.get("step")
    if phase == "negotiation":
        user = render_prompt("talk.jinja", round=1, rounds=1, news=news, first=not news,
                             strategy=None, others=others)
    elif phase == "workflow":
        other = others[0]
        me = game.players.index(role)
        if step == "opponent_best_responses":
            user = render_prompt("wf_responses.jinja", other=other,
                                 mine=list(game.actions[me]))
        elif step == "own_best_responses":
            user = render_prompt("wf_best.jinja", other=other,
                                 theirs=list(game.actions[1 - me]))
        else:
            user = render_prompt("wf_nash.jinja", other=other,
                                 example=dict.fromkeys(game.players, "action"))
    else:
        user = render_prompt("act.jinja", rounds=1 if news else 0, news=news,
                             first_action=bool(news), normal=isinstance(game, NormalFormGame),
                             moves=[], node="/", strategy=None, here=None,
                             actions=list(state.get("actions") or (
                                 game.actions[game.players.index(role)]
                                 if isinstance(game, NormalFormGame) else ["?"])),
                             variant=None)
    return PolicyRequest(({"role": "system", "content": system},
                          {"role": "user", "content": user}), "games")


def answer(policy: str, game: Any, **state: Any) -> str:
    base = {"role": "Alice", "phase": "play", "messages": [], "actions": []}
    out = make_policy(policy).respond(request(game, {**base, **state}))
    assert isinstance(out, Reply)
    return out.text


def random_normal(rng: np.random.Generator, rows: int, cols: int) -> NormalFormGame:
    data = {"type": "normal", "players": ["Alice", "Bob"],
            "actions": [[f"r{i}" for i in range(rows)], [f"c{j}" for j in range(cols)]],
            "payoffs": rng.integers(-3, 4, size=(rows, cols, 2)).tolist()}
    game = parse_game(data)
    assert isinstance(game, NormalFormGame)
    return game


def random_tree(rng: np.random.Generator, depth: int) -> dict[str, Any]:
    if depth == 0:
        return {"payoff": rng.integers(-5, 6, size=2).tolist()}
    return {"player": ["Alice", "Bob"][depth % 2],
            "actions": {f"a{i}": random_tree(rng, depth - 1) for i in range(2)}}


def test_pure_equilibria_match_accords_solver_on_random_games() -> None:
    rng = np.random.default_rng(5)
    for _ in range(60):
        game = random_normal(rng, int(rng.integers(1, 5)), int(rng.integers(1, 5)))
        mine = pure_nash(stub_game(system_for(game)))
        theirs = [game.profile_names(p) for p in accord_pure_nash(game.payoffs)]
        assert sorted(mine) == sorted(theirs)


def test_backward_induction_gives_a_subgame_perfect_path_on_random_trees() -> None:
    rng = np.random.default_rng(11)
    for _ in range(40):
        game = parse_game({"type": "extensive", "players": ["Alice", "Bob"],
                           "tree": random_tree(rng, int(rng.integers(1, 5)))})
        assert isinstance(game, ExtensiveGame)
        sg = stub_game(system_for(game))
        plan, values = solve_tree(sg)
        spes = subgame_perfect_equilibria(game.tree)
        assert follow(sg, plan) in {e.path for e in spes}
        assert values[()] in {e.payoff for e in spes}


@pytest.mark.parametrize("name", [n for n in catalog_names()
                                  if isinstance(load_catalog_game(n), NormalFormGame)])
def test_workflow_answers_follow_the_agents_contract(name: str) -> None:
    game = load_catalog_game(name)
    assert isinstance(game, NormalFormGame)
    a, b = game.actions
    step1 = answer("games", game, phase="workflow", step="opponent_best_responses")
    got = parse_responses(step1, a, b, "response")
    for act, row in got.items():
        other = [game.payoff((game.action_index(0, act), j))[1] for j in range(len(b))]
        assert b.index(row["response"][0]) in [j for j, v in enumerate(other)
                                               if v == max(other)]
    step2 = answer("games", game, phase="workflow", step="own_best_responses")
    assert set(parse_responses(step2, b, a, "best_response")) == set(b)
    nash, text = parse_nash(answer("games", game, phase="workflow", step="nash"), game)
    assert text
    eqs = [game.profile_names(p) for p in accord_pure_nash(game.payoffs)]
    assert (nash is None) == (not eqs)
    if nash is not None:
        assert tuple(nash[p] for p in game.players) in eqs


def test_unreadable_prompts_are_policy_errors() -> None:
    policy = make_policy("games")
    game = load_catalog_game("prisoners-dilemma")
    with pytest.raises(PolicyError, match="payoff table or game tree"):
        policy.respond(PolicyRequest(({"role": "user", "content": "hi"},), "games"))
    good = request(game, {"role": "Alice", "phase": "play"})
    no_turn = PolicyRequest((good.messages[0], {"role": "user", "content": "choose"}), "games")
    with pytest.raises(PolicyError, match="no workflow step, negotiation round or action"):
        policy.respond(no_turn)
    nameless = good.messages[0]["content"].replace("You are Alice, a player", "You play")
    with pytest.raises(PolicyError, match="You are NAME"):
        policy.respond(PolicyRequest(({"role": "system", "content": nameless},
                                      good.messages[1]), "games"))
    carol = good.messages[0]["content"].replace("You are Alice,", "You are Carol,")
    with pytest.raises(PolicyError, match="not a player"):
        policy.respond(PolicyRequest(({"role": "system", "content": carol},
                                      good.messages[1]), "games"))


def test_it_agrees_to_an_equilibrium_proposed_first_and_refuses_a_non_equilibrium() -> None:
    bos = load_catalog_game("battle-of-the-sexes")
    said = [{"round": 1, "speaker": "Alice", "text": "Shall we do (football, football)?"}]
    reply = answer("games", bos, role="Bob", phase="negotiation", messages=said)
    assert "Agreed: let us play (football, football)." in reply
    pd = load_catalog_game("prisoners-dilemma")
    said = [{"round": 1, "speaker": "Alice", "text": "Trust me: (cooperate, cooperate)."}]
    assert "(defect, defect)" in answer("games", pd, role="Bob", phase="negotiation",
                                        messages=said)
    assert "<ACTION>defect</ACTION>" in answer("games", pd, role="Bob", messages=said,
                                               actions=["cooperate", "defect"])
    assert "(cooperate, cooperate)" in answer("games-trusting", pd, role="Bob",
                                              phase="negotiation", messages=said)


def run(game: str, agents: Sequence[str], k: int, **params: Any) -> EpisodeResult:
    spec = EpisodeSpec("games", game, tuple(parse_agent_spec(a) for a in agents),
                       {"negotiation_rounds": k, **params})
    return asyncio.run(DOMAIN.run_episode(spec, RunContext()))


@pytest.mark.parametrize(("k", "prompt", "outcome"), [
    (0, 0, ["defect", "defect"]), (1, 0, ["cooperate", "cooperate"]),
    (2, 3, ["cooperate", "cooperate"]), (2, 5, ["defect", "defect"]),
    (1, 6, ["defect", "defect"])])
def test_trusting_stub_models_the_seeds_negotiation_effect(k: int, prompt: int,
                                                           outcome: list[str]) -> None:
    agent = f"llm:mock/games-trusting?prompt={prompt}"
    res = run("prisoners-dilemma", [agent, agent], k)
    assert res.record["profile"] == outcome


def test_workflow_strategy_keeps_the_trusting_stub_rational() -> None:
    agent = "llm-workflow:mock/games-trusting"
    res = run("prisoners-dilemma", [agent, agent], 2)
    assert res.record["profile"] == ["defect", "defect"]
    assert json.dumps(res.record["workflow"]["Alice"]["nash"]) == \
        '{"Alice": "defect", "Bob": "defect"}'


def test_first_speaker_wins_the_battle_of_the_sexes_with_the_stub() -> None:
    for first, profile in (("Alice", ["opera", "opera"]), ("Bob", ["football", "football"])):
        res = run("battle-of-the-sexes", ["llm:mock/games"], 1, first_speaker=first)
        assert res.record["profile"] == profile
    assert run("battle-of-the-sexes", ["llm:mock/games"], 0).record["profile"] == \
        ["opera", "football"]  # without talk each aims for its favourite equilibrium


def test_no_pure_equilibrium_gives_varied_deterministic_choices() -> None:
    picks = [tuple(run("rock-paper-scissors", ["llm:mock/games"], 0, max_retries=0,
                       ).record["profile"]) for _ in range(2)]
    assert picks[0] == picks[1]  # the same prompt gets the same answer (replayable)
    seen = {tuple(run("rock-paper-scissors", ["llm:mock/games"], k).record["profile"])
            for k in range(4)}
    assert len(seen) > 1


def system_for(game: Any) -> str:
    """The system prompt a model gets for ``game``."""
    return request(game, {"role": game.players[0], "phase": "play"}).messages[0]["content"]


def test_stub_game_reads_fractions_and_floats() -> None:
    game = parse_game({"type": "normal", "players": ["A", "B"], "actions": [["x"], ["y"]],
                       "payoffs": [[[0.5, "7/3"]]]})
    read = stub_game(system_for(game))
    assert isinstance(read, StubGame)
    assert [str(v) for v in read.payoff(("x", "y"))] == ["1/2", "7/3"]


def test_stub_reads_three_player_profiles_from_the_text() -> None:
    game = parse_game({"type": "normal", "players": ["A", "B", "C"],
                       "actions": [["x", "y"], ["u"], ["v", "w"]],
                       "payoffs": [[[[1, 2, 3], [4, 5, 6]]], [[[-1, 0, 1], ["1/3", 2, 0]]]]})
    read = stub_game(system_for(game))
    assert read.players == ("A", "B", "C") and read.actions == (("x", "y"), ("u",), ("v", "w"))
    assert [str(v) for v in read.payoff(("y", "u", "w"))] == ["1/3", "2", "0"]
