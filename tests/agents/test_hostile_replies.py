"""Replies that used to end an episode are malformed replies with feedback (issue 24, item 8).

End to end over real HTTP against the stub server: a PROPOSAL nested 20,000 deep (was a
``RecursionError``), a 5,000-digit integer (Python's digit limit), a reply over the length
cap, and a lone surrogate (after which the session's next request could not be encoded).
Each becomes an ``invalid`` event whose feedback reaches the model, which then answers
properly; the episode never ends in ``error``.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from accord.agents import tags
from accord.agents.jsonsafe import MAX_JSON_DEPTH, loads_bounded
from accord.domains.bargaining import resolve_scenario, run_negotiation
from accord.testing.stub import ScriptedPolicy, StubServer

GOOD = '<PROPOSAL>{"alice_share": 6}</PROPOSAL>'
DEEP = '<PROPOSAL>{"alice_share": ' + "[" * 20_000 + "]" * 20_000 + "}</PROPOSAL>"
DIGITS = '<PROPOSAL>{"alice_share": ' + "9" * 5_000 + "}</PROPOSAL>"
LONG = "<MESSAGE>" + "x" * (tags.MAX_REPLY_CHARS + 1) + "</MESSAGE>" + GOOD


@pytest.fixture
def stub_env(monkeypatch: pytest.MonkeyPatch):
    def point(stub: StubServer) -> None:
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("STUB_API_KEY", "sk-hostile-test")
    return point


def _play(stub_env, first: str):
    policy = ScriptedPolicy([first] + [GOOD] * 60)
    with StubServer(policies={"h": policy}) as stub:
        stub_env(stub)
        res = asyncio.run(run_negotiation(resolve_scenario("split"),
                                          ["llm:openai-api/stub/h", "linear"],
                                          params={"max_rounds": 4}))
        reqs = stub.completion_requests
    return res, reqs


@pytest.mark.parametrize("reply, reason, says", [
    (DEEP, "invalid_json", f"deeper than {MAX_JSON_DEPTH} levels"),
    (DIGITS, "invalid_json", "longer than 100 characters"),
    (LONG, "reply_too_long", "the limit is 100,000"),
])
def test_hostile_reply_is_a_retry_not_an_ending(stub_env, reply: str, reason: str,
                                               says: str) -> None:
    res, reqs = _play(stub_env, reply)
    assert res.status != "error", res.detail
    invalid = res.trajectory.of_kind("invalid")
    assert [e.reason for e in invalid] == [reason]
    assert says in invalid[0].feedback
    assert invalid[0].feedback in reqs[1].messages[-1]["content"]  # the model was told


def test_lone_surrogate_is_replaced_before_the_next_request(stub_env) -> None:
    res, reqs = _play(stub_env, GOOD[:-11] + "</PROPOSAL><MESSAGE>hi \ud800 there</MESSAGE>")
    assert res.status != "error", res.detail
    assert len(reqs) > 1  # the session went on
    sent = json.dumps([m["content"] for m in reqs[1].messages], ensure_ascii=False)
    assert "hi \ufffd there" in sent and "\ud800" not in sent
    sent.encode("utf-8")  # what could not be encoded before


@pytest.mark.parametrize("text", ["[" * 50_000, "9" * 5_000, '{"a": ' + "1" * 101 + "}",
                                  "x" * 60_000])
def test_loads_bounded_refuses_with_a_json_error(text: str) -> None:
    with pytest.raises(json.JSONDecodeError):
        loads_bounded(text)


def test_loads_bounded_reads_ordinary_json() -> None:
    assert loads_bounded('{"a": [1, 2.5e3, "x\\"]"], "b": {"c": null}}') == {
        "a": [1, 2500.0, 'x"]'], "b": {"c": None}}
    deep = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert loads_bounded(deep) is not None


def test_long_replies_are_parsed_and_guarded_off_the_event_loop(stub_env, monkeypatch) -> None:
    import threading

    from accord.agents import llm_negotiator
    from accord.agents.llm_base import OFF_LOOP_CHARS

    threads: dict[str, set[int]] = {"parse": set(), "guard": set()}  # for long texts
    parse, scan = llm_negotiator.LLMNegotiator.parse, llm_negotiator.find_leaks

    def parse_where(self, text, obs):  # type: ignore[no-untyped-def]
        if len(text) >= OFF_LOOP_CHARS:
            threads["parse"].add(threading.get_ident())
        return parse(self, text, obs)

    def scan_where(*args, **kwargs):  # type: ignore[no-untyped-def]
        if len(args[0]) >= OFF_LOOP_CHARS:
            threads["guard"].add(threading.get_ident())
        return scan(*args, **kwargs)

    monkeypatch.setattr(llm_negotiator.LLMNegotiator, "parse", parse_where)
    monkeypatch.setattr(llm_negotiator, "find_leaks", scan_where)
    words = "let us settle this quickly and fairly " * (OFF_LOOP_CHARS // 30)
    res, _ = _play(stub_env, f"<MESSAGE>{words}</MESSAGE>{GOOD}")
    assert res.status != "error", res.detail
    loop = threading.get_ident()  # asyncio.run runs the loop on this thread
    assert threads["parse"] and loop not in threads["parse"]
    assert threads["guard"] and loop not in threads["guard"]
