"""Games agent kinds live in one AgentRegistry with a typed context: a kind registered from
outside the domain runs with ``accord run`` and ``accord bench``, and unknown kinds are
listed with it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.agents.base import Agent
from accord.agents.kinds import AgentSettings
from accord.agents.spec import AgentSpec, AgentSpecError, parse_agent_spec
from accord.cli.main import app
from accord.core.moves import Action, Message, Move
from accord.domains.games.agents import AGENT_KINDS, AgentContext, make_agent
from accord.domains.games.catalog import resolve_game
from accord.domains.games.load import parse_game
from accord.domains.games.protocol import GameObservation
from accord.protocols.base import Observation

runner = CliRunner()


class LastAction(Agent):
    """Always the last action its player has in the game (read from its typed context)."""

    name = "last-action"

    def __init__(self, ctx: AgentContext) -> None:
        self.action = ctx.game.actions[ctx.player][-1]  # type: ignore[union-attr]
        self.player = ctx.game.players[ctx.player]
        self.episode = ctx.settings.episode_id
        self.reset()

    async def act(self, observation: Observation) -> Move:
        assert isinstance(observation, GameObservation)
        if observation.phase == "negotiation":
            return Message(f"{self.player} will play {self.action}")
        return Action(self.action)

    def describe(self) -> str:
        return f"last-action for {self.player}"


def _no_options(spec: AgentSpec) -> None:
    if spec.options or spec.arg:
        raise AgentSpecError(f"agent {spec}: last-action takes no options")


@pytest.fixture
def last_action() -> Iterator[list[AgentContext]]:
    """``last-action`` registered for the test (and removed after); yields the contexts
    its factory was called with."""
    seen: list[AgentContext] = []

    def factory(spec: AgentSpec, ctx: AgentContext) -> Agent:
        seen.append(ctx)
        return LastAction(ctx)

    AGENT_KINDS.register("last-action", factory, check=_no_options)
    try:
        yield seen
    finally:
        AGENT_KINDS.unregister("last-action")
    assert "last-action" not in AGENT_KINDS


def test_a_registered_kind_runs_with_accord_run(last_action: list[AgentContext]) -> None:
    res = runner.invoke(app, ["run", "games/prisoners-dilemma", "-a",
                              "last-action,fixed:cooperate", "--max-rounds", "1",
                              "-p", "max_retries=2", "--json"])
    assert res.exit_code == 0, res.output
    rec = json.loads(res.stdout)["record"]
    assert rec["actions"] == {"Alice": "defect", "Bob": "cooperate"}
    assert rec["payoffs"] == {"Alice": 5, "Bob": 0}
    assert rec["messages"][0]["text"] == "Alice will play defect"
    assert rec["agents"]["Alice"] == "last-action for Alice"
    # built once (validation ran its check), with the typed context: the game, the player
    # and the run's settings (the params' retry budget, the episode id for LLM caches)
    [built] = last_action
    assert built.player == 0 and built.game.name == "prisoners-dilemma"
    assert isinstance(built.settings, AgentSettings) and built.settings.max_retries == 2
    assert len(built.settings.episode_id) == 16 and built.settings.seat is None


def test_its_check_and_unknown_kinds_are_clean_usage_errors(
        last_action: list[AgentContext]) -> None:
    bad = runner.invoke(app, ["run", "games/prisoners-dilemma", "-a",
                              "last-action?x=1,rational"])
    assert bad.exit_code == 2 and "last-action takes no options" in bad.output
    assert not last_action  # refused by its check before anything was built
    typo = runner.invoke(app, ["run", "games/prisoners-dilemma", "-a", "last-actoin,rational"])
    assert typo.exit_code == 2 and "Traceback" not in typo.output
    assert "unknown games agent kind 'last-actoin' (did you mean 'last-action'?); known: " \
        "fixed, human, last-action, llm, llm-workflow, random, rational" in typo.output


def test_a_registered_kind_runs_in_a_bench(last_action: list[AgentContext],
                                           tmp_path: Path) -> None:
    cfg = tmp_path / "g.yaml"
    cfg.write_text("name: g\ndomain: games\nscenarios: [prisoners-dilemma, stag-hunt]\n"
                   "agents:\n  - [last-action, rational]\nseeds: 2\n")
    res = runner.invoke(app, ["bench", str(cfg), "--store", str(tmp_path / "g.db"),
                              "--json", "--quiet"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert (summary["planned"], summary["done"], summary["failed"]) == (4, 4, 0)


def test_the_domain_lists_every_kind_and_builds_them_from_the_registry() -> None:
    from accord.domains import get_domain

    assert get_domain("games").agent_kinds() == AGENT_KINDS.kinds() == [
        "rational", "random", "fixed", "llm", "llm-workflow", "human"]
    game = resolve_game("prisoners-dilemma")
    agent = make_agent(parse_agent_spec("fixed:defect"), game, 1, {"max_retries": 1})
    assert agent.name == "fixed"
    with pytest.raises(AgentSpecError, match=r"unknown games agent kind 'nope'"):
        make_agent(parse_agent_spec("nope"), game, 0)
    with pytest.raises(AgentSpecError, match="needs a person at a seat"):
        make_agent(parse_agent_spec("human"), game, 0)
    three = parse_game({"type": "normal", "players": ["A", "B", "C"],
                        "actions": [["x", "y"]] * 3,
                        "payoffs": [[[[1, 1, 1], [0, 0, 0]], [[0, 0, 0], [1, 1, 1]]],
                                    [[[0, 0, 0], [1, 1, 1]], [[1, 1, 1], [0, 0, 0]]]]})
    with pytest.raises(AgentSpecError, match="defined for two players"):  # before any client
        make_agent(parse_agent_spec("llm-workflow:mock/games"), three, 0)


def test_an_unknown_option_is_named_with_the_ones_the_kind_takes() -> None:
    """It read "agent rational?foo=1: unknown option(s) ['foo']" (a Python list, the spec
    twice once the CLI prefixed it)."""
    res = runner.invoke(app, ["run", "games/stag-hunt", "--agents", "rational?foo=1,rational"])
    out = " ".join(res.output.split())
    assert res.exit_code == 2
    assert "unknown option(s) foo; rational takes: message, tie_break" in out
    assert "['" not in out and out.count("rational?foo=1") == 1
