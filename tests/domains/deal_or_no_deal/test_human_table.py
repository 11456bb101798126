"""Table 9 of seed 003: the three exclusions on hand-made datapoints, and the table itself
reproduced from test.txt against the numbers printed in the seed."""

from __future__ import annotations

from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path

from accord.domains.deal_or_no_deal import Datapoint, Outcome, load_selection
from accord.domains.deal_or_no_deal.human_table import (
    LEVELS,
    exclusion_counts,
    exclusions,
    max_covered,
    ranked_pool,
    table9,
)

# Seed 003, Table 9, typed from the seed text (columns d = -2 .. -11).
SEED_COUNTS = (13, 27, 57, 85, 108, 133, 177, 189, 210, 217)
SEED_RATES = {
    "agreement": ("0.5385", "0.5556", "0.5614", "0.6235", "0.6574", "0.6917", "0.7119",
                  "0.7249", "0.7381", "0.7373"),
    "envy_free": ("0.3077", "0.4074", "0.4035", "0.4824", "0.5463", "0.6015", "0.6441",
                  "0.6614", "0.6810", "0.6820"),
    "pareto_optimal": ("0.5384", "0.4444", "0.4385", "0.4823", "0.5277", "0.5413", "0.5310",
                       "0.5396", "0.5523", "0.5529"),
    "envy_free_and_pareto_optimal": ("0.3077", "0.3333", "0.3333", "0.3882", "0.4537",
                                     "0.4812", "0.4858", "0.4973", "0.5142", "0.5161"),
}
# The seed cut its rates to 4 decimals, sometimes rounding and sometimes truncating: 7/13
# is printed 0.5385 as the agreement rate and 0.5384 as the Pareto rate of the same column.


def _dp(i: int, counts: tuple[int, ...], alice: tuple[int, ...], bob: tuple[int, ...],
        outcome: Outcome | None = None) -> Datapoint:
    return Datapoint(f"t/L{i}", counts, alice, bob, (), outcome or Outcome("no_agreement"),
                     "x", (i,))


def test_max_covered_needs_a_shared_favourite_that_the_rest_outweighs() -> None:
    # both like books best; the hats and balls outweigh one book for both
    assert max_covered((1, 2, 3), (4, 0, 2), (4, 3, 0))
    # shared favourite, but for alice the rest (0 + 3*1) is worth less than a book (7)
    assert not max_covered((1, 1, 3), (7, 0, 1), (4, 3, 1))
    # different favourites
    assert not max_covered((1, 2, 3), (4, 0, 2), (1, 3, 1))
    # ties: the first index of the largest value counts
    assert max_covered((1, 1, 1), (5, 5, 0), (5, 5, 0))


def test_exclusions_in_file_order() -> None:
    pts = [_dp(1, (1, 2, 3), (4, 0, 2), (1, 3, 1)),
           _dp(3, (1, 2, 3), (4, 0, 2), (1, 3, 1)),   # same counts and values
           _dp(5, (1, 2, 3), (1, 3, 1), (4, 0, 2)),   # swapped sides: not a repetition
           _dp(7, (2, 2, 4), (1, 2, 1), (3, 1, 1)),   # all counts even
           _dp(9, (1, 2, 3), (4, 0, 2), (4, 3, 0))]   # max covered
    assert exclusions(pts) == [None, "repetition", None, "all_even", "max_covered"]
    assert [d.id for d in ranked_pool(pts)] == ["t/L1", "t/L5"]
    assert exclusion_counts(pts) == {"repetition": 1, "all_even": 1, "max_covered": 1,
                                     "kept": 2}


def test_table9_is_cumulative_with_empty_columns() -> None:
    agree = Outcome("agreement", (1, 0, 2), (0, 2, 1))
    pts = [_dp(1, (1, 2, 3), (4, 0, 2), (1, 3, 1), agree),   # d = -7, EF and PO
           _dp(3, (1, 1, 3), (7, 0, 1), (6, 1, 1))]          # d = -2, no deal
    rows = table9(pts)
    assert [r["difficulty"] for r in rows] == list(LEVELS) == list(range(-2, -12, -1))
    assert rows[0]["datapoints"] == 1 and rows[0]["agreement"] == 0.0
    assert rows[4]["datapoints"] == 1 and rows[5]["datapoints"] == 2
    assert rows[5]["agreement"] == rows[5]["envy_free_and_pareto_optimal"] == 0.5
    assert table9([])[0] == {"difficulty": -2, "datapoints": 0, "agreement": None,
                             "envy_free": None, "pareto_optimal": None,
                             "envy_free_and_pareto_optimal": None}


def _cuts(x: float, n: int) -> set[str]:
    """``x`` (a rate over ``n`` datapoints) rounded and truncated to 4 decimals."""
    exact = Fraction(x).limit_denominator(n)
    dec = Decimal(exact.numerator) / Decimal(exact.denominator)
    return {str(dec.quantize(Decimal("0.0001"), rounding=how))
            for how in (ROUND_HALF_UP, ROUND_DOWN)}


def test_table9_reproduces_the_seed(dond_dir: Path) -> None:
    points = load_selection(dond_dir, "test", "seed")
    assert len(points) == 526
    assert exclusion_counts(points) == {"repetition": 207, "all_even": 37, "max_covered": 34,
                                        "kept": 248}
    rows = table9(points)
    assert tuple(r["datapoints"] for r in rows) == SEED_COUNTS
    for key, printed in SEED_RATES.items():
        for r, p in zip(rows, printed, strict=True):
            assert p in _cuts(r[key], r["datapoints"]), (key, r["difficulty"], r[key], p)
            assert abs(r[key] - float(p)) < 1e-4


def test_table9_on_the_unique_dialogues(dond_dir: Path) -> None:
    points = load_selection(dond_dir, "test", "unique")
    assert len(points) == 545
    rows = table9(points)
    assert rows[0]["datapoints"] == 12 and rows[-1]["datapoints"] > 200
