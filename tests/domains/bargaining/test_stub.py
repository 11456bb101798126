"""The rule-based negotiator policy: reading the prompt text, concession, accept / walk.

Requests are rendered with accord's own bargaining prompt templates (the text a model
gets); the policy reads nothing else.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from accord.agents.negotiator_prompts import system_text, turn_text
from accord.domains.bargaining.stub import (
    NegotiatorPolicy,
    parse_turn,
    parse_utility,
    target_utility,
)
from accord.testing.stub import PolicyError, PolicyRequest, Reply

ADDITIVE = {"issues": {"price": [10, 20, 30], "color": ["red", "blue"]},
            "weights": {"price": 0.8, "color": 0.2},
            "values": {"price": {"10": 0.0, "20": 0.5, "30": 1.0},
                       "color": {"red": 1.0, "blue": 0.0}},
            "batna": 0.4}


def _system(utility: dict[str, Any]) -> str:
    return system_text("seller", ["buyer"], utility["issues"], utility, utility["batna"], 5)


def _ask(utility: dict[str, Any], allowed: list[str] | None = None, **state: Any) -> str:
    full = {"round": 1, "max_rounds": 5, "move": "propose", "current_offer": None, **state}
    turn = turn_text(full["round"], full["max_rounds"], full["move"], full["current_offer"],
                     "buyer" if full["current_offer"] else None)
    if allowed is not None:  # a move line that names only these moves
        tags = {"accept": "<ACCEPT/>", "reject": "<REJECT/>"}
        turn = turn.split("Your move:")[0] + "Your move: answer the package on the table with " \
            + " or ".join(tags[a] for a in allowed) + "."
    request = PolicyRequest((
        {"role": "system", "content": _system(utility)},
        {"role": "user", "content": turn_text(1, 5, "propose", None, None)},
        {"role": "assistant", "content": "<PROPOSAL>{}</PROPOSAL>"},
        {"role": "user", "content": turn}), "negotiator")
    reply = NegotiatorPolicy().respond(request)
    assert isinstance(reply, Reply)
    return reply.text


def _proposal(text: str) -> dict[str, Any]:
    m = re.search(r"<PROPOSAL>(.*?)</PROPOSAL>", text, re.S)
    assert m is not None, text
    return json.loads(m.group(1))


def test_parse_additive_and_table_utilities() -> None:
    u = parse_utility(_system(ADDITIVE))
    assert u.issues == ("price", "color") and len(u.packages) == 6
    assert u.value({"price": 30, "color": "red"}) == pytest.approx(1.0)
    assert u.value({"price": "20", "color": "blue"}) == pytest.approx(0.4)  # "20" == 20
    assert u.value({"price": 30}) is None
    table = {"issues": {"a": [1, 2, 3], "b": ["x"]},
             "table": [{"package": {"a": 1, "b": "x"}, "utility": 0.9},
                       {"package": {"a": 2, "b": "x"}, "utility": 0.5}],
             "default": 0.1, "batna": 0.3}
    t = parse_utility(_system(table))
    assert len(t.packages) == 3 and t.value({"a": 2, "b": "x"}) == 0.5
    assert t.value({"a": 3, "b": "x"}) == 0.1 and t.batna == 0.3


def test_parse_turn_reads_round_move_and_table() -> None:
    offer = {"price": 20, "color": "blue"}
    assert parse_turn(turn_text(3, 7, "respond", offer, "buyer")) == (3, 7, "respond", offer)
    assert parse_turn(turn_text(1, 7, "propose", None, None)) == (1, 7, "propose", None)


@pytest.mark.parametrize("text, message", [
    ("no prompt at all", "states no 'Your BATNA is B'"),
    ("Your BATNA is 0.2 — never accept any offer worse than this.", "no 'ISSUES' section"),
    ("Your BATNA is 0.2 — x.\nISSUES\n- p: 1\nYOUR PRIVATE UTILITY FUNCTION\n"
     "Your utility of a package = sum over issues of weight x score(value).\n"
     "- p (weight 1): 2 -> 1\nYour BATNA (", "no score for"),
    ("Your BATNA is 0.2 — x.\nISSUES\n- p: 1\nYOUR PRIVATE UTILITY FUNCTION\nhm\n"
     "Your BATNA (", "neither additive nor a table"),
])
def test_unreadable_system_prompts(text: str, message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        parse_utility(text)


@pytest.mark.parametrize("turn, message", [
    ("Round one.", "no 'Round r of R.'"),
    ("Round 1 of 5.", "no 'Your move:' line"),
])
def test_unreadable_turn_prompts(turn: str, message: str) -> None:
    request = PolicyRequest(({"role": "system", "content": _system(ADDITIVE)},
                             {"role": "user", "content": turn}), "n")
    with pytest.raises(PolicyError, match=message):
        NegotiatorPolicy().respond(request)


def test_concedes_linearly_from_best_to_batna() -> None:
    u = parse_utility(_system(ADDITIVE))
    assert [round(target_utility(u, r, 5), 3) for r in range(1, 6)] == [1.0, 0.85, 0.7, 0.55,
                                                                          0.4]
    first = _proposal(_ask(ADDITIVE, round=1))
    assert first == {"price": 30, "color": "red"}
    late = _proposal(_ask(ADDITIVE, round=4))  # target 0.55: the cheapest package >= 0.55
    assert late == {"price": 20, "color": "red"}  # worth 0.6
    assert "<CONSIDER>" in _ask(ADDITIVE)


def test_accepts_rejects_and_walks() -> None:
    good = {"price": 30, "color": "blue"}  # 0.8
    assert "<ACCEPT/>" in _ask(ADDITIVE, round=3, move="respond", current_offer=good)  # 0.7
    assert "<REJECT/>" in _ask(ADDITIVE, round=2, move="respond", current_offer=good)  # 0.85
    low = {"price": 10, "color": "red"}  # 0.2 < BATNA
    early = _ask(ADDITIVE, round=2, move="respond", current_offer=low)
    assert "<REJECT/>" in early and _proposal(early)
    assert "<WALK/>" in _ask(ADDITIVE, round=5, move="respond", current_offer=low)
    # last round, offer above BATNA: take it
    fair = {"price": 20, "color": "blue"}  # 0.4 == BATNA
    assert "<ACCEPT/>" in _ask(ADDITIVE, round=5, move="respond", current_offer=fair)
    # an unknown package is never accepted
    weird = {"price": 99, "color": "red"}
    assert "<ACCEPT/>" not in _ask(ADDITIVE, round=5, move="respond", current_offer=weird)


def test_allowed_moves_are_respected() -> None:
    low = {"price": 10, "color": "red"}
    no_walk = _ask(ADDITIVE, round=5, move="respond", current_offer=low,
                   allowed=["accept", "reject"])
    assert "<WALK/>" not in no_walk and "<REJECT/>" in no_walk and "<PROPOSAL>" not in no_walk
    # proposing: no accept or reject is offered, so the policy proposes
    first = _ask(ADDITIVE, round=5, move="propose", current_offer=low)
    assert "<ACCEPT/>" not in first and "<REJECT/>" not in first and _proposal(first)
    hopeless = dict(ADDITIVE, batna=2.0)
    assert "<WALK/>" in _ask(hopeless, round=1, move="respond", current_offer=low)
