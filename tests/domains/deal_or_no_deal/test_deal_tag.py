"""The <deal>book=x hat=y ball=z</deal> parser and formatter."""

from __future__ import annotations

import pytest

from accord.domains.deal_or_no_deal.deal_tag import (
    DealTagError,
    find_deal,
    format_deal,
    format_deal_body,
    package_of,
    parse_deal_body,
    share_of,
)


def test_round_trip() -> None:
    pkg = {"book": 1, "hat": 0, "ball": 2}
    assert format_deal(pkg) == "<deal>book=1 hat=0 ball=2</deal>"
    assert find_deal("sure. " + format_deal(pkg) + " thanks") == pkg
    assert share_of(package_of((1, 0, 2))) == (1, 0, 2)


@pytest.mark.parametrize("body", ["book=1 hat=0 ball=2", "Books=1, hats = 0, BALLS=2",
                                  "ball=2;book=1;hat=0", "  book: 1  hat: 0  ball: 2 "])
def test_lenient_spelling(body: str) -> None:
    assert parse_deal_body(body) == {"book": 1, "hat": 0, "ball": 2}


def test_last_tag_wins_and_absent_is_none() -> None:
    text = "<deal>book=0 hat=0 ball=0</deal> no wait <DEAL>book=1 hat=1 ball=1</DEAL>"
    assert find_deal(text) == {"book": 1, "hat": 1, "ball": 1}
    assert find_deal("no deal here") is None


@pytest.mark.parametrize("body,needle", [
    ("book=1 hat=0", "missing ball"),
    ("book=1 hat=0 ball=2 car=1", "unknown item 'car'"),
    ("book=1 book=2 hat=0 ball=0", "appears twice"),
    ("book=one hat=0 ball=2", "non-negative integer"),
    ("book=-1 hat=0 ball=2", "non-negative integer"),
    ("book=1.5 hat=0 ball=2", "non-negative integer"),
    ("book hat ball", "write item=count"),
])
def test_errors_are_feedback(body: str, needle: str) -> None:
    with pytest.raises(DealTagError, match=needle):
        parse_deal_body(body)


def test_format_body_is_canonical_order() -> None:
    assert format_deal_body({"ball": 3, "book": 1, "hat": 2}) == "book=1 hat=2 ball=3"


def test_deal_quoted_in_a_message_or_private_block_is_not_found_issue_12() -> None:
    assert find_deal("<MESSAGE>not <deal>book=0 hat=0 ball=0</deal></MESSAGE>") is None
    assert find_deal("<THINK><deal>book=0 hat=0 ball=0</deal></THINK>") is None
    text = "<MESSAGE>not <deal>book=0 hat=0 ball=0</deal></MESSAGE><deal>book=1 hat=1 ball=1</deal>"
    assert find_deal(text) == {"book": 1, "hat": 1, "ball": 1}
