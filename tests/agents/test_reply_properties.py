"""Property tests of every domain's reply parser against the shared tag grammar (issue 12).

For each parser, hypothesis builds valid replies whose free-text blocks (MESSAGE, REASON,
RATIONALE, STRATEGY, the text of a task-exchange ACCEPT/REJECT, private THINK/CONSIDER)
hold arbitrary move tags of every domain, and checks that the parsed move equals the parse
of the same reply with those tags replaced by a plain word. A second property puts two
contradictory move tags at top level and checks the reply is refused with feedback.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.agents.replies import parse_mediator_reply, parse_negotiation_reply, parse_verdict
from accord.core.moves import Malformed, Move
from accord.domains.deal_or_no_deal.llm.replies import parse_reply as dond_reply
from accord.domains.deliberation.llm import (
    parse_estimate,
    parse_message,
    parse_plan,
)
from accord.domains.deliberation.llm import (
    parse_verdict as delib_verdict,
)
from accord.domains.games import load_catalog_game
from accord.domains.games.llm.replies import StepError, parse_action, parse_talk
from accord.domains.games.llm.workflow import parse_nash
from accord.domains.task_exchange.llm.replies import parse_reply as te_reply

SETTINGS = settings(max_examples=40, deadline=None)

#: move and data tags of every domain, in the spellings models use, closed and not
EMBEDS = (
    "<ACCEPT/>", "<ACCEPT>", "<accept />", "< REJECT/>", "<REJECT>", "<WALK/>", "<walk>",
    "</ACCEPT>", "</REJECT>", "</WALK>",
    '<PROPOSAL>{"price": 800, "warranty": 1}</PROPOSAL>', "<PROPOSAL>", "</PROPOSAL>",
    '<PROPOSAL>{"Alice": ["task a"], "Bob": ["task b"]}</PROPOSAL>',
    '<PROPOSAL>{"menu_proposal": ["x"]}</PROPOSAL>', "<deal>book=0 hat=0 ball=0</deal>",
    "<DEAL>book=3 hat=2 ball=1</DEAL>", "<deal>", "<ACTION>cooperate</ACTION>",
    "<ACTION>defect", "<VERDICT>agreement</VERDICT>", "<VERDICT>no_deal</VERDICT>",
    "<NASH>none</NASH>", '<NASH>{"Alice": "cooperate"}</NASH>', "<RESULT>{}</RESULT>",
    "<PLAN>{}</PLAN>", '<DECISION>{"accept_decision": true}</DECISION>',
    '<TOOL>{"name": "solver"}</TOOL>', "<ESTIMATE>{}</ESTIMATE>", "<MESSAGE>",
    "<MESSAGE>inner</MESSAGE>", "<REASON>", "<RATIONALE>r</RATIONALE>",
    "<STRATEGY>s</STRATEGY>", "<THINK>t</THINK>", "<THINK>", "<CONSIDER>c</CONSIDER>",
)
WORDS = st.sampled_from(["", " ", "I ", "would ", "never ", "say\n", "that, ", "42 ", "won't ",
                         "soon. ", "Deal? ", "{", "} ", "ACCEPT ", "WALK "])
OUTSIDE = st.sampled_from(["", " ", "\n", "Here: ", "thanks. ", "ok\n"])

Seg = tuple[str, Any]  # ("lit", text) or ("free", [(is_tag, text), ...])


@functools.cache
def free(block: str, nested: tuple[str, ...] = ()) -> st.SearchStrategy[Seg]:
    """Free text for the body of ``block``: words and embedded tags (never its own closer,
    nor the tags the grammar lets nest in it, which are structure)."""
    closer = f"</{block.lower()}"
    tags = [t for t in EMBEDS if closer not in t.lower()
            and not any(t.lower().startswith(f"<{n.lower()}") for n in nested)]
    piece = st.one_of(WORDS.map(lambda w: (False, w)), st.sampled_from(tags).map(
        lambda t: (True, t)))
    return st.lists(piece, max_size=6).map(lambda ps: ("free", [(False, "ok "), *ps]))


@functools.cache
def spell(name: str) -> st.SearchStrategy[tuple[str, str]]:
    """An opening and closing tag for ``name`` in one of the spellings models use."""
    return st.sampled_from([(f"<{name}>", f"</{name}>"), (f"<{name.lower()}>",
                                                          f"</{name.lower()}>"),
                            (f"< {name} >", f"</ {name} >")])


@functools.cache
def block(name: str, nested: tuple[str, ...] = ()) -> st.SearchStrategy[list[Seg]]:
    """``<name>`` free text ``</name>``."""
    return st.tuples(spell(name), free(name, nested)).map(
        lambda x: [("lit", x[0][0]), x[1], ("lit", x[0][1])])


def lit(text: str) -> list[Seg]:
    return [("lit", text)]


def pair(tags: tuple[str, str]) -> list[list[Seg]]:
    """Two literal elements."""
    return [lit(tags[0]), lit(tags[1])]


def render(segs: Sequence[Seg], tags: bool) -> str:
    out = []
    for kind, val in segs:
        if kind == "lit":
            out.append(val)
        else:
            out.append("".join(t if (tags or not is_tag) else " word " for is_tag, t in val))
    return "".join(out)


Core = Sequence[list[Seg]] | st.SearchStrategy[Sequence[list[Seg]]]


@st.composite
def reply(draw: st.DrawFn, core: Core, *, texts: Sequence[str] = ("MESSAGE",),
          private: Sequence[str] = ("THINK", "CONSIDER"), shuffle: bool = True) -> list[Seg]:
    """``core`` elements (or a strategy of them) plus optional free-text and private blocks,
    in some order, with plain words between them."""
    drawn = draw(core) if isinstance(core, st.SearchStrategy) else core
    parts = [list(c) for c in drawn]
    for name in texts:
        if draw(st.booleans()):
            parts.append(draw(block(name)))
    for name in private:
        if draw(st.booleans()):
            parts.append(draw(block(name)))
    if shuffle:
        parts = draw(st.permutations(parts))
    segs: list[Seg] = []
    for part in parts:
        segs += [("lit", draw(OUTSIDE)), *part]
    return segs


def shape(value: Any) -> Any:
    """What a parse means, without the free text that rides along with it."""
    if isinstance(value, Malformed):
        return ("malformed", value.reason)
    if isinstance(value, Move):
        data = value.to_dict()
        counter = data.get("counter")
        data = {k: v for k, v in data.items() if k not in ("message", "reason", "text",
                                                             "rationale", "counter")}
        data["counter"] = shape_dict(counter)
        return data
    if isinstance(value, str):
        return "text"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: v for k, v in dataclasses.asdict(value).items() if k != "reason"}
    return value


def shape_dict(data: dict[str, Any] | None) -> Any:
    return None if data is None else {k: v for k, v in data.items() if k != "message"}


def same_parse(parse: Callable[[str], Any], segs: list[Seg]) -> None:
    with_tags, plain = render(segs, True), render(segs, False)
    assert shape(parse(with_tags)) == shape(parse(plain)), (with_tags, plain)


# -- bargaining negotiator, mediator, judge ------------------------------------------

ISSUES = {"price": [800, 1000, 1200], "warranty": [0, 1]}
P1 = '<PROPOSAL>{"price": 1200, "warranty": 0}</PROPOSAL>'
P2 = '<PROPOSAL>{"price": 800, "warranty": 1}</PROPOSAL>'
BARGAIN_CORES = [[], [lit("<ACCEPT/>")], [lit("<REJECT/>")], [lit("<REJECT/>"), lit(P1)],
                 [lit(P1)], [lit("<WALK/>")], [lit("<accept>")]]


@SETTINGS
@given(reply(st.sampled_from(BARGAIN_CORES)), st.sampled_from(["propose", "respond"]))
def test_negotiator_free_text_never_moves(segs: list[Seg], phase: str) -> None:
    same_parse(lambda t: parse_negotiation_reply(t, ISSUES, phase), segs)


@SETTINGS
@given(reply(st.sampled_from([("<ACCEPT/>", "<REJECT/>"), ("<WALK/>", "<ACCEPT/>"),
                              ("<WALK/>", "<REJECT/>"), ("<WALK/>", P1), (P1, P2),
                              ("<ACCEPT/>", P2)]).map(pair)))
def test_negotiator_contradictory_tags_are_malformed(segs: list[Seg]) -> None:
    move = parse_negotiation_reply(render(segs, True), ISSUES, "respond",
                                   current={"price": 1200, "warranty": 0})
    assert isinstance(move, Malformed) and move.feedback
    assert move.reason in ("conflicting_tags", "multiple_proposals")


@SETTINGS
@given(reply([lit(P1)], texts=("RATIONALE", "MESSAGE")))
def test_mediator_free_text_never_moves(segs: list[Seg]) -> None:
    same_parse(parse_mediator_reply, segs)


@SETTINGS
@given(reply([lit(P1), lit(P2)], texts=("RATIONALE",)))
def test_mediator_two_proposals_are_malformed(segs: list[Seg]) -> None:
    move = parse_mediator_reply(render(segs, True))
    assert isinstance(move, Malformed) and move.feedback


@SETTINGS
@given(reply(st.sampled_from(["continue", "agreement", "no_deal"]).map(
    lambda d: [lit(f"<VERDICT>{d}</VERDICT>")]), texts=("REASON",)))
def test_judge_free_text_never_decides(segs: list[Seg]) -> None:
    same_parse(parse_verdict, segs)
    assert parse_verdict(render(segs, True)) is not None


@SETTINGS
@given(reply([lit("<VERDICT>continue</VERDICT>"), lit("<VERDICT>agreement</VERDICT>")],
             texts=("REASON",)))
def test_judge_two_verdicts_are_unreadable(segs: list[Seg]) -> None:
    assert parse_verdict(render(segs, True)) is None  # the judge retries with feedback


# -- Deal or No Deal -----------------------------------------------------------------

D1, D2 = "<deal>book=1 hat=0 ball=2</deal>", "<deal>book=0 hat=2 ball=1</deal>"
DOND_CORES = [[], [lit(D1)], [lit("<ACCEPT/>")], [lit("<REJECT/>")],
              [lit("<REJECT/>"), lit(D1)], [lit("<WALK/>")]]


@SETTINGS
@given(reply(st.sampled_from(DOND_CORES)), st.sampled_from([None, True, False]))
def test_dond_free_text_never_moves(segs: list[Seg], responding: bool | None) -> None:
    same_parse(lambda t: dond_reply(t, responding=responding), segs)


@SETTINGS
@given(reply(st.sampled_from([("<ACCEPT/>", "<REJECT/>"), ("<WALK/>", "<ACCEPT/>"),
                              ("<WALK/>", D1), (D1, D2), ("<ACCEPT/>", D2)]).map(pair)))
def test_dond_contradictory_tags_are_malformed(segs: list[Seg]) -> None:
    move = dond_reply(render(segs, True), offer_for_you={"book": 1, "hat": 0, "ball": 2})
    assert isinstance(move, Malformed) and move.feedback
    assert move.reason in ("conflicting_tags", "multiple_deals")


# -- games -----------------------------------------------------------------------------

LEGAL = ("cooperate", "defect")


@SETTINGS
@given(reply([], texts=("MESSAGE", "MESSAGE")))
def test_games_talk_free_text_never_moves(segs: list[Seg]) -> None:
    same_parse(parse_talk, segs)


@SETTINGS
@given(reply(st.sampled_from(LEGAL).map(lambda a: [lit(f"<ACTION>{a}</ACTION>")]),
             texts=("MESSAGE", "STRATEGY")))
def test_games_action_free_text_never_moves(segs: list[Seg]) -> None:
    same_parse(lambda t: parse_action(t, LEGAL), segs)


@SETTINGS
@given(reply([lit("<ACTION>cooperate</ACTION>"), lit("<ACTION>defect</ACTION>")]))
def test_games_two_actions_are_malformed(segs: list[Seg]) -> None:
    move = parse_action(render(segs, True), LEGAL)
    assert isinstance(move, Malformed) and move.reason == "multiple_actions" and move.feedback


NASH = '<NASH>{"Alice": "defect", "Bob": "defect"}</NASH>'


PD = load_catalog_game("prisoners-dilemma")


def _nash(text: str) -> Any:
    try:
        return parse_nash(text, PD)[0]  # type: ignore[arg-type]
    except StepError as err:
        return ("step_error", err.reason)


@SETTINGS
@given(reply(st.tuples(st.sampled_from([NASH, "<NASH>none</NASH>"]), block("STRATEGY")).map(
    lambda x: [lit(x[0]), x[1]]), texts=("MESSAGE",)))
def test_games_workflow_free_text_never_moves(segs: list[Seg]) -> None:
    same_parse(_nash, segs)


@SETTINGS
@given(reply(block("STRATEGY").map(lambda s: [lit(NASH), lit("<NASH>none</NASH>"), s])))
def test_games_workflow_two_results_are_refused(segs: list[Seg]) -> None:
    assert _nash(render(segs, True)) == ("step_error", "multiple_nash")


# -- task exchange -----------------------------------------------------------------------

ROLES = ("Alice", "Bob")
TP1 = '<PROPOSAL>{"Alice": ["task a"], "Bob": ["task b"]}</PROPOSAL>'
TP2 = '<PROPOSAL>{"Alice": ["task b"], "Bob": ["task a"]}</PROPOSAL>'


@st.composite
def te_core(draw: st.DrawFn) -> list[list[Seg]]:
    kind = draw(st.sampled_from(["accept", "reject", "counter", "proposal", "nested"]))
    if kind == "proposal":
        return [lit(TP1)]
    verdict = draw(block("ACCEPT") if kind == "accept" else block("REJECT", ("PROPOSAL",)))
    if kind == "counter":
        return [verdict, lit(TP1)]
    if kind == "nested":  # a counter proposal inside the REJECT
        return [[*verdict[:-1], ("lit", TP1), verdict[-1]]]
    return [verdict]


@SETTINGS
@given(reply(te_core(), texts=(), private=("CONSIDER",), shuffle=False),
       st.sampled_from(["propose", "respond"]))
def test_task_exchange_free_text_never_moves(segs: list[Seg], phase: str) -> None:
    same_parse(lambda t: te_reply(t, ROLES, phase), segs)  # type: ignore[arg-type]


@SETTINGS
@given(reply(st.sampled_from([("<ACCEPT> yes </ACCEPT>", "<REJECT> no </REJECT>"),
                        ("<ACCEPT> yes </ACCEPT>", TP1), (TP1, TP2)])
       .map(pair), texts=(), private=("CONSIDER",)))
def test_task_exchange_contradictory_tags_are_malformed(segs: list[Seg]) -> None:
    move = te_reply(render(segs, True), ROLES)
    assert isinstance(move, Malformed) and move.feedback
    assert move.reason in ("ambiguous_response", "malformed_proposal")


# -- deliberation scaffold -----------------------------------------------------------------

PLAN = '<PROPOSAL>{"menu_proposal": ["a", "b"], "explanation": "e"}</PROPOSAL>'
DECISION = '<DECISION>{"accept_decision": true, "explanation": "e"}</DECISION>'
ESTIMATE = '<ESTIMATE>{"total_ingredients": {"egg": 1}, "overall_preference": {}}</ESTIMATE>'
DELIBERATION: list[tuple[str, Callable[[str], Any]]] = [
    (PLAN, lambda t: parse_plan(t, "menu-numeric")),
    (DECISION, lambda t: delib_verdict(t, "menu-numeric", leader=False)),
    (ESTIMATE, lambda t: parse_estimate(t, "menu-numeric")),
    ('<TOOL>{"name": "solver"}</TOOL>', lambda t: parse_plan(t, "menu-numeric")),
]


@pytest.mark.parametrize("answer, parse", DELIBERATION)
def test_deliberation_free_text_never_answers(answer: str, parse: Callable[[str], Any]) -> None:
    @SETTINGS
    @given(reply([lit(answer)]))
    def check(segs: list[Seg]) -> None:
        same_parse(parse, segs)

    check()


@SETTINGS
@given(reply(block("MESSAGE").map(lambda m: [m]), texts=(), private=("THINK",)))
def test_deliberation_message_free_text(segs: list[Seg]) -> None:
    same_parse(parse_message, segs)


@pytest.mark.parametrize("first, second, module", [
    (PLAN, '<PROPOSAL>{"menu_proposal": ["c"]}</PROPOSAL>', "plan"),
    (DECISION, '<DECISION>{"accept_decision": false}</DECISION>', "decision"),
    ('<TOOL>{"name": "solver"}</TOOL>', '<TOOL>{"name": "calculator"}</TOOL>', "plan"),
])
def test_deliberation_contradictory_answers_are_malformed(first: str, second: str,
                                                          module: str) -> None:
    @SETTINGS
    @given(reply(pair((first, second))))
    def check(segs: list[Seg]) -> None:
        text = render(segs, True)
        got = parse_plan(text, "menu-numeric") if module == "plan" else \
            delib_verdict(text, "menu-numeric", leader=False)
        assert isinstance(got, Malformed) and got.reason == "conflicting_tags" and got.feedback

    check()
