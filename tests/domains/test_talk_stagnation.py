"""A party that only repeats message-only moves is caught by the stagnation rule in every
domain (issue 25: a broken model that copied ``<MESSAGE>...</MESSAGE>`` 20 times looked like
a stubborn negotiator, ``no_deal / max_rounds``). With an LLM party the rule is on by
default (seed 002's K=3); code strategies and people keep it off (``auto``)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import numpy as np
import pytest
from typer.testing import CliRunner

from accord.agents.spec import parse_agent_spec
from accord.cli.main import app
from accord.core.moves import Message, Move
from accord.domains.base import EpisodeSpec, RunContext
from accord.domains.deal_or_no_deal import Datapoint, Outcome, play_datapoint
from accord.domains.deliberation.catalog import shipped_instance
from accord.domains.deliberation.domain import build_protocol as deliberation_protocol
from accord.domains.params import auto_stagnation
from accord.domains.task_exchange import DOMAIN as TASK_EXCHANGE
from accord.protocols.agent import Agent
from accord.protocols.base import Observation
from accord.protocols.engine import Bounds, run_episode
from accord.testing.stub import ScriptedPolicy, StubServer

runner = CliRunner()
TALK = "<MESSAGE>Let us keep talking about what matters to each of us.</MESSAGE>"
POINT = Datapoint("hand/1", (1, 2, 3), (4, 0, 2), (1, 3, 1), (), Outcome("no_agreement"),
                  "hand", (1,))


@pytest.fixture
def talker(monkeypatch: pytest.MonkeyPatch) -> Iterator[StubServer]:
    """``openai-api/stub/talk`` only ever sends a message."""
    with StubServer(policies={"talk": ScriptedPolicy([TALK], cycle=True)}) as stub:
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("STUB_API_KEY", "sk-stub-test-key-000111222")
        yield stub


def test_auto_default_is_on_with_an_llm_party_and_off_for_code_strategies() -> None:
    assert auto_stagnation(None, ["llm:openai/gpt-4.1-mini", "greedy"]) == 3
    assert auto_stagnation(None, ["llm-workflow:openai/x", "greedy"]) == 3
    assert auto_stagnation(None, ["greedy", "workflow"]) == 0
    assert auto_stagnation(5, ["greedy", "workflow"]) == 5
    assert auto_stagnation(0, ["llm:openai/x"]) == 0


def test_deal_or_no_deal_message_only_party_ends_by_the_rule(talker: StubServer) -> None:
    res = asyncio.run(play_datapoint(POINT, ["llm:openai-api/stub/talk", "greedy"],
                                     rounds=20))
    assert (res.status, res.reason, res.who) == ("no_deal", "stagnation", "alice")
    assert "alice sent only messages" in str(res.detail) and "3 consecutive turns" in \
        str(res.detail)
    assert len(talker.completion_requests) == 3  # not 20 rounds of talk
    off = asyncio.run(play_datapoint(POINT, ["llm:openai-api/stub/talk", "greedy"],
                                     rounds=5, stagnation_rounds=0))
    assert (off.status, off.reason) == ("no_deal", "max_rounds")


def test_task_exchange_text_only_turns_end_by_the_rule(talker: StubServer) -> None:
    # the baseline strategy forwards a turn without a proposal as plain text (seed 000)
    spec = EpisodeSpec("task-exchange", "cooperative",
                       (parse_agent_spec("llm:openai-api/stub/talk"),
                        parse_agent_spec("scripted")), {"strategy": "baseline"}, 0)
    res = asyncio.run(TASK_EXCHANGE.run_episode(spec, RunContext(episode_id="te-talk")))
    assert (res.status, res.reason, res.who) == ("no_deal", "stagnation", "Alice")
    assert "Alice sent only messages" in str(res.detail)
    off = EpisodeSpec("task-exchange", "cooperative", spec.agents,
                      {"strategy": "baseline", "stagnation_rounds": 0}, 0)
    res = asyncio.run(TASK_EXCHANGE.run_episode(off, RunContext(episode_id="te-talk-off")))
    assert res.reason != "stagnation"


class Talker(Agent):
    """Only ever talks."""

    async def act(self, observation: Observation) -> Move:
        return Message("I have more to say before anyone proposes.")


@pytest.mark.parametrize(("k", "reason"), [(3, "stagnation"), (0, "max_rounds")])
def test_deliberation_message_only_party_ends_by_the_rule(k: int, reason: str) -> None:
    inst = shipped_instance("menu-numeric", 0)
    protocol = deliberation_protocol(inst, "deliberation", {"stagnation_rounds": k})
    agents = {role: Talker() for role in protocol.parties}
    for agent in agents.values():
        agent.reset(np.random.default_rng(0))
    res = asyncio.run(run_episode(protocol, agents, bounds=Bounds(max_rounds=6)))
    assert (res.status, res.reason) == ("no_deal", reason)
    if k:
        first = protocol.parties[0]
        assert res.who == first and f"{first} sent only messages" in str(res.detail)


def test_deliberation_default_follows_the_line_up() -> None:
    inst = shipped_instance("menu-numeric", 0)
    assert deliberation_protocol(inst, "deliberation", {}, ["llm:openai/x", "share"]
                                 ).stagnation_rounds == 3
    assert deliberation_protocol(inst, "deliberation", {}, ["share", "share"]
                                 ).stagnation_rounds == 0
    assert deliberation_protocol(inst, "deliberation", {"stagnation_rounds": "auto"},
                                 ["llm:openai/x", "share"]).stagnation_rounds == 3


def test_bargaining_repeating_talk_and_the_same_offer_ends_by_the_rule(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # in bargaining a message never holds the turn for long (max_messages_per_turn, then an
    # offer or a walk is due), so "no new proposal" is the same offer with talk around it
    same = TALK + '\n<PROPOSAL>{"price": 800, "delivery_days": 2, "warranty_years": 0}</PROPOSAL>'
    with StubServer(policies={"same": ScriptedPolicy([same], cycle=True)}) as stub:
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("STUB_API_KEY", "sk-stub-test-key-000111222")
        res = runner.invoke(app, ["run", "bargaining/buyer-seller", "--agents",
                                  "llm:openai-api/stub/same,hardliner", "--json"])
    out = json.loads(res.stdout)
    assert (out["status"], out["reason"]) == ("no_deal", "stagnation")
    assert out["detail"].startswith("The stagnation rule ended the episode")


def test_bargaining_message_only_party_cannot_hold_the_turn(talker: StubServer) -> None:
    res = runner.invoke(app, ["run", "bargaining/buyer-seller", "--agents",
                              "llm:openai-api/stub/talk,hardliner", "--json"])
    out = json.loads(res.stdout)
    # two messages, then a message is refused each time until the retry budget is spent
    assert out["status"] == "error" and "illegal_move" in out["detail"]
    assert len(talker.completion_requests) == 2 + 6
