"""Selections: the seed's datapoints (one line each), the unique dialogues, sample files, and
section 5.4's "top-K most difficult that have an envy-free allocation"."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from accord.domains.deal_or_no_deal import Datapoint, Outcome, load_selection
from accord.domains.deal_or_no_deal.load import read_views
from accord.domains.deal_or_no_deal.rules import datapoint_admits_envy_free, difficulty
from accord.domains.deal_or_no_deal.selection import (
    line_id,
    load_line,
    load_sample,
    parse_line_id,
    sample_datapoints,
    seed_datapoints,
    seed_hardest,
    select,
)

LineMaker = Callable[..., str]
TURNS = [("YOU", "i want the book"), ("THEM", "ok , take it")]


def test_line_ids() -> None:
    assert line_id("test", 7) == "test/L7"
    assert parse_line_id("test/L7") == ("test", 7)
    assert parse_line_id("test/7") is None and parse_line_id("test/L0") is None


A = ((1, 2, 3), (4, 0, 2), (1, 3, 1), TURNS, (1, 0, 2, 0, 2, 1))
B = ((1, 1, 3), (7, 0, 1), (6, 1, 1), TURNS, "<no_agreement>")
C = ((2, 2, 1), (1, 3, 2), (3, 1, 2), TURNS, "<disagree>")


def _lines(make_line: LineMaker, mirror_line: LineMaker) -> list[str]:
    """A (both views), C (one view only), B (both views): C shifts the pairs."""
    return [make_line(*A), mirror_line(*A), make_line(*C), make_line(*B), mirror_line(*B)]


def test_seed_datapoints_take_every_other_line_from_the_input_side(
        tmp_path: Path, make_line: LineMaker, mirror_line: LineMaker) -> None:
    f = tmp_path / "test.txt"
    f.write_text("\n".join(_lines(make_line, mirror_line)) + "\n", encoding="utf-8")
    seed = seed_datapoints(read_views(f), "test")
    assert [d.id for d in seed] == ["test/L1", "test/L3", "test/L5"]
    # line 5 is dialogue B seen from the other side: Alice is that line's YOU
    assert seed[2].alice == (6, 1, 1) and seed[2].bob == (7, 0, 1)
    assert seed[0].outcome.alice == (1, 0, 2) and seed[0].turns[0].speaker == "alice"
    unique = load_selection(f, "test", "unique")
    assert [d.id for d in unique] == ["test/0", "test/1", "test/2"]
    assert unique[2].alice == (7, 0, 1) and unique[2].lines == (4, 5)
    assert load_selection(f, "test", "seed") == seed
    assert load_line(f, "test", 5) == seed[2]
    with pytest.raises(KeyError, match="no line 9"):
        load_line(f, "test", 9)
    with pytest.raises(ValueError, match="unknown selection"):
        load_selection(f, "test", "all")  # type: ignore[arg-type]


def test_sample_lines_are_found_in_the_split(tmp_path: Path, make_line: LineMaker,
                                             mirror_line: LineMaker) -> None:
    lines = _lines(make_line, mirror_line)
    split = tmp_path / "test.txt"
    split.write_text("\n".join(lines) + "\n", encoding="utf-8")
    sample = tmp_path / "sample.txt"
    sample.write_text(lines[4] + "\n" + lines[0] + "\n", encoding="utf-8")
    own = load_sample(sample)
    assert [d.id for d in own] == ["sample/L1", "sample/L2"] and own[0].alice == (6, 1, 1)
    found = load_sample(sample, split, in_split=True)
    assert [d.id for d in found] == ["test/L5", "test/L1"]
    assert [d.alice for d in found] == [d.alice for d in own]
    stray = tmp_path / "stray.txt"
    stray.write_text(mirror_line(*C) + "\n",
                     encoding="utf-8")
    with pytest.raises(ValueError, match=r"stray.txt:1: this sample line is not a line of"):
        sample_datapoints(read_views(stray), read_views(split))


def _dp(i: int, counts: tuple[int, ...], alice: tuple[int, ...], bob: tuple[int, ...]
        ) -> Datapoint:
    return Datapoint(f"t/L{i}", counts, alice, bob, (), Outcome("no_agreement"), "x", (i,))


def test_seed_hardest_ranks_then_keeps_envy_free() -> None:
    pts = [_dp(1, (1, 2, 3), (4, 0, 2), (1, 3, 1)),     # d = -7
           _dp(2, (1, 2, 2), (10, 0, 0), (8, 1, 0)),    # d = -3, no envy-free allocation
           _dp(3, (2, 2, 2), (1, 2, 2), (1, 2, 2)),     # d = 0 but all counts even: unranked
           _dp(4, (1, 1, 3), (1, 3, 2), (2, 2, 2)),     # d = -2
           _dp(5, (1, 2, 3), (2, 1, 2), (4, 0, 2))]     # d = -3 but max covered: unranked
    assert not datapoint_admits_envy_free(pts[1])
    # the 2 most difficult are L4 and L2; L2 has no envy-free allocation: one is left
    assert [d.id for d in seed_hardest(pts, 2)] == ["t/L4"]
    assert [d.id for d in seed_hardest(pts, None)] == ["t/L4", "t/L1"]
    assert [d.id for d in select(pts, 3, limit=1)] == ["t/L4"]
    assert select(pts) == pts


def test_real_selections(dond_dir: Path) -> None:
    seed = load_selection(dond_dir, "test", "seed")
    assert len(seed) == 526 and seed[0].id == "test/L1" and seed[-1].id == "test/L1051"
    assert len(load_selection(dond_dir, "test", "unique")) == 545
    top = seed_hardest(seed, 50)
    assert len(top) == 45 and all(datapoint_admits_envy_free(d) for d in top)
    assert Counter(difficulty(d.alice, d.bob) for d in seed_hardest(seed, 57)) == Counter(
        {-2: 11, -3: 13, -4: 27})


def test_real_sample(dond_dir: Path) -> None:
    sample = load_sample(dond_dir / "sample50.txt", dond_dir, in_split=True)
    assert len(sample) == 50 and len(set(sample)) == 50
    seed_ids = {d.id for d in load_selection(dond_dir, "test", "seed")}
    assert {d.id for d in sample} <= seed_ids  # every sample line is a first line of a pair
    assert Counter(difficulty(d.alice, d.bob) for d in sample) == Counter(
        {-2: 13, -3: 11, -4: 26})
    assert sum(datapoint_admits_envy_free(d) for d in sample) == 44
    assert len(select(sample, 50)) == 44
