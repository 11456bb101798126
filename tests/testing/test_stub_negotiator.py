"""The rule-based negotiator policy: contract parsing, concession, accept / walk rules."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from accord.testing.stub import NegotiatorPolicy, PolicyError, PolicyRequest, Reply, parse_utility
from accord.testing.stub.negotiator import target_utility

ADDITIVE = {"issues": {"price": [10, 20, 30], "color": ["red", "blue"]},
            "weights": {"price": 0.8, "color": 0.2},
            "values": {"price": {"10": 0.0, "20": 0.5, "30": 1.0},
                       "color": {"red": 1.0, "blue": 0.0}},
            "batna": 0.4}


def _ask(utility: dict[str, Any], **state: Any) -> str:
    full = {"round": 1, "max_rounds": 5, "move": "propose", "current_offer": None, **state}
    request = PolicyRequest((
        {"role": "system", "content": f"Seller.\n<UTILITY>{json.dumps(utility)}</UTILITY>"},
        {"role": "user", "content": "earlier turn <STATE>{}</STATE>"},
        {"role": "assistant", "content": "<PROPOSAL>{}</PROPOSAL>"},
        {"role": "user", "content": f"Now.\n<STATE>{json.dumps(full)}</STATE>"}), "negotiator")
    reply = NegotiatorPolicy().respond(request)
    assert isinstance(reply, Reply)
    return reply.text


def _proposal(text: str) -> dict[str, Any]:
    m = re.search(r"<PROPOSAL>(.*?)</PROPOSAL>", text, re.S)
    assert m is not None, text
    return json.loads(m.group(1))


def test_parse_additive_and_table_utilities() -> None:
    u = parse_utility(f"x <UTILITY>{json.dumps(ADDITIVE)}</UTILITY> y")
    assert u.issues == ("price", "color") and len(u.packages) == 6
    assert u.value({"price": 30, "color": "red"}) == pytest.approx(1.0)
    assert u.value({"price": "20", "color": "blue"}) == pytest.approx(0.4)  # "20" == 20
    assert u.value({"price": 30}) is None
    table = {"table": [{"package": {"a": 1, "b": "x"}, "utility": 0.9},
                       {"package": {"a": 2, "b": "x"}, "utility": 0.5}],
             "default": 0.1, "batna": 0.3}
    t = parse_utility(f"<UTILITY>{json.dumps(table)}</UTILITY>")
    assert len(t.packages) == 2 and t.value({"a": 2, "b": "x"}) == 0.5
    assert t.value({"a": 3, "b": "x"}) == 0.1
    with_issues = dict(table, issues={"a": [1, 2, 3], "b": ["x"]})
    assert len(parse_utility(f"<UTILITY>{json.dumps(with_issues)}</UTILITY>").packages) == 3


@pytest.mark.parametrize("text, message", [
    ("no block", "no <UTILITY>"),
    ("<UTILITY>{nope}</UTILITY>", "not valid JSON"),
    ('<UTILITY>{"issues": {}}</UTILITY>', "'batna'"),
    ('<UTILITY>{"issues": {"p": [1]}, "weights": {"p": 1}, "values": {"p": {}}, "batna": 0}'
     '</UTILITY>', "no score for"),
    ('<UTILITY>{"issues": {"p": [1]}, "batna": 0}</UTILITY>', "lacks key"),
])
def test_bad_utility_blocks(text: str, message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        parse_utility(text)


def test_bad_state_block() -> None:
    request = PolicyRequest(({"role": "system", "content": f"<UTILITY>{json.dumps(ADDITIVE)}"
                                                           "</UTILITY>"},
                             {"role": "user", "content": '<STATE>{"round": 1}</STATE>'}), "n")
    with pytest.raises(PolicyError, match="round, max_rounds and move"):
        NegotiatorPolicy().respond(request)


def test_concedes_linearly_from_best_to_batna() -> None:
    u = parse_utility(f"<UTILITY>{json.dumps(ADDITIVE)}</UTILITY>")
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
    hopeless = dict(ADDITIVE, batna=2.0)
    assert "<WALK/>" in _ask(hopeless, round=1, move="respond", current_offer=low)
