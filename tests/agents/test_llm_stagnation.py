"""The seed's Stagnation Scorer as an LLM: contract STAGNANT / MOVING, over real HTTP to
the stub server and through the in-process mock provider; malformed replies."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

from accord.agents.llm_stagnation import parse_stagnation_reply
from accord.core import Assess, Malformed
from accord.domains.bargaining import resolve_scenario, run_negotiation
from accord.domains.bargaining.runner import ParamError
from accord.protocols.engine import EpisodeResult
from accord.testing.stub import ScriptedPolicy, StubServer


@pytest.fixture
def stub_env(monkeypatch: pytest.MonkeyPatch) -> Callable[[StubServer], None]:
    def point(stub: StubServer) -> None:
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("STUB_API_KEY", "sk-stagnation-test")
    return point


def _run(scorer: str, agents: tuple[str, str] = ("hardliner", "hardliner"),
         **params: Any) -> EpisodeResult:
    return asyncio.run(run_negotiation(resolve_scenario("split"), list(agents), params={
        "stagnation": scorer, "max_rounds": 10, **params}))


@pytest.mark.parametrize("text, stagnant", [
    ("<VERDICT>STAGNANT</VERDICT>", True), ("<verdict> moving </verdict>", False),
    ("Nobody conceded in three rounds.\n<VERDICT>STAGNANT</VERDICT>", True),
    ("<CONSIDER>is it <VERDICT>MOVING</VERDICT>?</CONSIDER><VERDICT>STAGNANT</VERDICT>", True),
    ("<REASON>They are clearly not STAGNANT, offers improve</REASON><VERDICT>MOVING</VERDICT>",
     False),
    ("<VERDICT>STAGNANT</VERDICT><REASON>nobody is MOVING</REASON>", True),
])
def test_contract(text: str, stagnant: bool) -> None:
    move = parse_stagnation_reply(text)
    assert isinstance(move, Assess) and move.stagnant is stagnant


@pytest.mark.parametrize("text, why", [
    ("", "no <VERDICT>"), ("no idea", "no <VERDICT>"),
    # issue 24: words in free text never count, negated or not
    ("<REASON>They are clearly not STAGNANT, offers improve</REASON>", "no <VERDICT>"),
    ("STAGNANT", "no <VERDICT>"), ("The offers are stagnant.", "no <VERDICT>"),
    ("<THINK><VERDICT>STAGNANT</VERDICT></THINK>", "no <VERDICT>"),
    ("<VERDICT>STAGNANT</VERDICT><VERDICT>MOVING</VERDICT>", "at most one <VERDICT>"),
    ("<VERDICT>probably stagnant</VERDICT>", "not STAGNANT or MOVING"),
    ("<VERDICT>STAGNANT", "not closed"),
    ("<THINK>hmm <VERDICT>STAGNANT</VERDICT>", "not closed"),
])
def test_malformed_contract(text: str, why: str) -> None:
    move = parse_stagnation_reply(text)
    assert isinstance(move, Malformed) and move.reason == "bad_stagnation_verdict"
    assert why in move.feedback and "<VERDICT>STAGNANT</VERDICT> or" in move.feedback


def test_over_http_the_stub_scores_from_the_prompt_text(stub_env) -> None:
    with StubServer() as stub:
        stub_env(stub)
        res = _run("llm:openai-api/stub/stagnation", stagnation_measure="issues")
        reqs = [r for r in stub.completion_requests if r.model == "stagnation"]
    assert (res.status, res.reason, res.who) == ("no_deal", "stagnation", "alice")
    assert "stagnation scorer judged the last 3 rounds STAGNANT" in (res.detail or "")
    assert len(reqs) == 1
    system, user = reqs[0].messages[0]["content"], reqs[0].messages[-1]["content"]
    assert "whether the last 3 rounds show meaningful concession" in system
    assert "<VERDICT>STAGNANT</VERDICT> or <VERDICT>MOVING</VERDICT>" in system
    assert "- round 5, alice: {\"alice_share\": 10}" in user
    body = json.dumps(reqs[0].messages)  # offers only: no utility, no BATNA, no JSON state
    assert "0.2" not in body and "batna" not in body.lower() and "<STATE>" not in body
    notes = [e for e in res.trajectory.of_kind("note") if e.reason == "stagnation_scorer"]
    assert notes[0].data["verdict"] == "STAGNANT"
    assert res.usage["stagnation"]["calls"] == 1


def test_mock_provider_gives_the_same_verdicts(stub_env) -> None:
    with StubServer() as stub:
        stub_env(stub)
        http = _run("llm:openai-api/stub/stagnation", ("boulware", "conceder"))
    mock = _run("llm:mock/stagnation", ("boulware", "conceder"))
    pick = lambda r: [e.data["verdict"] for e in r.trajectory.of_kind("note")  # noqa: E731
                      if e.reason == "stagnation_scorer"]
    assert pick(http) == pick(mock) and pick(mock)
    assert set(pick(mock)) == {"MOVING"}  # concession agents keep moving
    assert (http.status, http.record) == (mock.status, mock.record)


def test_malformed_then_good_is_retried_with_feedback(stub_env) -> None:
    policy = ScriptedPolicy(["hmm, hard to tell", "<VERDICT>STAGNANT</VERDICT>"], cycle=True)
    with StubServer(policies={"scorer": policy}) as stub:
        stub_env(stub)
        res = _run("llm:openai-api/stub/scorer")
        reqs = stub.completion_requests
    assert res.reason == "stagnation"
    assert "could not be used" in reqs[1].messages[-1]["content"]
    invalid = [e for e in res.trajectory.of_kind("invalid") if e.party == "stagnation"]
    assert invalid and invalid[0].reason == "bad_stagnation_verdict"


def test_a_negated_verdict_word_is_no_verdict_end_to_end(stub_env) -> None:
    # issue 24: this reply was read as STAGNANT and ended a negotiation
    negated = "<REASON>They are clearly not STAGNANT, offers improve</REASON>"
    policy = ScriptedPolicy([negated, "<VERDICT>MOVING</VERDICT>"], cycle=True)
    with StubServer(policies={"scorer": policy}) as stub:
        stub_env(stub)
        res = _run("llm:openai-api/stub/scorer")
        reqs = stub.completion_requests
    assert res.reason != "stagnation"
    assert "no <VERDICT> tag" in reqs[1].messages[-1]["content"]
    invalid = [e for e in res.trajectory.of_kind("invalid") if e.party == "stagnation"]
    assert invalid and all(e.reason == "bad_stagnation_verdict" for e in invalid)
    verdicts = [e.data["verdict"] for e in res.trajectory.of_kind("note")
                if e.reason == "stagnation_scorer"]
    assert verdicts and set(verdicts) == {"MOVING"}


def test_persistent_garbage_ends_in_an_error_naming_the_scorer(stub_env) -> None:
    with StubServer(policies={"scorer": ScriptedPolicy(["no idea"], cycle=True)}) as stub:
        stub_env(stub)
        res = _run("llm:openai-api/stub/scorer", max_retries=2)
        calls = len(stub.completion_requests)
    assert (res.status, res.who, calls) == ("error", "stagnation", 3)
    assert "bad_stagnation_verdict" in (res.detail or "")


@pytest.mark.parametrize("params, match", [
    ({"stagnation": "gpt"}, "'code' or 'llm:MODEL'"),
    ({"stagnation_measure": "euclid"}, "utility, issues"),
    ({"stagnation_order": "judge-first"}, "walk-first, mediator-first"),
])
def test_bad_params_are_refused(params: dict[str, Any], match: str) -> None:
    with pytest.raises(ParamError, match=match):
        asyncio.run(run_negotiation(resolve_scenario("split"), ["hardliner", "hardliner"],
                                    params=params))
