"""Proposal validation (B.2): each pattern with Figure 9 style targeted feedback."""

from __future__ import annotations

import pytest

from accord.domains.task_exchange import get_scenario
from accord.domains.task_exchange.validation import check_assignment

SC = get_scenario("cooperative")
U = SC.universe
D = U.description
NOTE = 'Create a note saying: "Remember to prepare for the interview and research resources."'


def check(asg: dict[str, list[str]]) -> list[str]:
    return [v.reason for v in check_assignment(asg, U, SC.roles)]


def feedback(asg: dict[str, list[str]]) -> str:
    return "\n".join(v.feedback for v in check_assignment(asg, U, SC.roles))


def test_valid_proposals() -> None:
    assert check({"Alice": [D(56)], "Bob": [D(7)]}) == []
    assert check({"Alice": [D(33)], "Bob": [D(30)]}) == []


def test_overlap_figure_9() -> None:
    asg = {"Alice": [D(0b111000)], "Bob": [D(0b010111)]}
    assert check(asg) == ["overlap"]
    fb = feedback(asg)
    assert fb.startswith("✖ Overlap detected:")
    assert f"'{D(0b010111)}' (mask=010111)" in fb and f"'{D(0b111000)}' (mask=111000)" in fb
    assert f"share atomic task(s); [{NOTE}]" in fb


def test_missing_atomic_tasks_names_masks_and_tasks() -> None:
    asg = {"Alice": [D(0b110000)], "Bob": [D(0b000111)]}
    assert check(asg) == ["missing_atomic_tasks"]
    fb = feedback(asg)
    assert "(mask=110000)" in fb and "(mask=000111)" in fb and "cover mask=110111" in fb
    assert "[Book a flight from San Francisco to New York on 2023-07-30] (mask=001000)" in fb


def test_unknown_task_suggests_closest() -> None:
    typo = D(56)[:-1]  # one character off
    asg = {"Alice": [typo], "Bob": [D(7)]}
    assert check(asg) == ["unknown_task"]
    fb = feedback(asg)
    assert f"'{typo}' (assigned to Alice) is not in the composite task list" in fb
    assert f"Closest listed description: '{D(56)}' (mask=111000)" in fb
    assert check({"Alice": ["A1"], "Bob": [D(7)]}) == ["unknown_task"]


def test_multiple_descriptions_suggests_or_merge() -> None:
    asg = {"Alice": [D(0b001000), D(0b110000)], "Bob": [D(7)]}
    assert check(asg) == ["multiple_descriptions"]
    fb = feedback(asg)
    assert "(mask=001000)" in fb and "(mask=110000)" in fb
    assert f"'{D(56)}' (mask=111000)" in fb and "bitwise OR" in fb


def test_empty_agent() -> None:
    assert check({"Alice": [D(63)], "Bob": []}) == ["empty_agent"]
    assert "Bob receives no task while Alice receives" in feedback({"Alice": [D(63)], "Bob": []})
    assert check({"Alice": [D(63)], "Bob": [D(0)]}) == ["empty_agent"]
    assert check({"Alice": [D(63)]}) == ["empty_agent"]


def test_several_violations_primary_first() -> None:
    # Bob keeps nothing and the flight is unassigned: empty agent is primary
    assert check({"Alice": [D(0b110111)], "Bob": []})[0] == "empty_agent"
    # overlap and missing together (Figure 9's own example also misses the install task)
    assert check({"Alice": [D(0b111000)], "Bob": [D(0b010011)]}) == [
        "overlap", "missing_atomic_tasks"]


@pytest.mark.parametrize("mask", range(1, 63))
def test_every_split_is_valid(mask: int) -> None:
    assert check({"Alice": [D(mask)], "Bob": [D(63 ^ mask)]}) == []
