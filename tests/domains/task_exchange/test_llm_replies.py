"""Reply parser: tags, CONSIDER stripping, text-level invalid patterns."""

from __future__ import annotations

import json

from accord.core.moves import Accept, Malformed, Message, Offer, Reject
from accord.domains.task_exchange.llm.replies import format_proposal, parse_reply, strip_consider

ROLES = ("Alice", "Bob")
BODY = json.dumps({"Alice": ["task a"], "Bob": ["task b"]})


def test_strip_consider_removes_closed_and_unclosed_blocks() -> None:
    assert strip_consider("<CONSIDER>secret</CONSIDER>hello") == "hello"
    assert strip_consider("a <consider>x\ny</consider> b") == "a  b"
    # an unclosed block hides everything to the end (issue 24: it is opaque, and an error)
    text = "<CONSIDER>secret plan <PROPOSAL>{}</PROPOSAL>"
    assert strip_consider(text) == ""
    assert strip_consider("<CONSIDER>only secrets") == ""


def test_a_move_inside_an_unclosed_private_block_never_counts() -> None:
    # issue 24: this reply ended an episode as agreed
    for phase in ("propose", "respond", "consider"):
        move = parse_reply("<CONSIDER><ACCEPT> ok </ACCEPT>", ROLES, phase)  # type: ignore[arg-type]
        assert isinstance(move, Malformed) and move.reason == "unclosed_tag", phase
        assert "</CONSIDER>" in move.feedback and "ok" not in move.raw


def test_consider_turn_yields_message_without_private_text() -> None:
    move = parse_reply("<CONSIDER>I value flights at 0.05</CONSIDER>", ROLES, "consider")
    assert move == Message("")


def test_offer_and_counter_and_accept() -> None:
    move = parse_reply(f"<CONSIDER>keep secret</CONSIDER><PROPOSAL>{BODY}</PROPOSAL>", ROLES,
                       "propose")
    assert isinstance(move, Offer)
    assert dict(move.package) == {"Alice": "task a", "Bob": "task b"}
    assert move.message is not None and "secret" not in move.message
    rej = parse_reply(f"<REJECT>no</REJECT>\n<PROPOSAL>\n```json\n{BODY}\n```\n</PROPOSAL>",
                      ROLES)
    assert isinstance(rej, Reject) and rej.counter is not None
    assert dict(rej.counter.package) == {"Alice": "task a", "Bob": "task b"}
    acc = parse_reply("<CONSIDER>hmm</CONSIDER><ACCEPT> I agree. </ACCEPT>", ROLES)
    assert isinstance(acc, Accept) and acc.message == "<ACCEPT> I agree. </ACCEPT>"
    bare_reject = parse_reply("<REJECT>no thanks</REJECT>", ROLES)
    assert isinstance(bare_reject, Reject) and bare_reject.counter is None


def test_role_names_case_insensitive_and_single_string_values() -> None:
    move = parse_reply('<PROPOSAL>{"alice": "task a", "BOB": ["task b"]}</PROPOSAL>', ROLES)
    assert isinstance(move, Offer) and dict(move.package) == {"Alice": "task a", "Bob": "task b"}


def test_empty_agent_is_left_out_of_the_package() -> None:
    move = parse_reply('<PROPOSAL>{"Alice": ["all of it"], "Bob": []}</PROPOSAL>', ROLES)
    assert isinstance(move, Offer) and dict(move.package) == {"Alice": "all of it"}


def test_missing_open_tag() -> None:
    for text in (f"<REJECT>no</REJECT>\n{BODY}", BODY, f"{BODY}</PROPOSAL>"):
        move = parse_reply(text, ROLES)
        assert isinstance(move, Malformed)
        assert move.reason == "missing_proposal_open_tag"
        assert "not enclosed in <PROPOSAL>...</PROPOSAL>" in move.feedback
    move = parse_reply("Sounds good to me, let me think.", ROLES)
    assert isinstance(move, Malformed) and move.reason == "missing_proposal_open_tag"
    assert "no <PROPOSAL>...</PROPOSAL> block was found" in move.feedback


def test_missing_close_tag() -> None:
    move = parse_reply(f"<REJECT>no</REJECT><PROPOSAL>{BODY}", ROLES)
    assert isinstance(move, Malformed) and move.reason == "missing_proposal_close_tag"
    assert "close your proposal with </PROPOSAL>" in move.feedback


def test_multiple_descriptions_keep_the_proposal() -> None:
    move = parse_reply('<PROPOSAL>{"Alice": ["x", "y"], "Bob": ["z"]}</PROPOSAL>', ROLES)
    assert isinstance(move, Malformed) and move.reason == "multiple_descriptions"
    assert move.details["proposal"] == {"Alice": ["x", "y"], "Bob": ["z"]}
    assert "Alice is assigned 2 descriptions" in move.feedback


def test_malformed_json_and_unknown_agent_and_ambiguous() -> None:
    move = parse_reply('<PROPOSAL>{"Alice": ["x"], "Bob": </PROPOSAL>', ROLES)
    assert isinstance(move, Malformed) and move.reason == "malformed_proposal"
    assert "not valid JSON" in move.feedback
    move = parse_reply('<PROPOSAL>{"Carol": ["x"]}</PROPOSAL>', ROLES)
    assert isinstance(move, Malformed) and "unknown agent 'Carol'" in move.feedback
    move = parse_reply("<ACCEPT>ok</ACCEPT><REJECT>no</REJECT>", ROLES)
    assert isinstance(move, Malformed) and move.reason == "ambiguous_response"


def test_malformed_raw_never_holds_consider_content() -> None:
    move = parse_reply(f"<CONSIDER>TOP SECRET</CONSIDER><PROPOSAL>{BODY}", ROLES)
    assert isinstance(move, Malformed) and "TOP SECRET" not in move.raw
    assert "TOP SECRET" not in json.dumps(move.to_dict())


def test_format_proposal_round_trips() -> None:
    text = format_proposal({"Alice": "task a", "Bob": "task b"}, ROLES)
    move = parse_reply(text, ROLES, "propose")
    assert isinstance(move, Offer) and dict(move.package) == {"Alice": "task a", "Bob": "task b"}


def test_tags_inside_accept_or_reject_text_are_text_issue_12() -> None:
    # before issue 12 both were ambiguous_response: the quoted tag counted as a move
    rej = parse_reply(f"<REJECT> I would never <ACCEPT> this split </REJECT><PROPOSAL>{BODY}"
                      "</PROPOSAL>", ROLES)
    assert isinstance(rej, Reject) and rej.counter is not None
    acc = parse_reply("<ACCEPT> fine, though I almost sent <REJECT> </ACCEPT>", ROLES)
    assert isinstance(acc, Accept)
    # a counter proposal may stand inside the REJECT text
    nested = parse_reply(f"<REJECT> no, rather <PROPOSAL>{BODY}</PROPOSAL> </REJECT>", ROLES)
    assert isinstance(nested, Reject) and nested.counter is not None
    assert dict(nested.counter.package) == {"Alice": "task a", "Bob": "task b"}
    # JSON quoted in the REJECT text is no bare proposal
    quoted = parse_reply(f"<REJECT> not {BODY} again </REJECT>", ROLES)
    assert isinstance(quoted, Reject) and quoted.counter is None
    # tags inside private reasoning or a MESSAGE are text too
    assert isinstance(parse_reply(f"<CONSIDER>or <ACCEPT>?</CONSIDER><PROPOSAL>{BODY}"
                                  "</PROPOSAL>", ROLES, "propose"), Offer)
    msg = parse_reply(f"<MESSAGE>I won't <ACCEPT> yet</MESSAGE><PROPOSAL>{BODY}</PROPOSAL>",
                      ROLES, "propose")
    assert isinstance(msg, Offer)


def test_accept_with_a_proposal_is_ambiguous_and_unclosed_text_is_refused() -> None:
    move = parse_reply(f"<ACCEPT> ok </ACCEPT><PROPOSAL>{BODY}</PROPOSAL>", ROLES)
    assert isinstance(move, Malformed) and move.reason == "ambiguous_response"
    assert "do not send a <PROPOSAL> with it" in move.feedback
    two = parse_reply(f"<PROPOSAL>{BODY}</PROPOSAL><PROPOSAL>{BODY}</PROPOSAL>", ROLES)
    assert isinstance(two, Malformed) and two.reason == "malformed_proposal"
    unclosed = parse_reply(f"<PROPOSAL>{BODY}</PROPOSAL><MESSAGE>see", ROLES)
    assert isinstance(unclosed, Malformed) and unclosed.reason == "unclosed_tag"
    assert "</MESSAGE>" in unclosed.feedback


def test_think_is_private_too() -> None:
    move = parse_reply(f"<THINK>TOP SECRET</THINK><PROPOSAL>{BODY}</PROPOSAL>", ROLES,
                       "propose")
    assert isinstance(move, Offer) and "TOP SECRET" not in (move.message or "")
    assert strip_consider("a <think>x</think> b") == "a  b"
