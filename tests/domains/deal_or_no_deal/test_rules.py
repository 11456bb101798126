"""Allocation rules on hand-made datapoints with known answers, plus brute-force properties."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from accord.domains.deal_or_no_deal import Datapoint, Outcome, load_split
from accord.domains.deal_or_no_deal.rules import (
    admits_envy_free,
    allocations,
    best,
    best_allocations,
    datapoint_admits_envy_free,
    difficulty,
    envy_free_allocations,
    hardest,
    is_envy_free,
    is_pareto_optimal,
    utility,
)

Vec = tuple[int, ...]


def test_allocations_enumerate_every_share() -> None:
    assert len(allocations((1, 2, 3))) == 2 * 3 * 4
    assert allocations((1, 1, 1))[0] == (0, 0, 0) and allocations((1, 1, 1))[-1] == (1, 1, 1)


def test_opposed_tastes_known_answers() -> None:
    counts, alice, bob = (1, 1, 1), (10, 0, 0), (0, 10, 0)
    assert is_envy_free(counts, alice, bob, (1, 0, 0))
    assert is_envy_free(counts, alice, bob, (1, 0, 1))  # the ball is worthless to both
    assert not is_envy_free(counts, alice, bob, (1, 1, 0))  # bob envies
    assert set(best_allocations(counts, alice, bob)) == {(1, 0, 0), (1, 0, 1)}
    b = best(counts, alice, bob)
    assert b is not None and (b.alice, b.bob, b.total) == (10, 10, 20)
    assert is_pareto_optimal(counts, alice, bob, (1, 0, 0))
    assert not is_pareto_optimal(counts, alice, bob, (0, 0, 1))


def test_identical_values_equal_split() -> None:
    counts, v = (2, 2, 2), (1, 2, 2)
    ef = envy_free_allocations(counts, v, v)
    assert ef and all(utility(v, a) == 5 for a in ef)
    b = best(counts, v, v)
    assert b is not None and b.alice == b.bob == 5
    assert difficulty(v, v) == 0


def test_no_envy_free_allocation() -> None:
    # both want only the single book, which cannot be split
    counts, alice, bob = (1, 2, 2), (10, 0, 0), (10, 0, 0)
    assert not admits_envy_free(counts, alice, bob)
    assert best(counts, alice, bob) is None
    assert best_allocations(counts, alice, bob) == ()


def test_best_rule_even_prefers_the_more_even_split() -> None:
    # totals tie at 10 for (1,0,0)/(0,1,1) style splits; best picks the larger minimum
    counts, alice, bob = (1, 1, 1), (5, 5, 0), (5, 5, 0)
    b = best(counts, alice, bob, "even")
    assert b is not None and (b.alice, b.bob) == (5, 5)


def test_best_rule_authors_takes_the_first_share_in_enumeration_order() -> None:
    # three best allocations with total 16: alice (0,1,0), (0,1,1) or (0,1,2)
    counts, alice, bob = (2, 1, 2), (0, 6, 2), (3, 0, 2)
    assert best_allocations(counts, alice, bob) == ((0, 1, 0), (0, 1, 1), (0, 1, 2))
    first = best(counts, alice, bob)
    assert first is not None and first == best(counts, alice, bob, "authors")
    assert (first.alice_share, first.alice, first.bob) == ((0, 1, 0), 6, 10)
    even = best(counts, alice, bob, "even")
    assert even is not None and (even.alice_share, even.alice, even.bob) == ((0, 1, 1), 8, 8)
    with pytest.raises(ValueError, match="unknown best rule 'fair'"):
        best(counts, alice, bob, "fair")  # type: ignore[arg-type]


def test_paper_indistinguishable_example_allocations() -> None:
    # section 5.5.2: one book, one hat, three balls
    l_first = set(best_allocations((1, 1, 3), (1, 3, 2), (1, 0, 3)))
    l_second = set(best_allocations((1, 1, 3), (0, 4, 2), (1, 0, 3)))
    assert (0, 1, 1) in l_first and (1, 1, 1) in l_first  # the paper names both
    assert l_second == {(0, 1, 1)}


def _dp(i: int, alice: tuple[int, ...], bob: tuple[int, ...],
        counts: tuple[int, ...] = (1, 1, 1)) -> Datapoint:
    return Datapoint(f"test/{i}", counts, alice, bob, (), Outcome("no_agreement"), "x", (i,))


def test_hardest_orders_by_difficulty_and_filters_envy_free() -> None:
    points = [_dp(0, (1, 2, 2), (2, 2, 1), (2, 2, 2)), _dp(1, (10, 0, 0), (10, 0, 0)),
              _dp(2, (1, 1, 3), (1, 2, 2), (2, 2, 2)), _dp(3, (10, 0, 0), (0, 0, 10))]
    assert [d.id for d in hardest(points, None, envy_free_only=False)] == [
        "test/1", "test/0", "test/2", "test/3"]
    assert [d.id for d in hardest(points, 2)] == ["test/0", "test/2"]
    assert [d.id for d in hardest(points, None)] == ["test/0", "test/2", "test/3"]
    assert not datapoint_admits_envy_free(points[1])


def _brute_pareto(counts: Vec, alice: Vec, bob: Vec, share: Vec) -> bool:
    other = tuple(c - s for c, s in zip(counts, share, strict=True))
    ua, ub = utility(alice, share), utility(bob, other)
    for a in allocations(counts):
        xa = utility(alice, a)
        xb = utility(bob, tuple(c - s for c, s in zip(counts, a, strict=True)))
        if xa >= ua and xb >= ub and (xa > ua or xb > ub):
            return False
    return True


@st.composite
def games(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    counts = tuple(draw(st.integers(1, 4)) for _ in range(3))
    vals = [v for v in itertools.product(range(11), repeat=3)
            if sum(c * x for c, x in zip(counts, v, strict=True)) == 10]
    assume(len(vals) > 0)
    return counts, draw(st.sampled_from(vals)), draw(st.sampled_from(vals))


@settings(max_examples=60, deadline=None)
@given(games())
def test_properties_against_brute_force(game: tuple[Vec, Vec, Vec]) -> None:
    counts, alice, bob = game
    for share in allocations(counts):
        assert is_pareto_optimal(counts, alice, bob, share) == _brute_pareto(
            counts, alice, bob, share)
        # with a common total, envy-freeness is "each gets at least half"
        other = tuple(c - s for c, s in zip(counts, share, strict=True))
        assert is_envy_free(counts, alice, bob, share) == (
            2 * utility(alice, share) >= 10 and 2 * utility(bob, other) >= 10)
    for share in best_allocations(counts, alice, bob):
        assert is_envy_free(counts, alice, bob, share)
        assert _brute_pareto(counts, alice, bob, share)


def test_real_data_envy_free_counts(dond_dir: Path) -> None:
    points = load_split(dond_dir / "test.txt")
    assert sum(datapoint_admits_envy_free(d) for d in points) == 531
    top = hardest(points, 44)
    assert len(top) == 44 and all(datapoint_admits_envy_free(d) for d in top)
    assert [difficulty(d.alice, d.bob) for d in top] == sorted(
        (difficulty(d.alice, d.bob) for d in top), reverse=True)
