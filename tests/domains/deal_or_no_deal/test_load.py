"""Loader: line parsing, errors with file and line, pairing of the two views, real data."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from accord.domains.deal_or_no_deal import DataFormatError, load_split
from accord.domains.deal_or_no_deal.load import pair_views, parse_line, read_views

LineMaker = Callable[..., str]
TURNS = [("YOU", "i want the book"), ("THEM", "ok , take it")]


def test_parse_agreement_line(make_line: LineMaker) -> None:
    v = parse_line(make_line((1, 2, 3), (4, 0, 2), (1, 3, 1), TURNS, (1, 0, 2, 0, 2, 1)))
    assert v.counts == (1, 2, 3)
    assert v.you == (4, 0, 2) and v.them == (1, 3, 1)
    assert v.turns == (("YOU", "i want the book"), ("THEM", "ok , take it"))
    assert v.selection_by == "YOU"
    assert v.outcome == "agreement"
    assert v.you_share == (1, 0, 2) and v.them_share == (0, 2, 1)


@pytest.mark.parametrize("token,kind", [("<disagree>", "disagree"),
                                        ("<no_agreement>", "no_agreement"),
                                        ("<disconnect>", "disconnect")])
def test_parse_failure_outcomes(make_line: LineMaker, token: str, kind: str) -> None:
    v = parse_line(make_line((1, 2, 3), (4, 0, 2), (1, 3, 1), TURNS, token))
    assert v.outcome == kind
    assert v.you_share is None and v.them_share is None


@pytest.mark.parametrize("mutate,needle", [
    (lambda s: s.replace("<input> 1 4", "<input> 1 x"), "non-integer"),
    (lambda s: s.replace("<input> 1 4 2 0 3 2 </input>", "<input> 1 4 2 0 </input>"),
     "must hold 6 integers"),
    (lambda s: s.replace("item2=1 </output>", "item2=2 </output>"), "do not add up"),
    (lambda s: s.replace("item0=1 item1=0", "item1=1 item0=0"), "should read item0=N"),
    (lambda s: s.replace("<partner_input> 1 1", "<partner_input> 1 2"), "total values differ"),
    (lambda s: s.replace("THEM: ok", "HIM: ok"), "does not start with 'YOU:' or 'THEM:'"),
    (lambda s: s.replace("<output>", "<outcome>"), "does not match"),
    (lambda s: s.replace(" YOU: <selection>", ""), "does not end with '<selection>'"),
])
def test_bad_lines_name_the_problem(make_line: LineMaker, mutate: Callable[[str], str],
                                    needle: str) -> None:
    good = make_line((1, 2, 3), (4, 0, 2), (1, 3, 1), TURNS, (1, 0, 2, 0, 2, 1))
    with pytest.raises(DataFormatError) as err:
        parse_line(mutate(good), "x.txt", 7)
    assert needle in str(err.value)
    assert str(err.value).startswith("x.txt:7: ")


def test_mixed_failure_tokens_are_refused(make_line: LineMaker) -> None:
    line = make_line((1, 2, 3), (4, 0, 2), (1, 3, 1), TURNS, "<disagree>")
    line = line.replace("<disagree> </output>", "<disconnect> </output>")
    with pytest.raises(DataFormatError, match="mixes failure tokens"):
        parse_line(line)


def test_file_errors_report_file_and_line(tmp_path: Path, make_line: LineMaker) -> None:
    good = make_line((1, 2, 3), (4, 0, 2), (1, 3, 1), TURNS, (1, 0, 2, 0, 2, 1))
    path = tmp_path / "test.txt"
    path.write_text(f"{good}\n\n{good.replace('item0=1', 'item0=9')}\n", encoding="utf-8")
    with pytest.raises(DataFormatError) as err:
        read_views(path)
    assert err.value.path == str(path) and err.value.line == 3
    assert f"{path}:3:" in str(err.value)


def test_pairing_joins_two_views_and_keeps_file_order(tmp_path: Path, make_line: LineMaker,
                                                      mirror_line: LineMaker) -> None:
    a = ((1, 2, 3), (4, 0, 2), (1, 3, 1), TURNS, (1, 0, 2, 0, 2, 1))
    b = ((2, 2, 1), (2, 1, 4), (0, 4, 2), [("THEM", "hi"), ("YOU", "no")], "<no_agreement>")
    lines = [make_line(*a), make_line(*b), mirror_line(*a)]
    path = tmp_path / "val.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    points = load_split(path)
    assert [d.id for d in points] == ["val/0", "val/1"]
    first, second = points
    assert first.lines == (1, 3)
    assert first.alice == (4, 0, 2) and first.bob == (1, 3, 1)
    assert first.outcome.alice == (1, 0, 2) and first.outcome.bob == (0, 2, 1)
    assert [t.speaker for t in first.turns] == ["alice", "bob"]
    assert second.lines == (2,)
    assert second.outcome.kind == "no_agreement" and not second.outcome.agreed
    assert second.first_speaker == "bob"


def test_pairing_refuses_views_whose_outcomes_disagree(make_line: LineMaker,
                                                       mirror_line: LineMaker) -> None:
    a = ((1, 2, 3), (4, 0, 2), (1, 3, 1), TURNS, (1, 0, 2, 0, 2, 1))
    wrong = mirror_line(*a[:4], (0, 2, 1, 1, 0, 2)).replace(
        "item0=0 item1=2 item2=1 item0=1", "item0=0 item1=1 item2=1 item0=1").replace(
        "item1=0 item2=2 </output>", "item1=1 item2=2 </output>")
    views = [parse_line(make_line(*a), "f", 1), parse_line(wrong, "f", 2)]
    with pytest.raises(DataFormatError, match="does not mirror line 1"):
        pair_views(views, "test")


def test_exact_repeat_of_a_view_is_dropped(make_line: LineMaker) -> None:
    line = make_line((1, 2, 3), (4, 0, 2), (1, 3, 1), TURNS, (1, 0, 2, 0, 2, 1))
    views = [parse_line(line, "f", 1), parse_line(line, "f", 2)]
    assert len(pair_views(views, "test")) == 1


def test_real_test_split(dond_dir: Path) -> None:
    views = read_views(dond_dir / "test.txt")
    assert len(views) == 1052
    points = load_split(dond_dir / "test.txt")
    assert len(points) == 545
    assert sum(len(d.lines) == 2 for d in points) == 507
    kinds = Counter(d.outcome.kind for d in points)
    assert sum(kinds.values()) == 545 and kinds["agreement"] > 350
    for d in points:
        assert sum(c * v for c, v in zip(d.counts, d.alice, strict=True)) == 10
        assert sum(c * v for c, v in zip(d.counts, d.bob, strict=True)) == 10


def test_real_val_split(dond_dir: Path) -> None:
    points = load_split(dond_dir / "val.txt")
    assert len(points) == 562 and points[0].id == "val/0"
