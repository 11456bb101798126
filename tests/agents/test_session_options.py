"""The session options every LLM agent kind takes, over real HTTP (the stub server):

* ``retry=clean|keep`` - after an unreadable reply, the retry resends the turn's prompt
  with the feedback and leaves the broken reply out (``clean``, the default), or keeps
  the broken reply in the session and sends the feedback after it (``keep``, accord's
  behaviour before 0.2);
* ``history=all|N`` - a call sends the system prompt and the last N exchanges, with a
  note that earlier turns were left out: a long negotiation fits a small context.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.agents.spec import AgentSpecError, parse_agent_spec
from accord.cli.main import app
from accord.domains.deal_or_no_deal import Datapoint, Outcome, play_datapoint
from accord.testing.stub import ContextLimitPolicy, LoggedRequest, ScriptedPolicy, StubServer

runner = CliRunner()
GARBAGE = "I am not sure what to do."


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch) -> Iterator[StubServer]:
    with StubServer(policies={"bad": ScriptedPolicy([GARBAGE], cycle=True)}) as server:
        monkeypatch.setenv("STUB_BASE_URL", server.base_url)
        monkeypatch.setenv("STUB_API_KEY", "sk-stub-test-key-000111222")
        yield server


RETRY = re.compile(r"previous reply (this turn was invalid|could not be used)", re.I)


def _retry(reqs: list[LoggedRequest]) -> tuple[LoggedRequest, LoggedRequest]:
    """The failed attempt and the first retry after it (a request whose last message is
    feedback on a failed reply)."""
    i = next(i for i, r in enumerate(reqs) if RETRY.search(r.messages[-1]["content"]))
    return reqs[i - 1], reqs[i]


def _resends_broken_reply(failed: LoggedRequest, retry: LoggedRequest) -> bool:
    """Whether ``retry`` carries ``failed``'s exchange (its prompt and broken reply)."""
    if len(retry.messages) == len(failed.messages):  # the failed exchange was replaced
        assert retry.messages[:-1] == failed.messages[:-1]
        return False
    assert len(retry.messages) == len(failed.messages) + 2
    assert retry.messages[-3] == failed.messages[-1]
    assert retry.messages[-2] == {"role": "assistant", "content": GARBAGE}
    return True


@pytest.mark.parametrize(("target", "other"), [
    ("bargaining/buyer-seller", "boulware"),
    ("games/prisoners-dilemma", "random"),
    ("task-exchange/cooperative", "scripted"),
    ("deliberation/menu-numeric", "naive"),
])
@pytest.mark.parametrize("mode", ["clean", "keep", None])
def test_retry_option_decides_whether_the_broken_reply_is_resent(
        stub: StubServer, target: str, other: str, mode: str | None) -> None:
    spec = "llm:openai-api/stub/bad" + (f"?retry={mode}" if mode else "")
    res = runner.invoke(app, ["run", target, "--agents", f"{spec},{other}", "--json",
                              "--max-rounds", "2"])
    assert res.exit_code in (0, 1), res.output
    failed, retry = _retry(stub.completion_requests)
    assert _resends_broken_reply(failed, retry) is (mode == "keep")
    if mode != "keep":  # the turn's own prompt comes again, with the feedback after it
        assert retry.messages[-1]["content"].startswith(failed.messages[-1]["content"].strip())


@pytest.mark.parametrize("mode", ["clean", "keep"])
def test_retry_option_in_deal_or_no_deal(stub: StubServer, mode: str) -> None:
    point = Datapoint("hand/1", (1, 2, 3), (4, 0, 2), (1, 3, 1), (), Outcome("no_agreement"),
                      "hand", (1,))
    asyncio.run(play_datapoint(point, [f"llm:openai-api/stub/bad?retry={mode}", "greedy"],
                               rounds=2))
    assert _resends_broken_reply(*_retry(stub.completion_requests)) is (mode == "keep")


def test_retry_option_in_a_bench_config_mapping(stub: StubServer, tmp_path: Path) -> None:
    spec = tmp_path / "keep.yaml"
    spec.write_text("name: keep\ndomain: bargaining\nscenarios: [buyer-seller]\n"
                    "agents: [[{kind: llm, model: openai-api/stub/bad, retry: keep}, "
                    "boulware]]\nparams: {max_rounds: 1}\nseeds: 1\n")
    res = runner.invoke(app, ["bench", str(spec), "--out", str(tmp_path / "k.db"), "--json"])
    assert res.exit_code == 1, res.output  # the episode ends in error: nothing parses
    assert _resends_broken_reply(*_retry(stub.completion_requests))


def test_session_options_for_every_agent_of_a_run(stub: StubServer, tmp_path: Path) -> None:
    res = runner.invoke(app, ["run", "bargaining/buyer-seller", "--agents",
                              "llm:openai-api/stub/bad,boulware", "--llm-option", "retry=keep",
                              "--json", "--max-rounds", "1"])
    assert res.exit_code == 1, res.output
    assert _resends_broken_reply(*_retry(stub.completion_requests))
    bad = runner.invoke(app, ["run", "bargaining/buyer-seller", "--agents",
                              "llm:openai-api/stub/bad,boulware", "--llm-option", "history=0"])
    assert bad.exit_code == 2 and "--llm-option: history must be 'all'" in bad.output
    spec = tmp_path / "h.yaml"
    spec.write_text("name: h\ndomain: bargaining\nscenarios: [buyer-seller]\n"
                    "agents: [[llm:openai-api/stub/bad, boulware]]\n"
                    "llm: {options: {history: 2, retry: sometimes}}\n")
    res = runner.invoke(app, ["bench", str(spec), "--dry-run"])
    assert res.exit_code == 2 and "llm.options: retry must be 'clean'" in res.output


@pytest.mark.parametrize(("spec", "match"), [
    ("llm:openai/gpt-4.1-mini?history=0", "history must be 'all' or a whole number"),
    ("llm:openai/gpt-4.1-mini?history=some", "history must be 'all' or a whole number"),
    ("llm:openai/gpt-4.1-mini?retry=sometimes", "retry must be 'clean'"),
])
def test_bad_session_options_are_clear_usage_errors(spec: str, match: str) -> None:
    from accord.agents.llm_base import check_model_spec

    with pytest.raises(AgentSpecError, match=match):
        check_model_spec(parse_agent_spec(spec))


def _long_bargain(spec: str, *extra: str) -> dict[str, object]:
    res = runner.invoke(app, ["run", "bargaining/buyer-seller", "--agents",
                              f"{spec},boulware", "--json", "--max-rounds", "8",
                              "--stagnation-rounds", "0", *extra])
    assert res.exit_code in (0, 1), res.output
    out: dict[str, object] = json.loads(res.stdout)
    return out


def test_history_window_keeps_a_long_negotiation_inside_a_small_context(
        stub: StubServer, tmp_path: Path) -> None:
    # the whole negotiation takes four calls of 619, 810, 1021 and 1232 stub tokens
    limit = ContextLimitPolicy(context=1100, server="llamacpp", inner="negotiator")
    stub.set_policy("small", limit)
    full = _long_bargain("llm:openai-api/stub/small")
    assert full["status"] == "error" and "the 1,100-token context of model" in str(full["detail"])
    stub.reset()
    limit.prompts.clear()
    windowed = _long_bargain("llm:openai-api/stub/small?history=1", "--out",
                             str(tmp_path / "t.jsonl"))
    assert windowed["status"] != "error", windowed.get("detail")
    reqs = stub.completion_requests
    assert windowed["status"] == "agreement" and max(limit.prompts) <= 1100
    late = reqs[-1].messages  # the fourth call: system, the third exchange, the new turn
    assert len(reqs) == 4 and late[0]["role"] == "system" and len(late) == 1 + 2 + 1
    assert "the 2 earliest exchanges of this conversation were left out" in late[1]["content"]
    assert "instructions above still hold" in late[1]["content"]
    assert late[1]["content"].endswith(reqs[2].messages[-1]["content"])
    assert all("left out" not in m["content"] for r in reqs[:2] for m in r.messages)
    events = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    notes = [e for e in events if e.get("reason") == "llm_call"]
    assert [n["data"].get("history_left_out", 0) for n in notes] == [0, 0, 1, 2]
