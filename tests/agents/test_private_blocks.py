"""Private blocks are opaque in every domain's reply parser (issue 24, item 2).

Every move tag of each domain, written inside each private block (``CONSIDER``, ``THINK``,
``<think>``), makes no move: closed, the reply holds no move (the parser asks for one);
unclosed, the reply is a malformed ``unclosed_tag`` reply naming the block (issue 24: in
task exchange ``<CONSIDER><ACCEPT> ok </ACCEPT>`` ended an episode as agreed). And a
closed private block before a real move leaves that move exactly as it is alone.
Model reasoning returned in a separate field of the API answer is never read at all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from accord.agents.llm_stagnation import parse_stagnation_reply
from accord.agents.replies import parse_mediator_reply, parse_negotiation_reply
from accord.agents.replies import parse_verdict as judge_verdict
from accord.core.moves import Malformed
from accord.domains.deal_or_no_deal.llm.replies import parse_reply as dond_reply
from accord.domains.deliberation.llm.replies import (
    parse_estimate,
    parse_message,
    parse_plan,
)
from accord.domains.deliberation.llm.replies import parse_verdict as delib_verdict
from accord.domains.games.llm.replies import StepError, json_tag, parse_action, parse_talk
from accord.domains.task_exchange.llm.replies import parse_reply as te_reply

PRIVATE = ("CONSIDER", "THINK", "think")
ISSUES = {"price": [800, 1000, 1200], "warranty": [0, 1]}
TE_ROLES = ("Alice", "Bob")
TE_BODY = '{"Alice": ["task a"], "Bob": ["task b"]}'
DELIB = "menu-numeric"


def _games_step(text: str) -> Any:
    try:
        return json_tag(text, "NASH")
    except StepError as exc:
        return Malformed(exc.reason, exc.feedback)


#: domain parser -> (parse function, the move tags it reads, one valid move to follow)
PARSERS: dict[str, tuple[Callable[[str], Any], tuple[str, ...], str]] = {
    "bargaining": (lambda t: parse_negotiation_reply(t, ISSUES, "respond"),
                   ('<PROPOSAL>{"price": 800, "warranty": 1}</PROPOSAL>', "<ACCEPT/>",
                    "<REJECT/>", "<WALK/>", "<ACCEPT>", "<WALK>"), "<REJECT/>"),
    "mediator": (parse_mediator_reply, ('<PROPOSAL>{"price": 800, "warranty": 1}</PROPOSAL>',),
                 '<PROPOSAL>{"price": 1000, "warranty": 0}</PROPOSAL>'),
    "judge": (judge_verdict, ("<VERDICT>stop</VERDICT>", "<VERDICT>continue</VERDICT>"),
              "<VERDICT>continue</VERDICT>"),
    "stagnation": (parse_stagnation_reply, ("<VERDICT>STAGNANT</VERDICT>",
                                            "<VERDICT>MOVING</VERDICT>"),
                   "<VERDICT>MOVING</VERDICT>"),
    "task exchange": (lambda t: te_reply(t, TE_ROLES, "respond"),
                      (f"<PROPOSAL>{TE_BODY}</PROPOSAL>", "<ACCEPT> ok </ACCEPT>", "<ACCEPT>",
                       "<REJECT> no </REJECT>", f"<REJECT>no</REJECT><PROPOSAL>{TE_BODY}"
                       "</PROPOSAL>"), "<REJECT> no </REJECT>"),
    "games action": (lambda t: parse_action(t, ["cooperate", "defect"]),
                     ("<ACTION>defect</ACTION>", "<ACTION>cooperate</ACTION>"),
                     "<ACTION>cooperate</ACTION>"),
    "games talk": (parse_talk, ("<MESSAGE>let us both defect</MESSAGE>",),
                   "<MESSAGE>cooperate?</MESSAGE>"),
    "games workflow": (_games_step, ('<NASH>{"alice": "defect"}</NASH>',),
                       '<NASH>{"alice": "cooperate"}</NASH>'),
    "deal or no deal": (lambda t: dond_reply(t, responding=True),
                        ("<deal>book=1 hat=2 ball=0</deal>", "<ACCEPT/>", "<REJECT/>",
                         "<WALK/>", "<MESSAGE>deal</MESSAGE>"), "<REJECT/>"),
    "deliberation estimate": (lambda t: parse_estimate(t, DELIB),
                              ('<ESTIMATE>{"total_ingredients": {}, "overall_preference": {}}'
                               "</ESTIMATE>",), '<ESTIMATE>{"total_ingredients": {"egg": 1}, '
                              '"overall_preference": {}}</ESTIMATE>'),
    "deliberation plan": (lambda t: parse_plan(t, DELIB),
                          ('<PROPOSAL>{"menu_proposal": ["a"], "explanation": "e"}</PROPOSAL>',
                           '<TOOL>{"name": "solver"}</TOOL>'),
                          '<PROPOSAL>{"menu_proposal": ["b"], "explanation": "f"}</PROPOSAL>'),
    "deliberation decision": (lambda t: delib_verdict(t, DELIB, leader=False),
                              ('<DECISION>{"accept_decision": true}</DECISION>',
                               '<TOOL>{"name": "calculator"}</TOOL>'),
                              '<DECISION>{"accept_decision": false}</DECISION>'),
    "deliberation message": (parse_message, ("<MESSAGE>agreed</MESSAGE>",),
                             "<MESSAGE>not yet</MESSAGE>"),
}
CASES = [(domain, move, block) for domain, (_, moves, _) in PARSERS.items()
         for move in moves for block in PRIVATE]


def _no_move(got: Any) -> bool:
    """What a parser returns for a reply that holds no move."""
    return got is None or isinstance(got, Malformed)


@pytest.mark.parametrize("domain, move, block", CASES)
def test_a_move_inside_a_closed_private_block_is_no_move(domain: str, move: str,
                                                         block: str) -> None:
    parse = PARSERS[domain][0]
    got = parse(f"<{block}>I could answer {move} here</{block}>")
    assert _no_move(got), (domain, move, block, got)


@pytest.mark.parametrize("domain, move, block", CASES)
def test_an_unclosed_private_block_is_an_error(domain: str, move: str, block: str) -> None:
    parse = PARSERS[domain][0]
    got = parse(f"<{block}>I could answer {move}")
    if domain == "judge":  # the judge's parser answers None for any unusable reply
        assert got is None
        return
    assert isinstance(got, Malformed), (domain, move, block, got)
    assert "not closed" in got.feedback.lower() or got.reason == "unclosed_tag"
    assert block.upper() in got.feedback.upper()


@pytest.mark.parametrize("domain, move, block", CASES)
def test_a_closed_private_block_leaves_the_real_move_alone(domain: str, move: str,
                                                           block: str) -> None:
    parse, _, real = PARSERS[domain]
    alone = parse(real)
    assert not isinstance(alone, Malformed)
    assert parse(f"<{block}>maybe {move}</{block}>{real}") == alone
