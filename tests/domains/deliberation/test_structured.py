"""Structured output for the deliberation scaffold over real HTTP (the stub server): each
module's schema (estimate keys, dishes or tasks and agents, the decision's flags, the
message limit, the tool choice) in the request, JSON replies read into the same
estimate, proposal, tool call and message, bad JSON sent back with feedback."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from accord.agents import structured as st
from accord.agents.spec import parse_agent_list
from accord.domains.base import EpisodeSpec, RunContext
from accord.domains.deliberation import DOMAIN, shipped_instance
from accord.domains.deliberation.llm.structured import UNASSIGNED, ingredients
from accord.domains.deliberation.stub import step_module
from accord.protocols.engine import EpisodeResult
from accord.testing.stub import Outcome, Policy, PolicyRequest, Reply, StubServer

KEY = "sk-test-DELIB-struct"


@pytest.fixture
def stub_env(monkeypatch: pytest.MonkeyPatch) -> Any:
    def point(stub: StubServer) -> None:
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("STUB_API_KEY", KEY)
    return point


class ByModule(Policy):
    """Answers each module's call with the next of its scripted JSON replies."""

    def __init__(self, **replies: list[Any]) -> None:
        self.replies = {m: list(r) for m, r in replies.items()}

    def respond(self, request: PolicyRequest) -> Outcome:
        module = step_module(request.system())
        assert module is not None
        queue = self.replies[module]
        out = queue.pop(0) if len(queue) > 1 else queue[0]
        return Reply(out if isinstance(out, str) else json.dumps(out))


def episode(setting: str, agents: list[str], **params: Any) -> EpisodeResult:
    spec = EpisodeSpec("deliberation", setting, tuple(parse_agent_list(",".join(agents))),
                       {"instance": 1, "max_rounds": 1, **params}, 0)
    return asyncio.run(DOMAIN.run_episode(spec, RunContext()))


def schemas(stub: StubServer, module: str) -> list[dict[str, Any]]:
    return [r.params["response_format"]["json_schema"]["schema"]
            for r in stub.completion_requests
            if step_module(r.messages[0]["content"]) == module]


def test_menu_modules_send_their_schemas_and_json_becomes_the_offer(stub_env: Any) -> None:
    inst = shipped_instance("menu-numeric", 1)
    dishes = list(inst.recipes)
    policy = ByModule(
        observation=['{"total_ingredients": {"rice": ', {
            "total_ingredients": {"rice": 3}, "overall_preference": {dishes[0]: 60.5}}],
        planning=[{"menu_proposal": {d: d in dishes[:2] for d in dishes},
                   "explanation": "Best two."}],
        conversation=[{"message": "I have cheddar and egg."}])
    with StubServer(policy) as stub:
        stub_env(stub)
        res = episode("menu-numeric", ["llm:openai-api/stub/x?structured=json_schema",
                                       "share"])
    obs = schemas(stub, "observation")
    shared = {"recipes": {d: dict(r) for d, r in inst.recipes.items()}}
    assert obs[0]["properties"]["total_ingredients"] == st.obj(
        {i: st.number() for i in ingredients(shared)})
    assert list(obs[0]["properties"]["overall_preference"]["properties"]) == dishes
    plan = schemas(stub, "planning")[0]
    menu = plan["properties"]["menu_proposal"]
    assert menu["properties"] == {d: st.boolean() for d in dishes}
    assert menu["required"] == dishes
    assert "tool" not in plan["properties"]  # tools are off in this episode
    talk = schemas(stub, "conversation")[0]
    assert talk["properties"]["message"] == st.text(1000)
    # the unreadable estimate was asked again, with feedback
    notes = [e for e in res.trajectory if e.kind == "note" and e.party == "agent_0"
             and e.reason == "estimate_fallback"]
    assert not notes
    est = res.record["estimates"]["agent_0"][0]["estimate"]
    assert est["total_ingredients"] == {"rice": 3}
    first = res.record["dialog"][0]
    assert first["speaker"] == "agent_0" and first["proposal"] == dishes[:2]
    assert first["text"] == "I have cheddar and egg."
    observation_prompts = [r.messages[-1]["content"] for r in stub.completion_requests
                           if step_module(r.messages[0]["content"]) == "observation"]
    assert "not valid JSON" in observation_prompts[1]


def test_allocation_with_a_tool_call_and_unassigned_tasks(stub_env: Any) -> None:
    inst = shipped_instance("task-allocation", 1)
    tasks = list(inst.tasks)
    alloc = {t: UNASSIGNED for t in tasks} | {tasks[0]: "agent_0", tasks[1]: "agent_1"}
    policy = ByModule(
        observation=[{"private_resources": {}, "public_resources": {"Budget": 100},
                      "efficiency": {}}],
        planning=[{"tool": "solver", "allocation": alloc, "explanation": ""},
                  {"tool": "none", "allocation": alloc, "explanation": "Two tasks."}],
        decision=[{"tool": "none", "accept_decision": False, "explanation": "no"}],
        conversation=[{"message": "Let us start small."}])
    with StubServer(policy) as stub:
        stub_env(stub)
        res = episode("task-allocation", ["llm:openai-api/stub/x?structured=grammar",
                                          "share", "share"], tools=True)
    reqs = stub.completion_requests
    assert all("grammar" in r.params and "response_format" not in r.params for r in reqs)
    grammar = next(r.params["grammar"] for r in reqs
                   if step_module(r.messages[0]["content"]) == "planning")
    assert '"\\"tool\\""' in grammar and '"\\"unassigned\\""' in grammar
    tools = [e for e in res.trajectory if e.kind == "note" and e.reason == "tool_call"]
    assert [t.data["tool"] for t in tools] == ["solver"]
    first = res.record["dialog"][0]
    assert first["proposal"] == {tasks[0]: "agent_0", tasks[1]: "agent_1"}
