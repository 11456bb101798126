"""Issue 11: an LLM judge or mediator that fails ends ``accord run`` as a clean error record.

End to end over real HTTP: the CLI talks to a :class:`~accord.testing.stub.StubServer`
whose ``always-*`` policies answer every request with HTTP 400, HTTP 500 (retried by the
client, then given up) or tagless prose. ``accord run --json`` must print one JSON record
with ``status: error``, ``who`` naming the role and the provider's message in ``detail``,
exit 1, and print no traceback.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.testing.stub import StubServer

runner = CliRunner()

#: stub policy -> a fragment the record's ``detail`` must hold, per role
FAULTS = {
    "always-bad-request": ("HTTP 400", "stub: bad request"),
    "always-server-error": ("HTTP 500", "stub: internal server error"),
    "always-malformed": (None, None),
}


@pytest.fixture(scope="module")
def stub() -> Iterator[StubServer]:
    """One stub for the module; the policy is picked by the model name."""
    with StubServer("negotiator") as server:
        yield server


@pytest.fixture
def env(stub: StubServer, monkeypatch: pytest.MonkeyPatch) -> StubServer:
    monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
    monkeypatch.setenv("STUB_API_KEY", "sk-stub-clean-failure")
    return stub


def _run_json(args: list[str]) -> tuple[int, dict[str, Any], str]:
    res = runner.invoke(app, ["run", *args, "--json"])
    lines = [ln for ln in res.stdout.splitlines() if ln.strip()]
    assert len(lines) == 1, res.output  # exactly one JSON object on stdout
    return res.exit_code, json.loads(lines[0]), res.output


@pytest.mark.parametrize("policy", list(FAULTS))
def test_failing_llm_judge_is_a_clean_error_record(env: StubServer, policy: str) -> None:
    code, rec, output = _run_json(["bargaining/buyer-seller", "--agents", "boulware,conceder",
                                   "--judge", f"llm:openai-api/stub/{policy}"])
    assert code == 1, output
    assert (rec["status"], rec["reason"], rec["who"]) == ("error", "error", "judge")
    detail = rec["detail"]
    assert detail.startswith("JudgeFailure: LLM judge")
    assert f"openai-api/stub/{policy}" in detail
    status, message = FAULTS[policy]
    if status is None:
        assert "no readable verdict in 6 attempt(s)" in detail
    else:
        assert status in detail and message in detail
    assert "Traceback" not in output
    calls = [r.status for r in env.completion_requests if r.model == policy]
    assert calls, "the judge never reached the stub"


@pytest.mark.parametrize("policy", list(FAULTS))
def test_failing_llm_mediator_is_a_clean_error_record(env: StubServer, policy: str) -> None:
    code, rec, output = _run_json([
        "bargaining/sprint-planning", "--agents", "boulware,boulware,boulware",
        "--mediator", f"llm:openai-api/stub/{policy}",
        "--stagnation-order", "mediator-first"])  # a party would walk first otherwise
    assert code == 1, output
    assert (rec["status"], rec["reason"], rec["who"]) == ("error", "error", "mediator")
    detail = rec["detail"]
    status, message = FAULTS[policy]
    if status is None:  # garbage goes through the engine's retries with feedback
        assert detail.startswith("mediator made 6 invalid attempts in one turn; last: "
                                 "missing_proposal")
    else:
        assert f"LLM mediator call failed (openai-api/stub/{policy})" in detail
        assert status in detail and message in detail
    assert "Traceback" not in output


def test_failing_judge_transcript_names_it(env: StubServer) -> None:
    res = runner.invoke(app, ["run", "bargaining/buyer-seller", "--agents", "boulware,conceder",
                              "--judge", "llm:openai-api/stub/always-bad-request"])
    assert res.exit_code == 1, res.output
    assert "judge failed" in res.stdout and "ERROR" in res.stdout
    assert "Traceback" not in res.output
