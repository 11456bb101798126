"""The LLM deliberation scaffold end to end over real HTTP against the stub (no network)."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import pytest

from accord.agents.spec import parse_agent_list
from accord.domains.base import EpisodeSpec, RunContext
from accord.domains.deliberation import DOMAIN, MenuInstance, optimum, shipped_instance
from accord.domains.deliberation.stub import DeliberationPolicy, step_module
from accord.protocols.engine import EpisodeResult
from accord.testing.stub import (
    Outcome,
    Policy,
    PolicyRequest,
    Reply,
    ScriptedPolicy,
    StubServer,
    corrupt,
)

summarize = DOMAIN.summary

KEY = "sk-test-DELIB-0badc0de"
LLM = "llm:openai-api/stub/deliberation"
SIZES = {"menu-numeric": 2, "menu-semantic": 2, "task-allocation": 3}


@pytest.fixture
def stub_env(monkeypatch: pytest.MonkeyPatch) -> Any:
    def point(stub: StubServer) -> None:
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("STUB_API_KEY", KEY)
    return point


def episode(setting: str, agents: list[str], *, instance: int = 1, seed: int = 0,
            llm: dict[str, Any] | None = None, episode_id: str = "",
            **params: Any) -> tuple[EpisodeSpec, EpisodeResult]:
    spec = EpisodeSpec("deliberation", setting, tuple(parse_agent_list(",".join(agents))),
                       {"instance": instance, **params}, seed)
    ctx = RunContext(episode_id=episode_id, llm=llm or {})
    return spec, asyncio.run(DOMAIN.run_episode(spec, ctx))


def module_of(request: Any) -> str:
    """The module whose session sent ``request`` (its "YOUR STEP: ..." heading names it)."""
    return step_module(request.messages[0]["content"]) or ""


class BreakFirst(Policy):
    """The rule-based deliberator, except that one module's first reply is corrupted."""

    def __init__(self, module: str, fault: str = "malformed") -> None:
        self.inner, self.module, self.fault, self.done = DeliberationPolicy(), module, fault, False

    def respond(self, request: PolicyRequest) -> Outcome:
        out = self.inner.respond(request)
        if not self.done and step_module(request.system()) == self.module:
            self.done = True
            assert isinstance(out, Reply)
            return Reply(corrupt(out.text, self.fault))
        return out


@pytest.mark.parametrize("setting", list(SIZES))
@pytest.mark.parametrize("tools", [False, True])
def test_all_settings_complete_with_llm_agents(stub_env: Any, setting: str, tools: bool) -> None:
    with StubServer("deliberation", api_key=KEY) as stub:
        stub_env(stub)
        spec, res = episode(setting, [LLM] * SIZES[setting], tools=tools)
        reqs = stub.completion_requests
    out = summarize(spec, res)
    assert res.status == "agreement" and out["valid"] is True, res.detail
    assert out["hr"] == 0.0 and (out["nmae_pub"] is None) == (setting != "task-allocation")
    if setting != "menu-semantic":  # numeric preferences: sharing everything finds the optimum
        assert out["nr"] > 85
    if tools:  # the solver's decision is adopted: compliance and tool NR are recorded
        assert out["tool_compliance"] is True and out["tool_nr"] == pytest.approx(out["nr"])
        assert any(c["tool"] == "solver" and c["via"] == "call"
                   for calls in res.record["tool_calls"].values() for c in calls)
    else:
        assert out["tool_nr"] is None and not any(res.record["tool_calls"].values())
        assert not any("<TOOL>{" in r.messages[0]["content"] or
                       "TOOLS." in r.messages[0]["content"] for r in reqs)
    # every module ran as its own append-only session; usage counts every call
    modules = {module_of(r) for r in reqs}
    assert {"observation", "planning", "conversation"} <= modules
    by_session = itertools.groupby(sorted(reqs, key=lambda r: r.conversation),
                                   key=lambda r: r.conversation)
    for _, group in by_session:
        calls = list(group)
        assert len({c.messages[0]["content"] for c in calls}) == 1
        for prev, nxt in itertools.pairwise(calls):
            assert nxt.messages[: len(prev.messages)] == prev.messages
    assert sum(u["calls"] for u in res.usage.values()) == len(reqs)
    # each agent's estimates were recorded every turn it played
    assert all(res.record["estimates"][r] for r in res.record["estimates"])


def test_estimates_merge_partner_information(stub_env: Any) -> None:
    with StubServer("deliberation") as stub:
        stub_env(stub)
        _, res = episode("menu-numeric", [LLM, LLM], instance=4, tools=True)
    inst = shipped_instance("menu-numeric", 4)
    assert isinstance(inst, MenuInstance)
    decider = res.record["decided_by"]  # accepts only once it has heard everything
    last = res.record["estimates"][decider][-1]["estimate"]
    assert last["total_ingredients"] == dict(inst.ingredients)
    assert last["overall_preference"] == pytest.approx(
        {d: inst.dish_value(d) for d in inst.dishes})
    assert summarize(*_spec_res("menu-numeric", 4, res))["reward"] == \
        pytest.approx(optimum(inst).reward)


def _spec_res(setting: str, instance: int, res: EpisodeResult) -> tuple[EpisodeSpec,
                                                                         EpisodeResult]:
    return EpisodeSpec("deliberation", setting, (), {"instance": instance}), res


def _share_facts(text: str) -> list[list[Any]]:
    try:
        return list(json.loads(text)["share"])
    except (json.JSONDecodeError, KeyError, TypeError):
        return []


@pytest.mark.parametrize("setting, lineup", [
    ("menu-numeric", ["share", LLM]), ("menu-semantic", ["share", LLM]),
    ("task-allocation", ["share", LLM, LLM]), ("task-allocation", [LLM, "naive", "share"])])
def test_mixed_llm_and_code_agents(stub_env: Any, setting: str, lineup: list[str]) -> None:
    with StubServer("deliberation") as stub:
        stub_env(stub)
        spec, res = episode(setting, lineup, instance=2)
    out = summarize(spec, res)
    assert res.status == "agreement" and out["valid"] is True
    roles = list(res.record["estimates"])
    first = res.record["dialog"][0]
    facts = _share_facts(first["text"])
    assert facts, "the first speaker shares its observation in structured form"
    # the next listening agent of the other kind put what it heard into its first estimate
    kind = lineup[0].split(":")[0]
    nxt = next(r for r, a in zip(roles, lineup, strict=True)
               if a.split(":")[0] not in (kind, "naive"))
    est = res.record["estimates"][nxt][0]["estimate"]
    checked = 0
    for fact in facts:
        if fact[0] == "ingredients":
            assert est["total_ingredients"][fact[1]] == fact[2]
        elif fact[0] in ("private_resources", "efficiency"):
            assert est[fact[0]][fact[1]][fact[2]] == fact[3]
        else:
            continue
        checked += 1
    assert checked > 0


def test_centralized_and_oracle_baselines(stub_env: Any) -> None:
    with StubServer("deliberation") as stub:
        stub_env(stub)
        cen_spec, cen = episode("task-allocation", [LLM], instance=5, mode="centralized",
                                tools=True)
        kinds_spec, kinds = episode("menu-numeric", [LLM.replace("llm:", "llm-centralized:")],
                                    instance=5, tools=True)
        ora_spec, ora = episode("task-allocation", [LLM.replace("llm:", "llm-oracle:")] * 3,
                                instance=5)
    c = summarize(cen_spec, cen)
    assert (c["mode"], c["rounds"], c["nr"], c["nmae_pub"]) == ("centralized", 1, 100.0, 0.0)
    assert cen.record["decided_by"] == "central" and c["tool_compliance"] is True
    k = summarize(kinds_spec, kinds)
    assert k["mode"] == "centralized" and k["nr"] == pytest.approx(100.0)
    o = summarize(ora_spec, ora)
    assert o["mode"] == "oracle" and o["valid"] and o["nmae_pub"] == 0.0
    assert ora.record["decided_by"] == "agent_2"


def test_only_the_leader_ends_task_allocation(stub_env: Any) -> None:
    # workers that always want to accept and to end; a leader that never does
    eager = ScriptedPolicy(['<ESTIMATE>{"private_resources": {}, "public_resources": {}, '
                            '"efficiency": {}}</ESTIMATE>'
                            '<PROPOSAL>{"allocation": {}, "explanation": "x"}</PROPOSAL>'
                            '<DECISION>{"accept_decision": true, "finalize": true, '
                            '"final_decision": {}}</DECISION><MESSAGE>done</MESSAGE>'], cycle=True)
    stubborn = ScriptedPolicy(['<ESTIMATE>{"private_resources": {}, "public_resources": {}, '
                               '"efficiency": {}}</ESTIMATE>'
                               '<PROPOSAL>{"allocation": {}, "explanation": "x"}</PROPOSAL>'
                               '<DECISION>{"accept_decision": false, "finalize": false}'
                               '</DECISION><MESSAGE>not yet</MESSAGE>'], cycle=True)
    with StubServer(policies={"eager": eager, "stubborn": stubborn}) as stub:
        stub_env(stub)
        _, res = episode("task-allocation", ["llm:openai-api/stub/eager"] * 2 +
                         ["llm:openai-api/stub/stubborn"], max_rounds=3)
    assert (res.status, res.reason) == ("no_deal", "max_rounds")
    assert res.record["decision"] is None
    accepts = [e for e in res.trajectory.of_kind("note") if e.reason == "worker_accept"]
    assert {e.party for e in accepts} == {"agent_0", "agent_1"}
    assert not res.trajectory.of_kind("invalid")  # workers never even tried to decide
    # with the rule-based leader in oracle mode a worker accepts first, the leader ends it
    with StubServer("deliberation") as stub:
        stub_env(stub)
        _, res = episode("task-allocation", [LLM] * 3, mode="oracle", instance=7)
    notes = [e for e in res.trajectory.of_kind("note") if e.reason == "worker_accept"]
    assert notes and notes[0].party == "agent_1"
    assert res.record["decided_by"] == "agent_2" and res.status == "agreement"


@pytest.mark.parametrize("setting, module, fault, reason", [
    ("task-allocation", "decision", "malformed", "missing_decision"),
    ("menu-numeric", "planning", "invalid-json", "invalid_json"),
    ("menu-semantic", "conversation", "malformed", "missing_message")])
def test_malformed_reply_is_retried_with_feedback(stub_env: Any, setting: str, module: str,
                                                  fault: str, reason: str) -> None:
    with StubServer(policies={"flaky": BreakFirst(module, fault)}) as stub:
        stub_env(stub)
        _, res = episode(setting, ["llm:openai-api/stub/flaky"] * SIZES[setting])
        reqs = stub.completion_requests
    invalid = res.trajectory.of_kind("invalid")
    assert [e.reason for e in invalid] == [reason]
    assert invalid[0].move is not None and invalid[0].move["kind"] == "malformed"
    assert res.status == "agreement"
    # the next request of the same module session carries the feedback and the step's data
    # again, in words (no machine-readable state block)
    bad = next(i for i, r in enumerate(reqs) if module_of(r) == module)
    retry = next(r for r in reqs[bad + 1:] if r.conversation == reqs[bad].conversation)
    text = retry.messages[-1]["content"]
    assert invalid[0].feedback and invalid[0].feedback in text
    assert "could not be used" in text and "<STATE>" not in text
    assert "Now is round 1 of the total" in text


def test_centralized_decision_parse_failure_then_recovery(stub_env: Any) -> None:
    estimate = ('<ESTIMATE>{"total_ingredients": {}, "overall_preference": {}}</ESTIMATE>')
    replies = [estimate, "I would pick the curry.", '<PROPOSAL>{"menu_proposal": ["nope"]}'
               '</PROPOSAL>', '<PROPOSAL>{"menu_proposal": []}</PROPOSAL>']
    with StubServer(policies={"s": ScriptedPolicy(replies)}) as stub:
        stub_env(stub)
        _, res = episode("menu-numeric", ["llm-centralized:openai-api/stub/s"])
        reqs = stub.completion_requests
    assert [e.reason for e in res.trajectory.of_kind("invalid")] == ["missing_proposal",
                                                                     "bad_proposal"]
    assert "unknown dishes ['nope']" in reqs[3].messages[-1]["content"]
    assert res.status == "agreement" and res.record["decision"] == []


def test_unusable_estimate_falls_back_and_is_flagged(stub_env: Any) -> None:
    replies = ["no estimate", "still none", '<PROPOSAL>{"menu_proposal": []}</PROPOSAL>']
    with StubServer(policies={"s": ScriptedPolicy(replies)}) as stub:
        stub_env(stub)
        _, res = episode("menu-numeric", ["llm-centralized:openai-api/stub/s"], instance=3)
    inst = shipped_instance("menu-numeric", 3)
    assert isinstance(inst, MenuInstance)
    est = res.record["estimates"]["central"][-1]["estimate"]
    assert est["total_ingredients"] == dict(inst.ingredients)  # the merged observation
    assert res.flags["estimate_fallback"] == {"central": 1}


def test_messages_are_truncated_by_the_protocol(stub_env: Any) -> None:
    class Chatty(DeliberationPolicy):
        def respond(self, request: PolicyRequest) -> Outcome:
            if step_module(request.system()) == "conversation":
                return Reply("<MESSAGE>" + "blah " * 400 + "</MESSAGE>")
            return super().respond(request)

    with StubServer(policies={"chatty": Chatty()}) as stub:
        stub_env(stub)
        _, res = episode("menu-numeric", ["llm:openai-api/stub/chatty", LLM], max_chars=300,
                         max_rounds=2)
    cut = [e for e in res.trajectory.of_kind("note") if e.reason == "truncated"]
    assert cut and cut[0].party == "agent_0" and cut[0].data["limit"] == 300
    said = [u for u in res.record["dialog"] if u["speaker"] == "agent_0" and u["kind"] == "offer"]
    assert said and all(len(u["text"]) == 300 and u["truncated"] for u in said)


def test_auto_tool_use_puts_tool_outputs_in_the_prompts(stub_env: Any) -> None:
    agent = "llm:openai-api/stub/deliberation?tool_use=auto&temperature=0"
    with StubServer("deliberation") as stub:
        stub_env(stub)
        spec, res = episode("menu-semantic", [agent, agent], tools=True)
        reqs = stub.completion_requests
    out = summarize(spec, res)
    assert out["tool_compliance"] is True and res.status == "agreement"
    planning = [r for r in reqs if module_of(r) == "planning"]
    assert planning and all("<TOOL_RESULT>" in r.messages[-1]["content"] for r in planning)
    assert not any("<TOOL>{" in (r.reply or "") for r in reqs)
    assert {c["via"] for cs in res.record["tool_calls"].values() for c in cs} == {"auto"}
    assert all(r.params.get("temperature") == 0 for r in reqs)


def test_replay_only_rerun_makes_zero_requests_and_same_transcript(stub_env: Any,
                                                                   tmp_path: Any) -> None:
    cache = tmp_path / "llm.db"
    agents = [LLM + "?temperature=0.3"] * 3
    with StubServer("deliberation", api_key=KEY) as stub:
        stub_env(stub)
        _, first = episode("task-allocation", agents, tools=True, episode_id="ep-1",
                           llm={"cache": str(cache), "cache_mode": "rw"})
        n_first = len(stub.completion_requests)
        stub.reset()
        _, again = episode("task-allocation", agents, tools=True, episode_id="ep-1",
                           llm={"cache": str(cache), "cache_mode": "replay"})
        assert stub.completion_requests == []
    assert n_first > 0

    def strip(res: EpisodeResult) -> list[dict[str, Any]]:
        out = []
        for ev in res.trajectory:
            d = {k: v for k, v in ev.to_dict().items() if k != "t"}
            for key in ("latency", "from_cache", "detail"):
                d.get("data", {}).pop(key, None)
            out.append(d)
        return out

    assert strip(first) == strip(again)
    assert first.record == again.record
    assert KEY.encode() not in cache.read_bytes()
    assert KEY not in first.trajectory.to_jsonl()
