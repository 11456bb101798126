"""The shared tag tokenizer (accord.agents.tags): elements, opacity, nesting and errors."""

from __future__ import annotations

import pytest

from accord.agents.tags import (
    FREE_TEXT,
    PRIVATE_ONLY,
    Grammar,
    parse_tags,
    strip_private,
)

BARGAIN = Grammar.of(data=["PROPOSAL"], markers=["ACCEPT", "REJECT", "WALK"], once=["PROPOSAL"],
                     exclusive=[["WALK", "ACCEPT", "REJECT"], ["WALK", "PROPOSAL"]])
LOOSE = Grammar.of(data=["PROPOSAL"], loose=["ACCEPT", "REJECT"], nest={"REJECT": ["PROPOSAL"]},
                   private=["CONSIDER"], private_until_next=True,
                   exclusive=[["ACCEPT", "REJECT"]])


def names(text: str, grammar: Grammar = BARGAIN) -> list[str]:
    return [t.name for t in parse_tags(text, grammar).tags]


def test_top_level_elements_in_order_with_bodies_and_spans() -> None:
    text = 'hi <PROPOSAL>{"a": 1}</PROPOSAL> and <MESSAGE> ok </MESSAGE><REJECT/> bye'
    parsed = parse_tags(text, BARGAIN)
    assert [t.name for t in parsed.tags] == ["PROPOSAL", "MESSAGE", "REJECT"]
    prop, msg, rej = parsed.tags
    assert prop.body == '{"a": 1}' and text[prop.start:prop.end] == '<PROPOSAL>{"a": 1}</PROPOSAL>'
    assert msg.body == " ok " and msg.text == "ok"
    assert rej.body is None and rej.text == "" and rej.closed
    assert parsed.outside == "hi  and  bye"
    assert parsed.errors == () and parsed.public == text


def test_free_text_bodies_are_opaque() -> None:
    parsed = parse_tags('<PROPOSAL>{"price": 1200}</PROPOSAL>'
                        "<MESSAGE>No way I would <ACCEPT/> that</MESSAGE>", BARGAIN)
    assert [t.name for t in parsed.tags] == ["PROPOSAL", "MESSAGE"]
    assert not parsed.has("ACCEPT") and parsed.tags[1].text == "No way I would <ACCEPT/> that"
    # every default free-text block is opaque; a data body is opaque too
    for block in sorted(FREE_TEXT):
        assert names(f"<{block}>I will <WALK/> soon</{block}>") == [block]
    assert names("<PROPOSAL>{\"note\": \"<WALK/>\"}</PROPOSAL>") == ["PROPOSAL"]


def test_markers_self_closing_bare_and_tolerated_closer() -> None:
    assert names("<ACCEPT/>") == names("<ACCEPT>") == names("<accept />") == ["ACCEPT"]
    parsed = parse_tags("<ACCEPT>I agree</ACCEPT>", BARGAIN)
    assert [t.name for t in parsed.tags] == ["ACCEPT"] and parsed.strays == ()
    assert parsed.outside == "I agree"


def test_case_whitespace_and_attributes() -> None:
    parsed = parse_tags('< proposal  format="json" >{}</ PROPOSAL >< Walk / >', BARGAIN)
    assert [t.name for t in parsed.tags] == ["PROPOSAL", "WALK"]
    assert parsed.tags[0].attrs == 'format="json"' and parsed.tags[0].body == "{}"
    assert names("<Message>x</MESSAGE>") == ["MESSAGE"]


def test_unknown_tags_are_text() -> None:
    parsed = parse_tags("<b>bold</b> <deal>book=1</deal> <ACCEPT/>", BARGAIN)
    assert [t.name for t in parsed.tags] == ["ACCEPT"]
    assert parsed.outside == "<b>bold</b> <deal>book=1</deal>"


def test_unclosed_block_runs_to_the_end_and_is_an_error() -> None:
    parsed = parse_tags("<MESSAGE>I will <WALK/> soon", BARGAIN)
    assert [t.name for t in parsed.tags] == ["MESSAGE"] and not parsed.has("WALK")
    assert not parsed.tags[0].closed and parsed.unclosed() == ["MESSAGE"]
    err = parsed.error()
    assert err is not None and err.code == "unclosed" and err.tags == ("MESSAGE",)
    assert "<MESSAGE>" in err.feedback and "</MESSAGE>" in err.feedback
    prop = parse_tags('<PROPOSAL>{"a": 1}', BARGAIN)
    assert prop.tags[0].body == '{"a": 1}' and prop.error("unclosed") is not None


def test_stray_closing_tags_are_listed() -> None:
    parsed = parse_tags('{"a": 1}</PROPOSAL> </MESSAGE> </WALK>', BARGAIN)
    assert parsed.tags == () and parsed.strays == ("PROPOSAL", "MESSAGE")


def test_duplicates_and_conflicts_are_errors_with_feedback() -> None:
    dup = parse_tags("<PROPOSAL>{}</PROPOSAL><PROPOSAL>{}</PROPOSAL>", BARGAIN)
    err = dup.error()
    assert err is not None and err.code == "duplicate" and "2" in err.feedback
    clash = parse_tags("<REJECT/> <ACCEPT/>", BARGAIN)
    err = clash.error("conflict")
    assert err is not None and err.tags == ("REJECT", "ACCEPT")
    assert "<REJECT> and <ACCEPT>" in err.feedback
    walk = parse_tags("<WALK/><PROPOSAL>{}</PROPOSAL>", BARGAIN)
    assert walk.error("conflict") is not None
    # the same tags inside free text are no conflict at all
    assert parse_tags("<REJECT/><MESSAGE>never <ACCEPT/></MESSAGE>", BARGAIN).errors == ()
    # an unclosed tag comes first: it is the most basic fault
    both = parse_tags("<ACCEPT/><REJECT/><MESSAGE>x", BARGAIN)
    assert [e.code for e in both.errors] == ["unclosed", "conflict"]


def test_private_blocks_are_removed_everywhere() -> None:
    text = ("<THINK>I could <ACCEPT/></THINK><MESSAGE>hi <CONSIDER>secret</CONSIDER>"
            "there</MESSAGE><REJECT/>")
    parsed = parse_tags(text, BARGAIN)
    assert [t.name for t in parsed.tags] == ["MESSAGE", "REJECT"]
    assert parsed.tags[0].body == "hi there"
    assert "secret" not in parsed.public and "could" not in parsed.public
    assert parsed.private == ("<THINK>I could <ACCEPT/></THINK>",
                              "<CONSIDER>secret</CONSIDER>")
    assert parsed.private_bodies() == ["I could <ACCEPT/>", "secret"]


def test_unclosed_private_block_hides_the_rest() -> None:
    parsed = parse_tags("<THINK>maybe <WALK/> later <PROPOSAL>{}</PROPOSAL>", BARGAIN)
    assert parsed.tags == () and parsed.public == ""
    # ... and is an error (issue 24): it could hide a move the model meant to make
    assert [(e.code, e.tags) for e in parsed.errors] == [("unclosed", ("THINK",))]
    # inside a body it hides the rest of that body only
    inner = parse_tags("<MESSAGE>ok <THINK>hmm</MESSAGE><REJECT/>", BARGAIN)
    assert [t.name for t in inner.tags] == ["MESSAGE", "REJECT"]
    assert inner.tags[0].body == "ok " and inner.errors == ()
    # with private_until_next it ends at the next tag of the grammar
    loose = parse_tags("<CONSIDER>plan <PROPOSAL>{}</PROPOSAL>", LOOSE)
    assert [t.name for t in loose.tags] == ["PROPOSAL"]
    assert loose.public == "<PROPOSAL>{}</PROPOSAL>"
    assert loose.private_bodies() == ["plan"]
    assert loose.error("unclosed") is not None and loose.error("unclosed").tags == ("CONSIDER",)


def test_stray_private_closer_is_dropped() -> None:
    assert strip_private("hello</THINK> world") == "hello world"


def test_strip_private_matches_the_old_contract() -> None:
    assert strip_private("<CONSIDER>x</CONSIDER> <MESSAGE>hi</MESSAGE>") == "<MESSAGE>hi</MESSAGE>"
    assert strip_private("<MESSAGE>a<THINK>b</THINK></MESSAGE>") == "<MESSAGE>a</MESSAGE>"
    assert strip_private("keep <think>drop all of this") == "keep"
    assert parse_tags("<think>x</think>", PRIVATE_ONLY).private_bodies() == ["x"]


def test_loose_blocks_end_at_their_closer_or_the_next_tag() -> None:
    closed = parse_tags("<REJECT> I will not <ACCEPT> this </REJECT>", LOOSE)
    assert [t.name for t in closed.tags] == ["REJECT"] and closed.errors == ()
    assert closed.tags[0].text == "I will not <ACCEPT> this"
    open_ = parse_tags("<REJECT> no <PROPOSAL>{}</PROPOSAL>", LOOSE)
    assert [t.name for t in open_.tags] == ["REJECT", "PROPOSAL"]
    assert open_.tags[0].text == "no" and not open_.tags[0].closed and open_.errors == ()
    clash = parse_tags("<REJECT> no <ACCEPT> yes", LOOSE)
    assert [e.code for e in clash.errors] == ["conflict"]


def test_nesting_only_where_the_grammar_allows_it() -> None:
    nested = parse_tags("<REJECT> no <PROPOSAL>{}</PROPOSAL> thanks </REJECT>", LOOSE)
    assert [t.name for t in nested.tags] == ["REJECT"]
    assert [t.name for t in nested.tags[0].children] == ["PROPOSAL"]
    assert nested.has("PROPOSAL") and [t.name for t in nested.walk()] == ["REJECT", "PROPOSAL"]
    # the closer of the parent inside a nested body does not end the parent early
    deep = parse_tags("<REJECT> a <PROPOSAL>{\"x\": \"</REJECT>\"}</PROPOSAL> b</REJECT>", LOOSE)
    assert deep.tags[0].children[0].body == '{"x": "</REJECT>"}' and deep.errors == ()
    assert deep.tags[0].end == len("<REJECT> a <PROPOSAL>{\"x\": \"</REJECT>\"}</PROPOSAL> b"
                                   "</REJECT>")
    # ACCEPT does not nest: a PROPOSAL in it is text
    flat = parse_tags("<ACCEPT> yes <PROPOSAL>{}</PROPOSAL></ACCEPT>", LOOSE)
    assert [t.name for t in flat.walk()] == ["ACCEPT"]


def test_a_block_ends_at_the_first_closer_of_its_name() -> None:
    parsed = parse_tags("<MESSAGE>a <MESSAGE>b</MESSAGE> c</MESSAGE>", BARGAIN)
    assert parsed.tags[0].body == "a <MESSAGE>b" and parsed.strays == ("MESSAGE",)


def test_empty_self_closing_block() -> None:
    parsed = parse_tags("<MESSAGE/><REJECT/>", BARGAIN)
    assert [(t.name, t.body) for t in parsed.tags] == [("MESSAGE", ""), ("REJECT", None)]


def test_grammar_refuses_a_name_of_two_kinds() -> None:
    with pytest.raises(ValueError, match="two kinds"):
        Grammar.of(data=["MESSAGE"])
    assert Grammar.of(text=(), data=["message"]).kind("MESSAGE") == "data"


def test_reply_cap_is_a_too_long_error_and_configurable(monkeypatch) -> None:
    from accord.agents import tags

    long = "<WALK/>" + "x" * tags.MAX_REPLY_CHARS
    parsed = parse_tags(long, BARGAIN)
    assert parsed.tags == () and parsed.public == ""
    assert [e.code for e in parsed.errors] == ["too_long"]
    assert f"the limit is {tags.MAX_REPLY_CHARS:,}" in parsed.errors[0].feedback
    assert parse_tags(long, BARGAIN, max_chars=None).has("WALK")
    monkeypatch.setattr(tags, "MAX_REPLY_CHARS", 5)
    assert parse_tags("<WALK/>", BARGAIN).error("too_long") is not None


@pytest.mark.parametrize("value, expected", [("50", 50), ("lots", 100_000)])
def test_reply_cap_from_the_environment(value: str, expected: int) -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "ACCORD_MAX_REPLY_CHARS": value}
    out = subprocess.run([sys.executable, "-c", "from accord.agents import tags; "
                          "print(tags.MAX_REPLY_CHARS)"], env=env, capture_output=True,
                         text=True, check=True)
    assert int(out.stdout) == expected
    assert ("ACCORD_MAX_REPLY_CHARS must be" in out.stderr) is (value == "lots")
