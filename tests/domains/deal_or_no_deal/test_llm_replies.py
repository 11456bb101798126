"""Pure parts of the Deal-or-No-Deal LLM agents: reply parsing, leak flags, the stub policy."""

from __future__ import annotations

import json
from typing import Any

import pytest

from accord.core.moves import Accept, Malformed, Message, Offer, Reject, Walk
from accord.domains.deal_or_no_deal import (
    DondObservation,
    DondProtocol,
    parse_reply,
    proposal_rows,
    render_belief,
    state_block,
    value_leaks,
)
from accord.domains.deal_or_no_deal.workflow import BayesianWorkflowAgent
from accord.testing.stub import Policy, PolicyError, PolicyRequest, Reply, make_policy
from accord.testing.stub.dond import parse_state, raw_proposal

DEAL = "<deal>book=1 hat=0 ball=2</deal>"


def test_proposal_accept_reject_walk_message() -> None:
    move = parse_reply(f"<CONSIDER>secret plan</CONSIDER><MESSAGE>hi</MESSAGE>{DEAL}")
    assert move == Offer({"book": 1, "hat": 0, "ball": 2}, message="hi")
    assert parse_reply("<ACCEPT/>") == Accept()
    assert parse_reply("<accept>") == Accept()
    assert parse_reply("<MESSAGE>no</MESSAGE><REJECT/>") == Reject(message="no")
    counter = parse_reply(f"<REJECT/> <MESSAGE>how about</MESSAGE> {DEAL}")
    assert isinstance(counter, Reject) and counter.counter is not None
    assert counter.counter.package == {"book": 1, "hat": 0, "ball": 2}
    assert counter.counter.message == "how about"
    assert parse_reply("<WALK/><MESSAGE>bye</MESSAGE>") == Walk(reason="bye")
    assert parse_reply("<MESSAGE>books matter to me</MESSAGE>") == Message("books matter to me")
    # lenient about spacing, plurals and case inside the tag
    assert parse_reply("<DEAL>Books=1, hats=0; balls = 2</DEAL>") == \
        Offer({"book": 1, "hat": 0, "ball": 2})


def test_tags_inside_the_message_do_not_make_a_move() -> None:
    move = parse_reply(f"<MESSAGE>Please just <ACCEPT/> this.</MESSAGE>{DEAL}")
    assert isinstance(move, Offer) and move.message == "Please just <ACCEPT/> this."
    # issue 12: a <deal> quoted in the message is text too, even when it is the only one
    inside = parse_reply(f"<MESSAGE>How about {DEAL}?</MESSAGE>")
    assert inside == Message(f"How about {DEAL}?")
    assert parse_reply("<MESSAGE>I will never <WALK/></MESSAGE>") == \
        Message("I will never <WALK/>")


def test_reject_with_a_deal_and_nothing_on_the_table_is_a_proposal() -> None:
    assert parse_reply(f"<REJECT/>{DEAL}", responding=False) == \
        Offer({"book": 1, "hat": 0, "ball": 2})
    assert isinstance(parse_reply(f"<REJECT/>{DEAL}", responding=True), Reject)
    assert parse_reply("<REJECT/>", responding=False) == Reject()  # the protocol refuses it


def test_accept_restating_the_offer_is_an_accept_otherwise_a_conflict() -> None:
    mine = {"book": 1, "hat": 0, "ball": 2}
    assert parse_reply(f"<ACCEPT/> {DEAL}", offer_for_you=mine) == Accept()
    move = parse_reply(f"<ACCEPT/> {DEAL}", offer_for_you={"book": 0, "hat": 2, "ball": 1})
    assert isinstance(move, Malformed) and move.reason == "conflicting_tags"


@pytest.mark.parametrize("text, reason", [
    ("I think we are close to a deal.", "missing_move"),
    ("<deal>book=1 hat=0 ball=2", "unclosed_tag"),
    ("<MESSAGE>hello", "unclosed_tag"),
    (f"{DEAL} {DEAL}", "multiple_deals"),
    ("<deal>book=x hat=0 ball=2</deal>", "bad_deal"),
    ("<deal>book=1 hat=0</deal>", "bad_deal"),
    ("<deal>book=1 hat=0 ball=2 car=1</deal>", "bad_deal"),
    ("<ACCEPT/><REJECT/>", "conflicting_tags"),
    (f"<WALK/>{DEAL}", "conflicting_tags"),
    ("<CONSIDER>only private thoughts <deal>book=1 hat=0 ball=2</deal></CONSIDER>",
     "missing_move"),
])
def test_unreadable_replies_are_malformed_without_private_text(text: str, reason: str) -> None:
    move = parse_reply(f"<CONSIDER>hidden-xyz</CONSIDER>{text}")
    assert isinstance(move, Malformed) and move.reason == reason and move.feedback
    assert "hidden-xyz" not in move.raw and "hidden-xyz" not in move.feedback


def test_protocol_turns_malformed_into_invalid_with_its_feedback() -> None:
    p = DondProtocol((1, 2, 3), {"alice": (4, 0, 2), "bob": (1, 3, 1)})
    move = parse_reply("no tags here")
    assert isinstance(move, Malformed)
    invalid = p.validate(p.initial_state(), "alice", move)
    assert invalid is not None and invalid.reason == "missing_move"
    assert invalid.feedback == move.feedback
    # counts are the protocol's business, not the parser's
    over = parse_reply("<deal>book=5 hat=0 ball=2</deal>")
    assert isinstance(over, Offer)
    bad = p.validate(p.initial_state(), "alice", over)
    assert bad is not None and bad.reason == "count_out_of_range"


def test_value_leaks() -> None:
    values = (4, 0, 2)
    assert value_leaks("Books are worth 4 to me, honestly.", values) == \
        ["Books are worth 4 to me, honestly"]
    assert value_leaks("Each ball gives me 2 points", values)
    assert value_leaks("My values are quite spread out", values)
    assert value_leaks("I take 2 balls and 1 book; you get the hats.", values) == []
    assert value_leaks("book=1 hat=0 ball=2 please", values) == []
    assert value_leaks("Books are worth 7 to me", values) == []  # not the true value


def _obs() -> DondObservation:
    p = DondProtocol((1, 2, 3), {"alice": (4, 0, 2), "bob": (1, 3, 1)}, rounds=4)
    return p.observe(p.initial_state(), "alice")


def test_state_block_has_own_values_only() -> None:
    obs = _obs()
    block = state_block(obs)
    assert block["my_values"] == {"book": 4, "hat": 0, "ball": 2}
    assert block["move"] == "propose" and block["offer_to_me"] is None
    assert "1, 3, 1" not in json.dumps(block) and "workflow" not in block


def test_proposal_rows_match_the_rendered_belief() -> None:
    obs = _obs()
    agent = BayesianWorkflowAgent()
    state = agent._init(obs)
    rows = proposal_rows(state)
    text = render_belief(state)
    assert rows and len(rows) == 5
    for row in rows:
        share = " ".join(f"{i}={row['share'][i]}" for i in ("book", "hat", "ball"))
        assert f"- {share}: {row['points']} points, P_EF = {row['p_ef']}" in text


def _request(block: dict[str, Any]) -> PolicyRequest:
    return PolicyRequest(({"role": "system", "content": "x"},
                          {"role": "user", "content": f"turn\n<DOND>{json.dumps(block)}</DOND>"}),
                         model="dond")


def answer(policy: Policy, block: dict[str, Any]) -> str:
    """The policy's reply text for a request carrying ``block``."""
    out = policy.respond(_request(block))
    assert isinstance(out, Reply)
    return out.text


def _block(**kw: Any) -> dict[str, Any]:
    base = {"role": "alice", "items": ["book", "hat", "ball"],
            "counts": {"book": 1, "hat": 2, "ball": 3}, "my_values": {"book": 4, "hat": 0,
                                                                      "ball": 2},
            "round": 1, "max_rounds": 5, "last_turn": False, "move": "propose",
            "offer_to_me": None, "my_offer": None, "allowed": ["offer", "message", "walk"]}
    return {**base, **kw}


def test_stub_policy_raw_strategy_concedes_and_accepts() -> None:
    policy = make_policy("dond")
    first = answer(policy, _block())
    assert first.endswith("<deal>book=1 hat=0 ball=3</deal>")  # all it values, no hats
    move = parse_reply(first)
    assert isinstance(move, Offer) and move.package == {"book": 1, "hat": 0, "ball": 3}
    last = answer(policy, _block(round=5))  # aim 5: the cheapest share worth >= 5
    state = parse_state(f"<DOND>{json.dumps(_block(round=5))}</DOND>")
    assert raw_proposal(state, 5) == (1, 0, 1) and "book=1 hat=0 ball=1" in last
    offer = {"book": 0, "hat": 2, "ball": 3}  # worth 6
    early = answer(policy, _block(move="respond", offer_to_me=offer))
    assert "<REJECT/>" in early and "<deal>" in early
    assert "<ACCEPT/>" in answer(policy, _block(round=5, move="respond", offer_to_me=offer))
    crumbs = {"book": 0, "hat": 2, "ball": 0}  # worth 0: refused even on the last turn
    assert "<ACCEPT/>" not in answer(policy, _block(round=5, last_turn=True, move="respond",
                                                    offer_to_me=crumbs))


def test_stub_policy_workflow_strategy_follows_problem_1() -> None:
    policy = make_policy("dond")
    rows = [{"share": {"book": 1, "hat": 0, "ball": 2}, "points": 8, "p_ef": "1/13"},
            {"share": {"book": 1, "hat": 1, "ball": 2}, "points": 8, "p_ef": "5/13"},
            {"share": {"book": 0, "hat": 0, "ball": 3}, "points": 6, "p_ef": "9/13"}]
    wf = {"proposals": rows, "rejected": []}
    assert answer(policy, _block(workflow=wf)).endswith(
        "<deal>book=1 hat=1 ball=2</deal>")  # most points, then the higher P_EF
    envious = {"book": 0, "hat": 2, "ball": 2}  # 4 of 10: not envy-free for alice
    assert "<REJECT/>" in answer(policy, _block(workflow=wf, move="respond",
                                                offer_to_me=envious, last_turn=True))
    fair = {"book": 1, "hat": 0, "ball": 1}  # 6 of 10: envy-free for alice
    assert "<REJECT/>" in answer(policy, _block(workflow=wf, move="respond",
                                                offer_to_me=fair))  # 6 < 8
    assert "<ACCEPT/>" in answer(policy, _block(workflow=wf, move="respond", offer_to_me=fair,
                                                last_turn=True))


def test_stub_policy_errors_are_clear() -> None:
    policy = make_policy("dond")
    with pytest.raises(PolicyError, match="exactly one <DOND>"):
        policy.respond(PolicyRequest(({"role": "user", "content": "hi"},), model="dond"))
    with pytest.raises(PolicyError, match="'my_values' must map every item"):
        policy.respond(_request(_block(my_values={"book": 1})))
    with pytest.raises(PolicyError, match="floor"):
        make_policy("dond", floor=2)


def test_tags_in_private_reasoning_or_unclosed_message_make_no_move_issue_12() -> None:
    assert parse_reply("<THINK>maybe <ACCEPT/></THINK><REJECT/>") == Reject()
    swallowed = parse_reply(f"<MESSAGE>fine, I will <WALK/> {DEAL}")
    assert isinstance(swallowed, Malformed) and swallowed.reason == "unclosed_tag"
    assert parse_reply(f"<REJECT/><MESSAGE>I will never <ACCEPT/> that</MESSAGE>{DEAL}") == \
        Reject(counter=Offer({"book": 1, "hat": 0, "ball": 2},
                             message="I will never <ACCEPT/> that"))
