"""The task-exchange LLM agent end to end over real HTTP against the stub server."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from typing import Any

import pytest

from accord.agents.spec import AgentSpecError, parse_agent_spec
from accord.domains.base import EpisodeSpec, RunContext
from accord.domains.task_exchange import DOMAIN, get_scenario
from accord.domains.task_exchange.domain import build_agent, build_protocol, play
from accord.domains.task_exchange.llm.agent import TaskExchangeLLMAgent
from accord.domains.task_exchange.llm.prompts import render_system_prompt
from accord.domains.task_exchange.stub import TaskExchangePolicy
from accord.domains.task_exchange.validation import PATTERNS
from accord.protocols.engine import EpisodeResult
from accord.testing.stub import FaultyPolicy, Policy, ScriptedPolicy, StubServer

KEY = "sk-test-TX-0123456789"
LLM = "llm:openai-api/stub/{}?temperature=0"
CONSIDER = re.compile(r"<CONSIDER>(.*?)</CONSIDER>", re.S)


@pytest.fixture
def stub_env(monkeypatch: pytest.MonkeyPatch) -> Any:
    def point(stub: StubServer) -> None:
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("STUB_API_KEY", KEY)
    return point


async def episode(scenario: str, agents: Sequence[str], strategy: str = "utility-aware",
                  seed: int = 0, llm: dict[str, Any] | None = None,
                  **params: Any) -> EpisodeResult:
    spec = EpisodeSpec("task-exchange", scenario, tuple(parse_agent_spec(a) for a in agents),
                       {"strategy": strategy, **params}, seed)
    return await DOMAIN.run_episode(spec, RunContext(llm=llm or {}))


def cast(**policies: Policy | str) -> dict[str, Policy | str]:
    return policies


def by_model(stub: StubServer, model: str) -> list[Any]:
    return [r for r in stub.completion_requests if r.model == model]


def turn_of(message: str) -> int:
    """The global turn a Figure 7 turn prompt states (the prompt has no JSON state)."""
    found = re.findall(r"^You are agent \w+\. Global Turn (\d+)/\d+", message, re.M)
    # a retry is sent with the turn's prompt: both state the same turn
    assert found and len(set(found)) == 1, message[-400:]
    return int(found[0])


@pytest.mark.parametrize("scenario", ["cooperative", "competitive"])
@pytest.mark.parametrize("strategy", ["utility-aware", "baseline"])
async def test_llm_agents_play_both_scenarios_under_both_strategies(
        stub_env: Any, scenario: str, strategy: str) -> None:
    async with StubServer("task-exchange", api_key=KEY) as stub:
        stub_env(stub)
        res = await episode(scenario, [LLM.format("task-exchange")] * 2, strategy)
        reqs = stub.completion_requests
    assert res.status in ("agreement", "no_deal"), res.detail
    m = DOMAIN.metrics(EpisodeSpec("task-exchange", scenario, (), {}), res)
    assert m["error"] is False and m["invalid_total"] == 0 and m["turns"] >= 2
    assert m["social_welfare"] == pytest.approx(m["utility_Alice"] + m["utility_Bob"])
    sessions: dict[str, list[Any]] = {}
    for r in reqs:
        sessions.setdefault(r.conversation, []).append(r)
    assert len(sessions) == 2  # one session per agent, scoped episode/role
    sc = get_scenario(scenario)
    for reqs_one in sessions.values():
        system = reqs_one[0].messages[0]["content"]
        role = "Alice" if system.startswith("You are agent Alice.") else "Bob"
        # the standing Figure 7 prompt is the system prompt, set once, Rule 5 per strategy
        assert system.startswith(render_system_prompt(sc.view(role), strategy).split(
            "(Composite task information covers")[0])
        assert ("5. Be strategic:" in system) == (strategy == "utility-aware")
        # the stub gets exactly the Figure 7 prompt a model gets: no machine-readable block
        assert system == render_system_prompt(sc.view(role), strategy)
        assert not any("<TX_" in m["content"] for r in reqs_one for m in r.messages)
        # append-only: every call extends the previous one by the answer and one new turn
        for prev, nxt in itertools.pairwise(reqs_one):
            assert nxt.messages[:len(prev.messages)] == prev.messages
            assert len(nxt.messages) == len(prev.messages) + 2
        assert any(r.cached_tokens > 0 for r in reqs_one[1:])
        # only the partner's new messages are appended; its own are already its answers
        users = [m["content"] for m in reqs_one[-1].messages if m["role"] == "user"]
        assert not any(f"] {role}: " in u for u in users)
        turns = [turn_of(r.messages[-1]["content"]) for r in reqs_one]
        assert turns == sorted(turns) and turns[0] == 1
    assert set(res.usage) == {"Alice", "Bob"}
    assert sum(u["calls"] for u in res.usage.values()) == len(reqs)
    calls = [e for e in res.trajectory.of_kind("note") if e.reason == "llm_call"]
    assert len(calls) == len(reqs) and all(not e.data["from_cache"] for e in calls)


@pytest.mark.parametrize("order", ["llm-first", "code-first"])
async def test_llm_agent_against_code_agents(stub_env: Any, order: str) -> None:
    llm = LLM.format("task-exchange")
    agents = [llm, "utility-aware"] if order == "llm-first" else ["selfish", llm]
    async with StubServer("task-exchange") as stub:
        stub_env(stub)
        res = await episode("cooperative", agents, "utility-aware", seed=3)
        n = len(stub.completion_requests)
    assert res.status in ("agreement", "no_deal") and n >= 2
    assert list(res.usage) == (["Alice"] if order == "llm-first" else ["Bob"])
    assert res.record["utilities"] is not None


async def test_consider_is_kept_private(stub_env: Any) -> None:
    protocol = build_protocol("competitive", {"strategy": "utility-aware"})
    async with StubServer("task-exchange") as stub:
        stub_env(stub)
        ctx = {"llm": {}, "episode_id": "consider-test"}
        agents = [build_agent(LLM.format("task-exchange"), ctx) for _ in range(2)]
        res = await play(protocol, agents, seed=1)
        reqs = stub.completion_requests
    private = [c.strip() for r in reqs for c in CONSIDER.findall(r.reply or "")]
    assert private and all(private)
    for agent in agents:
        assert isinstance(agent, TaskExchangeLLMAgent) and agent.considerations
    public = res.trajectory.to_jsonl() + json.dumps(res.record)
    for text in private:
        assert text not in public  # never in a move, a note, the history or the record
    for role in ("Alice", "Bob"):
        own = [c.strip() for r in reqs for c in CONSIDER.findall(r.reply or "")
               if r.messages[0]["content"].startswith(f"You are agent {role}.")]
        seen_by_partner = "\n".join(
            m["content"] for r in reqs if not r.messages[0]["content"].startswith(
                f"You are agent {role}.") for m in r.messages if m["role"] == "user")
        assert own and not any(text in seen_by_partner for text in own)
        # ...but the agent itself sees its own reasoning again in its session
        mine = [m["content"] for r in reqs if r.messages[0]["content"].startswith(
            f"You are agent {role}.") for m in r.messages if m["role"] == "assistant"]
        assert any("<CONSIDER>" in m for m in mine)


@pytest.mark.parametrize("code", list(PATTERNS.values()))
async def test_each_invalid_pattern_through_the_llm_path(stub_env: Any, code: str) -> None:
    reason = {c: r for r, c in PATTERNS.items()}[code]
    policies = cast(sloppy=TaskExchangePolicy(mistakes=code), tidy="task-exchange")
    async with StubServer(policies=policies) as stub:
        stub_env(stub)
        res = await episode("cooperative", [LLM.format("sloppy"), LLM.format("tidy")])
        alice = by_model(stub, "sloppy")
    invalid = res.trajectory.of_kind("invalid")
    assert [e.reason for e in invalid] == [reason] and invalid[0].party == "Alice"
    assert res.status != "error"
    # the targeted feedback reached the model in the retry, within the same turn
    bad, retry = alice[1], alice[2]
    assert "was invalid" not in bad.messages[-1]["content"]
    last = retry.messages[-1]["content"]
    assert invalid[0].feedback in last and "does not consume the turn" in last
    assert "was invalid and was NOT delivered to Bob (attempt 1 of" in last
    assert turn_of(last) == 2 and turn_of(bad.messages[-1]["content"]) == 2
    assert invalid[0].feedback is not None and invalid[0].feedback.startswith("✖")


@pytest.mark.parametrize(("fault", "reason"), [("unclosed", "missing_proposal_close_tag"),
                                               ("malformed", "missing_proposal_open_tag")])
async def test_faulty_policy_tag_faults(stub_env: Any, fault: str, reason: str) -> None:
    # two faults: Turn 1's lone <CONSIDER> (anything goes there), then the first proposal
    flaky = FaultyPolicy(fault, times=2, inner=TaskExchangePolicy())
    async with StubServer(policies={"flaky": flaky, "tidy": "task-exchange"}) as stub:
        stub_env(stub)
        res = await episode("competitive", [LLM.format("flaky"), LLM.format("tidy")])
        alice = by_model(stub, "flaky")
    invalid = res.trajectory.of_kind("invalid")
    assert [e.reason for e in invalid] == [reason] and res.status != "error"
    assert invalid[0].feedback in alice[2].messages[-1]["content"]


async def test_tag_faults_on_a_proposal_via_scripted_replies(stub_env: Any) -> None:
    sc = get_scenario("cooperative")
    uni = sc.universe
    body = json.dumps({"Alice": [uni.description(0b111000)], "Bob": [uni.description(0b000111)]})
    script = ["<CONSIDER>plan</CONSIDER>",
              body,                                          # MPT: bare JSON
              "<PROPOSAL>" + body,                           # MET
              json.dumps({"Alice": ["no such task"]}),      # MPT again (bare JSON)
              "<PROPOSAL>" + json.dumps({"Alice": ["no such task"],
                                         "Bob": [uni.description(0b000111)]}) + "</PROPOSAL>",
              "<PROPOSAL>" + body + "</PROPOSAL>"]
    policies = cast(scripted=ScriptedPolicy([*script, "<ACCEPT>ok</ACCEPT>"]),
                    tidy="task-exchange")
    async with StubServer(policies=policies) as stub:
        stub_env(stub)
        res = await episode("cooperative", [LLM.format("scripted"), LLM.format("tidy")],
                            turn_limit=2)
    assert [e.reason for e in res.trajectory.of_kind("invalid")] == [
        "missing_proposal_open_tag", "missing_proposal_close_tag",
        "missing_proposal_open_tag", "unknown_task"]
    assert res.status in ("agreement", "no_deal")


async def test_k_exceeded_ends_with_error(stub_env: Any) -> None:
    policies = cast(stubborn=TaskExchangePolicy(mistakes="OVL*6"), tidy="task-exchange")
    async with StubServer(policies=policies) as stub:
        stub_env(stub)
        res = await episode("competitive", [LLM.format("stubborn"), LLM.format("tidy")])
        alice = by_model(stub, "stubborn")
    assert (res.status, res.who) == ("error", "Alice")
    assert [e.reason for e in res.trajectory.of_kind("invalid")] == ["overlap"] * 6
    assert len(alice) == 1 + 6  # Turn 1, then K + 1 = 6 attempts in Turn 2
    assert res.record["status"] == "error" and res.record["utilities"] is None
    assert res.record["allocation"] is None
    # with K = 2 three invalid attempts are enough
    policies = cast(stubborn=TaskExchangePolicy(mistakes="MDA*3"), tidy="task-exchange")
    async with StubServer(policies=policies) as stub:
        stub_env(stub)
        res = await episode("competitive", [LLM.format("stubborn"), LLM.format("tidy")],
                            max_retries=2)
    assert res.status == "error" and len(res.trajectory.of_kind("invalid")) == 3


async def test_retries_reset_when_the_turn_passes(stub_env: Any) -> None:
    # K = 5 mistakes in Turn 2, a valid reply, then K more in Alice's next turn
    policies = cast(sloppy=TaskExchangePolicy(mistakes="UNK*5+OK+OVL*5"),
                    tidy=TaskExchangePolicy(mistakes=()))
    async with StubServer(policies=policies) as stub:
        stub_env(stub)
        res = await episode("competitive", [LLM.format("sloppy"), LLM.format("tidy")])
    assert res.status != "error"
    invalid = res.trajectory.of_kind("invalid")
    assert [e.reason for e in invalid] == ["unknown_task"] * 5 + ["overlap"] * 5
    assert [e.data["attempt"] for e in invalid] == [1, 2, 3, 4, 5] * 2
    # the engine logs the round of the state: Alice's second batch answers Bob's Turn 3
    assert invalid[0].round == 2 and invalid[5].round == 3


async def test_baseline_forwards_intermediate_mistakes_unchecked(stub_env: Any) -> None:
    policies = cast(sloppy=TaskExchangePolicy(mistakes="UNK"), tidy="task-exchange")
    async with StubServer(policies=policies) as stub:
        stub_env(stub)
        res = await episode("cooperative", [LLM.format("sloppy"), LLM.format("tidy")],
                            "baseline")
    assert res.trajectory.of_kind("invalid") == []
    notes = [e for e in res.trajectory.of_kind("note") if e.reason == "unchecked_invalid"]
    assert notes and notes[0].data["pattern"] == "unknown_task"


async def test_replay_only_rerun_makes_no_requests_and_reproduces(stub_env: Any,
                                                                  tmp_path: Any) -> None:
    cache = str(tmp_path / "cache.sqlite")
    agents = [LLM.format("task-exchange").replace("temperature=0", "temperature=0.7")] * 2
    async with StubServer("task-exchange") as stub:
        stub_env(stub)
        first = await episode("competitive", agents, seed=5,
                              llm={"cache": cache, "cache_mode": "rw"})
        n = len(stub.completion_requests)
        again = await episode("competitive", agents, seed=5,
                              llm={"cache": cache, "cache_mode": "replay"})
        assert len(stub.completion_requests) == n  # zero HTTP requests in replay
    assert n > 0 and again.status == first.status and again.record == first.record

    def moves(res: EpisodeResult) -> list[tuple[Any, ...]]:
        return [(e.round, e.party, e.kind, e.reason, json.dumps(e.move, sort_keys=True))
                for e in res.trajectory if e.kind in ("move", "invalid")]

    assert moves(again) == moves(first)
    replayed = [e for e in again.trajectory.of_kind("note") if e.reason == "llm_call"]
    assert replayed and all(e.data["from_cache"] for e in replayed)
    # a different episode (seed) is a cache miss in replay mode: a clean error, no request
    async with StubServer("task-exchange") as stub:
        stub_env(stub)
        miss = await episode("competitive", agents, seed=6,
                             llm={"cache": cache, "cache_mode": "replay"})
        assert stub.completion_requests == []
    assert miss.status == "error" and "CacheMiss" in (miss.detail or "")


async def test_in_process_mock_provider_matches_http() -> None:
    agents = ["llm:mock/task-exchange", "llm:mock/task-exchange"]
    res = await episode("cooperative", agents, seed=2)
    assert res.status in ("agreement", "no_deal") and set(res.usage) == {"Alice", "Bob"}


async def test_state_blocks_can_be_left_out(stub_env: Any) -> None:
    sc = get_scenario("cooperative")
    keep = "<PROPOSAL>" + json.dumps({"Alice": [sc.universe.description(0b111000)],
                                      "Bob": [sc.universe.description(0b000111)]}) + \
        "</PROPOSAL>"
    plain = ScriptedPolicy(["<CONSIDER>x</CONSIDER>", keep, "<ACCEPT>fine</ACCEPT>"],
                           cycle=True)
    async with StubServer(policies={"plain": plain}) as stub:
        stub_env(stub)
        res = await episode("cooperative", [LLM.format("plain") + "&state=false"] * 2)
        reqs = stub.completion_requests
    assert res.status == "agreement"
    alice = [r for r in reqs if r.messages[0]["content"].startswith("You are agent Alice.")]
    assert alice[0].messages[0]["content"] == render_system_prompt(sc.view("Alice"),
                                                                   "utility-aware")
    assert not any("<TX_" in m["content"] for r in reqs for m in r.messages)


def test_llm_agent_specs() -> None:
    with pytest.raises(AgentSpecError, match="needs a model"):
        build_agent("llm")
    with pytest.raises(AgentSpecError, match="unknown LLM option"):
        build_agent("llm:mock/task-exchange?speed=2")
    with pytest.raises(AgentSpecError, match="state must be true or false"):
        build_agent("llm:mock/task-exchange?state=maybe")
    agent = build_agent("llm:mock/task-exchange?temperature=0.2&state=false",
                        {"episode_id": "e1"})
    assert isinstance(agent, TaskExchangeLLMAgent) and agent.describe() == \
        "llm:mock/task-exchange"
    assert agent.episode == "e1" and agent.machine_state is False
    assert agent.config.temperature == 0.2
    with pytest.raises(ValueError, match="exactly 2 agents"):
        DOMAIN.validate(EpisodeSpec("task-exchange", "cooperative",
                                    (parse_agent_spec("llm:mock/x"),), {}))
    with pytest.raises(ValueError, match="llm needs a model"):
        DOMAIN.validate(EpisodeSpec("task-exchange", "cooperative",
                                    (parse_agent_spec("llm"), parse_agent_spec("selfish")), {}))


async def test_a_failing_model_call_ends_the_episode_with_a_clear_error(stub_env: Any) -> None:
    # the endpoint refuses every request with HTTP 400
    async with StubServer("task-exchange") as stub:
        stub_env(stub)
        res = await episode("cooperative", [LLM.format("always-bad-request"),
                                            "utility-aware"])
    assert (res.status, res.who) == ("error", "Alice")
    assert "LLM call failed for Alice" in (res.detail or "")
    assert "HTTP 400" in (res.detail or "")
