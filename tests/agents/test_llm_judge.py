"""The LLM termination judge: verdict parsing, retries with feedback, clean failure."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from accord.agents.llm_negotiator import parse_verdict
from accord.domains.bargaining import resolve_scenario, run_negotiation
from accord.protocols.engine import EpisodeResult
from accord.protocols.judge import JudgeVerdict
from accord.testing.stub import HttpError, ScriptedPolicy, StubServer

GOOD = "<VERDICT>continue</VERDICT><REASON>still moving</REASON>"


@pytest.fixture
def stub_env(monkeypatch: pytest.MonkeyPatch) -> Callable[[StubServer], None]:
    def point(stub: StubServer) -> None:
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("STUB_API_KEY", "sk-judge-test")
    return point


def _run(params: dict[str, Any]) -> EpisodeResult:
    return asyncio.run(run_negotiation(resolve_scenario("split"), ["hardliner", "hardliner"],
                                       params={"stagnation_rounds": 0, **params}))


def test_parse_verdict() -> None:
    assert parse_verdict(GOOD) == JudgeVerdict("continue", "still moving")
    assert parse_verdict("<VERDICT> No_Deal </VERDICT>") == JudgeVerdict("no_deal", "")
    assert parse_verdict("<CONSIDER><VERDICT>agreement</VERDICT></CONSIDER>") is None
    assert parse_verdict("I would continue") is None
    assert parse_verdict("<VERDICT>continue</VERDICT><VERDICT>no_deal</VERDICT>") is None


def test_unreadable_reply_is_retried_with_feedback(stub_env: Callable[[StubServer], None]
                                                   ) -> None:
    judge = ScriptedPolicy(["let them talk a bit more", GOOD], cycle=True)
    with StubServer(policies={"judge": judge}) as stub:
        stub_env(stub)
        res = _run({"judge": "llm:openai-api/stub/judge", "max_rounds": 2})
        reqs = stub.completion_requests
    assert res.status == "no_deal" and res.reason == "bound_hit"
    assert "could not be used" in reqs[1].messages[-1]["content"]
    judged = [e.data["decision"] for e in res.trajectory.of_kind("note") if e.reason == "judge"]
    assert judged and set(judged) == {"continue"}
    assert res.usage["judge"]["calls"] == len(reqs)  # the judge's calls are accounted


def test_garbage_judge_gives_up_after_max_retries(stub_env: Callable[[StubServer], None]
                                                  ) -> None:
    with StubServer(policies={"judge": ScriptedPolicy(["no idea"], cycle=True)}) as stub:
        stub_env(stub)
        res = _run({"judge": "llm:openai-api/stub/judge", "max_retries": 2})
        calls = len(stub.completion_requests)
    assert (res.status, res.who) == ("error", "judge") and calls == 3
    assert res.detail is not None and "no readable verdict in 3 attempt(s)" in res.detail
    assert "'no idea'" in res.detail


def test_judge_http_400_ends_the_episode_at_once(stub_env: Callable[[StubServer], None]
                                                 ) -> None:
    refuse = ScriptedPolicy([HttpError(400, "model 'x' does not exist",
                                       error_type="invalid_request_error")], cycle=True)
    with StubServer(policies={"judge": refuse}) as stub:
        stub_env(stub)
        res = _run({"judge": "llm:openai-api/stub/judge"})
        calls = len(stub.completion_requests)
    assert (res.status, res.reason, res.who, res.rounds) == ("error", "error", "judge", 1)
    assert calls == 1  # a 400 is not retried
    assert res.detail is not None and "HTTP 400: model 'x' does not exist" in res.detail
    assert [e.party for e in res.trajectory.of_kind("agent_error")] == ["judge"]
