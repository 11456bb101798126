"""Structured output for the LLM roles that are not parties: the termination judge, the
stagnation scorer and the leak judge, over real HTTP to the stub server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

from accord.agents.guards.judge import JudgeVerdict, read_leak_verdict
from accord.core.moves import Malformed
from accord.domains.bargaining import resolve_scenario, run_negotiation
from accord.protocols.engine import EpisodeResult
from accord.testing.stub import ScriptedPolicy, StubServer

Point = Callable[[StubServer], None]


@pytest.fixture
def stub_env(monkeypatch: pytest.MonkeyPatch) -> Point:
    def point(stub: StubServer) -> None:
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("STUB_API_KEY", "sk-roles-test")
    return point


def run(scenario: str, agents: list[str], **params: Any) -> EpisodeResult:
    return asyncio.run(run_negotiation(resolve_scenario(scenario), agents, params=params))


def test_termination_judge_replies_in_json(stub_env: Point) -> None:
    judge = ScriptedPolicy(["<VERDICT>continue</VERDICT>",
                            json.dumps({"verdict": "continue", "reason": "still moving"})],
                           cycle=True)
    with StubServer(policies={"judge": judge}) as stub:
        stub_env(stub)
        res = run("split", ["hardliner", "hardliner"], stagnation_rounds=0, max_rounds=2,
                  judge="llm:openai-api/stub/judge?structured=json_schema")
    reqs = stub.completion_requests
    schema = reqs[0].params["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["verdict"] == {"enum": ["continue", "agreement", "no_deal"]}
    # a tagged reply is not the JSON asked for: sent back, with the JSON shape again
    retry = reqs[1].messages[-1]["content"]
    assert "not one JSON object" in retry and "Reply with one JSON object" in retry
    judged = [e.data["decision"] for e in res.trajectory.of_kind("note") if e.reason == "judge"]
    assert judged and set(judged) == {"continue"}
    assert res.status == "no_deal" and res.reason == "bound_hit"


def test_stagnation_scorer_replies_in_json(stub_env: Point) -> None:
    scorer = ScriptedPolicy([json.dumps({"verdict": "STAGNANT", "reason": "no concession"})],
                            cycle=True)
    with StubServer(policies={"stagnation": scorer}) as stub:
        stub_env(stub)
        res = run("split", ["hardliner", "hardliner"], max_rounds=10,
                  stagnation="llm:openai-api/stub/stagnation?structured=grammar",
                  stagnation_measure="issues")
    grammar = stub.completion_requests[0].params["grammar"]
    assert '"\\"STAGNANT\\"" | "\\"MOVING\\""' in grammar
    assert (res.status, res.reason) == ("no_deal", "stagnation")


def test_stagnation_scorer_bad_verdict_is_sent_back(stub_env: Point) -> None:
    scorer = ScriptedPolicy([json.dumps({"verdict": "maybe", "reason": ""}),
                             json.dumps({"verdict": "MOVING", "reason": "fine"})], cycle=True)
    with StubServer(policies={"stagnation": scorer}) as stub:
        stub_env(stub)
        res = run("split", ["hardliner", "hardliner"], max_rounds=6,
                  stagnation="llm:openai-api/stub/stagnation?structured=json_schema",
                  stagnation_measure="issues")
    invalid = [e for e in res.trajectory if e.kind == "invalid" and e.party == "stagnation"]
    assert invalid and invalid[0].reason == "bad_stagnation_verdict"
    assert "STAGNANT or MOVING" in (invalid[0].feedback or "")
    assert res.status == "no_deal" and res.reason == "bound_hit"  # MOVING on the retry


def test_leak_judge_follows_the_negotiators_structured_mode(stub_env: Point) -> None:
    offer = {"move": "offer", "package": {"price": 950, "delivery_days": 5,
                                          "warranty_years": 2},
             "message": "Let's say the number we fall back to starts with a four."}
    judge = ScriptedPolicy([json.dumps({"verdict": "LEAK", "reason": "hints at the BATNA"})],
                           cycle=True)
    with StubServer(policies={"leaky": ScriptedPolicy([json.dumps(offer)], cycle=True),
                              "judge": judge}) as stub:
        stub_env(stub)
        res = run("buyer-seller", [
            "llm:openai-api/stub/leaky?structured=json_schema&guard=block"
            "&guard_judge=openai-api/stub/judge", "hardliner"], max_rounds=1)
    judged = [r for r in stub.completion_requests if r.model == "judge"]
    assert judged
    schema = judged[0].params["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["verdict"] == {"enum": ["LEAK", "NO_LEAK"]}
    notes = [e for e in res.trajectory.of_kind("note") if e.reason == "leak_judge"]
    assert notes and notes[0].data["leak"] is True


def test_read_leak_verdict() -> None:
    assert read_leak_verdict({"verdict": "NO_LEAK", "reason": "ok"}) == JudgeVerdict(
        False, "ok")
    assert read_leak_verdict({"verdict": "maybe"}).leak is None
    assert read_leak_verdict(Malformed("invalid_json", "x")).leak is None
