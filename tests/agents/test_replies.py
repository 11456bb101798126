"""Negotiator, mediator and judge replies read by structure (issue 12, finding 1).

The two issue examples are reproduced end to end over real HTTP against the stub server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from accord.agents.replies import (
    parse_mediator_reply,
    parse_negotiation_reply,
    parse_verdict,
    private_reasoning,
    strip_private,
)
from accord.core.moves import Accept, Malformed, Message, Offer, Reject, Suggest, Walk
from accord.domains.bargaining import resolve_scenario, run_negotiation
from accord.protocols.engine import EpisodeResult
from accord.protocols.judge import JudgeVerdict
from accord.testing.stub import ScriptedPolicy, StubServer

ISSUES = {"price": [800, 1000, 1200], "warranty": [0, 1]}
P1200 = '<PROPOSAL>{"price": 1200, "warranty": 0}</PROPOSAL>'
P800 = '<PROPOSAL>{"price": 800, "warranty": 1}</PROPOSAL>'
COUNTER = ('<PROPOSAL>{"price": 1200, "delivery_days": 10, "warranty_years": 0}</PROPOSAL>'
           "<MESSAGE>No way I would <ACCEPT/> that</MESSAGE>")
THREAT = ('<PROPOSAL>{"price": 900, "delivery_days": 5, "warranty_years": 2}</PROPOSAL>'
          "<MESSAGE>If this goes on I will <WALK/> soon.</MESSAGE>")


def respond(text: str, **kw: Any) -> Any:
    return parse_negotiation_reply(text, ISSUES, "respond", **kw)


def propose(text: str) -> Any:
    return parse_negotiation_reply(text, ISSUES, "propose")


def test_issue_examples_parse_as_what_the_party_did() -> None:
    move = respond(f"{P1200}<MESSAGE>No way I would <ACCEPT/> that</MESSAGE>")
    assert isinstance(move, Reject) and move.counter == Offer({"price": 1200, "warranty": 0})
    assert move.message == "No way I would <ACCEPT/> that"
    offer = propose(f"{P800}<MESSAGE>If this goes on I will <WALK/> soon.</MESSAGE>")
    assert offer == Offer({"price": 800, "warranty": 1},
                          message="If this goes on I will <WALK/> soon.")


def test_tags_in_private_reasoning_never_make_a_move() -> None:
    assert isinstance(respond("<THINK>I could <ACCEPT/> but no</THINK><REJECT/>"), Reject)
    assert isinstance(respond("<CONSIDER>walk? <WALK/></CONSIDER><ACCEPT/>"), Accept)
    unclosed = respond("<THINK>maybe <ACCEPT/> later")
    assert isinstance(unclosed, Malformed) and unclosed.reason == "unclosed_tag"
    assert "<THINK>" in unclosed.feedback and "maybe" not in unclosed.raw


def test_existing_replies_keep_their_meaning() -> None:
    assert respond("<ACCEPT/>") == Accept()
    assert respond("<accept>") == Accept()
    assert respond("<MESSAGE>fine</MESSAGE><ACCEPT/>") == Accept(message="fine")
    assert respond("<REJECT/>") == Reject()
    assert respond(f"<REJECT/>{P1200}") == Reject(counter=Offer({"price": 1200, "warranty": 0}))
    assert respond(P1200) == Reject(counter=Offer({"price": 1200, "warranty": 0}))
    assert respond("<WALK/><MESSAGE>bye</MESSAGE>") == Walk("bye")
    assert propose("<WALK/>") == Walk("walked away")
    assert propose("<MESSAGE>hello</MESSAGE>") == Message("hello")
    assert propose(f"<REJECT/>{P800}") == Offer({"price": 800, "warranty": 1})
    assert propose(f"Here you go: {P800} thanks") == Offer({"price": 800, "warranty": 1})


def test_accept_restating_the_offer_on_the_table_is_an_accept() -> None:
    table = {"price": 1200, "warranty": 0}
    assert respond(f"<ACCEPT/>{P1200}", current=table) == Accept()
    other = respond(f"<ACCEPT/>{P800}", current=table)
    assert isinstance(other, Malformed) and other.reason == "conflicting_tags"
    assert "<REJECT/>" in other.feedback


@pytest.mark.parametrize("text, phase, reason", [
    ("<ACCEPT/><REJECT/>", "respond", "conflicting_tags"),
    ("<WALK/><ACCEPT/>", "respond", "conflicting_tags"),
    ("<WALK/><REJECT/>", "respond", "conflicting_tags"),
    (f"<WALK/>{P800}", "respond", "conflicting_tags"),
    (f"{P800}<WALK/>", "propose", "conflicting_tags"),
    (f"{P800}{P1200}", "propose", "multiple_proposals"),
    ('<PROPOSAL>{"price": 800', "propose", "unclosed_tag"),
    (f"{P800}<MESSAGE>I will <WALK/> soon", "propose", "unclosed_tag"),
    ("<PROPOSAL>{'price': 800}</PROPOSAL>", "propose", "invalid_json"),
    ("<PROPOSAL>[800]</PROPOSAL>", "respond", "invalid_json"),
    ("no tags", "propose", "missing_proposal"),
    ("<MESSAGE>hm</MESSAGE>", "respond", "missing_verdict"),
])
def test_unreadable_replies_are_malformed_with_feedback(text: str, phase: str,
                                                        reason: str) -> None:
    move = parse_negotiation_reply(f"<THINK>hidden-xyz</THINK>{text}", ISSUES, phase)
    assert isinstance(move, Malformed) and move.reason == reason and move.feedback
    assert "hidden-xyz" not in move.raw and "hidden-xyz" not in move.feedback


def test_private_helpers() -> None:
    text = "<THINK>a</THINK><MESSAGE>b</MESSAGE><CONSIDER>c"
    assert strip_private(text) == "<MESSAGE>b</MESSAGE>"
    assert private_reasoning(text) == "<THINK>a</THINK>\n<CONSIDER>c"


def test_mediator_reply() -> None:
    text = f"<RATIONALE>Meet halfway; {P800} was too low</RATIONALE>{P1200}"
    assert parse_mediator_reply(text) == Suggest(
        {"price": 1200, "warranty": 0}, rationale=f"Meet halfway; {P800} was too low")
    assert parse_mediator_reply(f"<rationale>why</rationale>{P800}") == Suggest(
        {"price": 800, "warranty": 1}, rationale="why")
    only_quoted = parse_mediator_reply(f"<RATIONALE>{P800}</RATIONALE>")
    assert isinstance(only_quoted, Malformed) and only_quoted.reason == "missing_proposal"
    two = parse_mediator_reply(P800 + P1200)
    assert isinstance(two, Malformed) and two.reason == "missing_proposal"
    unclosed = parse_mediator_reply(f"{P800}<RATIONALE>because")
    assert isinstance(unclosed, Malformed) and unclosed.reason == "unclosed_tag"
    private = parse_mediator_reply(f"<THINK>secret {P800}</THINK>[1]")
    assert isinstance(private, Malformed) and "secret" not in private.raw


def test_judge_verdict_inside_reason_does_not_count() -> None:
    assert parse_verdict("<REASON>an <VERDICT>agreement</VERDICT> is premature</REASON>"
                         "<VERDICT>continue</VERDICT>") == JudgeVerdict(
        "continue", "an <VERDICT>agreement</VERDICT> is premature")
    assert parse_verdict("<REASON>say <VERDICT>no_deal</VERDICT></REASON>") is None
    assert parse_verdict("<VERDICT>maybe</VERDICT>") is None
    assert parse_verdict("<VERDICT>continue") is None


# -- end to end over real HTTP (the issue's two reports) ---------------------------------

@pytest.fixture
def stub_env(monkeypatch: pytest.MonkeyPatch) -> Callable[[StubServer], None]:
    def point(stub: StubServer) -> None:
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("STUB_API_KEY", "sk-test")
    return point


def _run(agents: list[str], rounds: int) -> EpisodeResult:
    return asyncio.run(run_negotiation(resolve_scenario("buyer-seller"), agents,
                                       params={"max_rounds": rounds}))


def _moves(res: EpisodeResult, party: str) -> list[dict[str, Any]]:
    return [e.move for e in res.trajectory.of_kind("move") if e.party == party and e.move]


def test_counter_offer_quoting_accept_does_not_close_the_deal(
        stub_env: Callable[[StubServer], None]) -> None:
    with StubServer(policies={"seller": ScriptedPolicy([COUNTER], cycle=True)}) as stub:
        stub_env(stub)
        res = _run(["boulware", "llm:openai-api/stub/seller"], rounds=3)
        assert stub.completion_requests
    seller = _moves(res, "seller")
    assert seller and all(m["kind"] == "reject" for m in seller)
    assert seller[0]["counter"]["package"]["price"] == 1200
    assert res.status != "agreement" and res.trajectory.of_kind("invalid") == []
    assert not res.flags["accepted_below_batna"].get("seller")


def test_message_mentioning_walk_beside_a_proposal_does_not_walk(
        stub_env: Callable[[StubServer], None]) -> None:
    with StubServer(policies={"buyer": ScriptedPolicy([THREAT], cycle=True)}) as stub:
        stub_env(stub)
        res = _run(["llm:openai-api/stub/buyer", "hardliner"], rounds=2)
    buyer = _moves(res, "buyer")
    assert buyer and {m["kind"] for m in buyer} <= {"offer", "reject"}
    assert buyer[0]["package"]["price"] == 900
    assert res.reason != "walk" and "walk" not in {m["kind"] for m in buyer}
    assert res.status == "no_deal" and res.reason == "bound_hit"
