"""The leak guard in negotiations over real HTTP against the stub server (no network)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from accord.agents.guards.judge import parse_leak_verdict
from accord.agents.registry import build_negotiator
from accord.agents.spec import AgentSpecError, parse_agent_spec
from accord.domains.bargaining import resolve_scenario, run_negotiation
from accord.protocols.engine import EpisodeResult
from accord.testing.stub import ScriptedPolicy, StubServer

PROPOSAL = '<PROPOSAL>{"price": 950, "delivery_days": 5, "warranty_years": 2}</PROPOSAL>'
# buyer-seller's buyer has BATNA 0.4: each message states it in another notation
PARAPHRASES = [
    "Between us, we'd walk away below forty percent.",
    "Our fallback is worth .4, frankly.",
    "Anything under 4e-1 and we're gone.",
    "Honestly our walk-away sits near zero point four.",
    "BATNA=0,40 if you need it spelled out.",
]
WITHHELD_MARKERS = ("forty percent", "worth .4", "4e-1", "zero point four", "0,40", "frankly",
                    "spelled out")


@pytest.fixture
def stub_env(monkeypatch: pytest.MonkeyPatch) -> Callable[[StubServer], None]:
    def point(stub: StubServer) -> None:
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("STUB_API_KEY", "sk-leak-test")
    return point


def run(agents: list[str], **params: Any) -> EpisodeResult:
    return asyncio.run(run_negotiation(resolve_scenario("buyer-seller"), agents,
                                       params={"max_rounds": 6, **params}))


def seen_by(stub: StubServer, model: str) -> str:
    return "\n".join(str(m["content"]) for r in stub.completion_requests if r.model == model
                     for m in r.messages)


def buyer_texts(res: EpisodeResult) -> list[str | None]:
    out = []
    for e in res.trajectory.of_kind("move"):
        if e.party == "buyer":
            move = e.move
            out.append(move.get("message") or move.get("text") or move.get("reason"))
    return out


def test_guard_block_keeps_every_paraphrased_batna_from_the_counterpart(
        stub_env: Callable[[StubServer], None]) -> None:
    replies = [f"<MESSAGE>{p}</MESSAGE>{PROPOSAL}" for p in PARAPHRASES]
    with StubServer(policies={"leaky": ScriptedPolicy(replies, cycle=True),
                              "seller": "negotiator"}) as stub:
        stub_env(stub)
        res = run(["llm:openai-api/stub/leaky?guard=block", "llm:openai-api/stub/seller"])
        seller_saw = seen_by(stub, "seller")
    assert res.status != "error"
    assert seller_saw, "the seller was never asked"
    for marker in WITHHELD_MARKERS:
        assert marker not in seller_saw
    assert all(t is None for t in buyer_texts(res))  # nothing of it on the public record
    notes = [e for e in res.trajectory.of_kind("note") if e.reason == "utility_leak"]
    assert notes and all(n.data["blocked"] for n in notes)
    assert all("batna_value" in n.data["kinds"] for n in notes)
    assert all(n.data["why"] for n in notes)


def test_guard_flag_lets_text_through_but_flags_it(stub_env: Callable[[StubServer], None]
                                                   ) -> None:
    replies = [f"<MESSAGE>{PARAPHRASES[0]}</MESSAGE>{PROPOSAL}"]
    with StubServer(policies={"leaky": ScriptedPolicy(replies, cycle=True),
                              "seller": "negotiator"}) as stub:
        stub_env(stub)
        res = run(["llm:openai-api/stub/leaky", "llm:openai-api/stub/seller"], max_rounds=2)
        seller_saw = seen_by(stub, "seller")
    assert "forty percent" in seller_saw
    assert res.flags["utility_leak"]["buyer"] >= 1


def test_public_talk_is_neither_flagged_nor_judged_by_default(
        stub_env: Callable[[StubServer], None]) -> None:
    replies = ["<MESSAGE>We can do 950 with a 2-year warranty, round 1 of 6.</MESSAGE>"
               + PROPOSAL]
    with StubServer(policies={"plain": ScriptedPolicy(replies, cycle=True)}) as stub:
        stub_env(stub)
        res = run(["llm:openai-api/stub/plain?guard=block", "hardliner"], max_rounds=2)
        models = {r.model for r in stub.completion_requests}
    assert models == {"plain"}  # no judge unless asked for
    assert "utility_leak" not in res.flags
    assert buyer_texts(res)[0] == "We can do 950 with a 2-year warranty, round 1 of 6."


def test_llm_judge_catches_what_the_rules_pass(stub_env: Callable[[StubServer], None]) -> None:
    hint = "Let's just say the number we fall back to starts with a four."
    replies = [f"<MESSAGE>{hint}</MESSAGE>{PROPOSAL}"]
    judge = ScriptedPolicy(["<VERDICT>LEAK</VERDICT><REASON>hints at the BATNA</REASON>"],
                           cycle=True)
    with StubServer(policies={"leaky": ScriptedPolicy(replies, cycle=True), "judge": judge,
                              "seller": "negotiator"}) as stub:
        stub_env(stub)
        res = run(["llm:openai-api/stub/leaky?guard=block&guard_judge=openai-api/stub/judge",
                   "llm:openai-api/stub/seller"], max_rounds=2)
        judge_reqs = [r for r in stub.completion_requests if r.model == "judge"]
        seller_saw = seen_by(stub, "seller")
    assert "starts with a four" not in seller_saw
    assert judge_reqs
    system = judge_reqs[0].messages[0]["content"]
    assert "BATNA (walk-away value): 0.4" in system and "the weight of price (0.6)" in system
    assert hint in judge_reqs[0].messages[-1]["content"]
    assert len(judge_reqs[0].messages) == 2  # each check is a fresh conversation
    notes = [e for e in res.trajectory.of_kind("note") if e.reason == "leak_judge"]
    assert notes and notes[0].data["leak"] is True
    leak_notes = [e for e in res.trajectory.of_kind("note") if e.reason == "utility_leak"]
    assert leak_notes[0].data["kinds"] == ["judge"] and leak_notes[0].data["blocked"]
    assert res.usage["buyer"]["calls"] == len(stub.completion_requests) - len(
        [r for r in stub.completion_requests if r.model == "seller"])  # judge calls count


def test_judge_is_not_asked_when_the_rules_already_flag(
        stub_env: Callable[[StubServer], None]) -> None:
    replies = [f"<MESSAGE>{PARAPHRASES[1]}</MESSAGE>{PROPOSAL}"]
    with StubServer(policies={"leaky": ScriptedPolicy(replies, cycle=True),
                              "judge": ScriptedPolicy(["<VERDICT>NO_LEAK</VERDICT>"])}) as stub:
        stub_env(stub)
        run(["llm:openai-api/stub/leaky?guard_judge=openai-api/stub/judge", "hardliner"],
            max_rounds=1)
        assert not [r for r in stub.completion_requests if r.model == "judge"]


@pytest.mark.parametrize("judge_policy, error", [
    ("always-bad-request", "Error"),
    (ScriptedPolicy(["I think it is fine"], cycle=True), "no single <VERDICT>"),
])
def test_a_failing_judge_falls_back_to_the_rules(stub_env: Callable[[StubServer], None],
                                                 judge_policy: Any, error: str) -> None:
    replies = ["<MESSAGE>We like the warranty.</MESSAGE>" + PROPOSAL]
    with StubServer(policies={"plain": ScriptedPolicy(replies, cycle=True),
                              "judge": judge_policy}) as stub:
        stub_env(stub)
        res = run(["llm:openai-api/stub/plain?guard=block&guard_judge=openai-api/stub/judge",
                   "hardliner"], max_rounds=1)
    assert res.status != "error"
    notes = [e for e in res.trajectory.of_kind("note") if e.reason == "leak_judge"]
    assert notes and notes[0].data["leak"] is None and error in notes[0].data["error"]
    assert buyer_texts(res)[0] == "We like the warranty."


def test_parse_leak_verdict() -> None:
    v = parse_leak_verdict("<VERDICT>LEAK</VERDICT><REASON>states 0.41</REASON>")
    assert v.leak is True and v.reason == "states 0.41"
    assert parse_leak_verdict("<VERDICT> no_leak </VERDICT>").leak is False
    assert parse_leak_verdict("<VERDICT>NO LEAK</VERDICT>").leak is False
    assert parse_leak_verdict("<THINK><VERDICT>LEAK</VERDICT></THINK>").leak is None
    assert parse_leak_verdict("<VERDICT>LEAK</VERDICT><VERDICT>NO_LEAK</VERDICT>").leak is None
    assert parse_leak_verdict("looks fine").error


def test_bad_guard_options_are_usage_errors(stub_env: Callable[[StubServer], None]) -> None:
    with pytest.raises(AgentSpecError, match="guard must be"):
        build_negotiator(parse_agent_spec("llm:mock/negotiator?guard=maybe"))
    with pytest.raises(AgentSpecError, match="guard_judge"):
        build_negotiator(parse_agent_spec("llm:mock/negotiator?guard_judge=nowhere/x"))


def _bench() -> Any:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_leak.py"
    spec = importlib.util.spec_from_file_location("bench_leak", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_benchmark_prints_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert _bench().main(["--json", "--repeat", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["messages"] >= 200 and out["overall"]["recall"] >= 0.95
    assert {r["class"] for r in out["splits"]} == {"dev", "holdout", "fresh"}
    assert out["timing"]["us_per_message"] > 0
    assert _bench().main(["--repeat", "1", "--errors"]) == 0
    text = capsys.readouterr().out
    assert "overall   P" in text and "time per message" in text


def test_benchmark_scores_rules_plus_judge(stub_env: Callable[[StubServer], None],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    import json

    judge = ScriptedPolicy(["<VERDICT>LEAK</VERDICT><REASON>says so</REASON>"], cycle=True)
    with StubServer(policies={"judge": judge}) as stub:
        stub_env(stub)
        assert _bench().main(["--json", "--repeat", "1", "--judge",
                              "openai-api/stub/judge"]) == 0
        asked = len(stub.completion_requests)
    out = json.loads(capsys.readouterr().out)
    # a judge that always says LEAK catches every leak and flags every clean message
    assert out["overall"]["recall"] == 1.0 and out["overall"]["fp"] == out["overall"]["n"] - \
        out["leaking"]
    assert asked == out["messages"] - 172  # only what the rules passed
