"""Hostile replies against every parser of model or person text (issue 24, item 5).

Hypothesis builds replies from fragments of every domain's tags (opened, closed,
unclosed, inside private blocks), deep JSON, 6,000-digit numbers, whitespace runs and lone
surrogates (:func:`hostile.reply_strategy`); every parser of :data:`hostile.PARSERS` must
return a move, a malformed reply or its own refusal: never another exception. A small
count here; ``benchmarks/fuzz.py --parsers --examples N`` runs many.
"""

from __future__ import annotations

import hostile
import pytest
from hypothesis import HealthCheck, given, settings

from accord.core.moves import Malformed


@pytest.mark.parametrize("name", sorted(hostile.PARSERS))
def test_no_hostile_reply_raises(name: str) -> None:
    parse, _ = hostile.PARSERS[name]

    @settings(max_examples=40, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(text=hostile.reply_strategy())
    def check(text: str) -> None:
        parse(text)  # PARSERS wrap each parser's own refusal; anything else fails here

    check()


def test_a_malformed_reply_always_says_why() -> None:
    from accord.agents.replies import parse_negotiation_reply

    @settings(max_examples=60, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(text=hostile.reply_strategy())
    def check(text: str) -> None:
        got = parse_negotiation_reply(text, {"price": [800, 1000, 1200], "warranty": [0, 1]},
                                      "respond")
        if isinstance(got, Malformed):
            assert got.reason and got.feedback
            got.feedback.encode("utf-8")  # feedback goes into the next request

    check()
