"""Time discounts as Genius defines them: u x d^t, t = round / (max_rounds + 1)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from accord.core.discount import (
    check_discount,
    discount_multiplier,
    discounted,
    multipliers,
    relative_time,
)
from accord.core.scenario import Party
from accord.core.utility import LinearAdditiveUtility


def test_relative_time_is_genius_discrete_timeline() -> None:
    # new DiscreteTimeline(3): totalRounds = 4, getTime() = cRound / 4, deadline at 1
    assert [relative_time(r, 3) for r in (1, 2, 3, 4, 5)] == [0.25, 0.5, 0.75, 1.0, 1.0]
    assert relative_time(0, 3) == 0.0
    assert relative_time(1, 0) == 1.0


def test_hand_computed_discounted_utilities() -> None:
    # round 2 of 3: t = 0.5; 0.8 x 0.81^0.5 = 0.8 x 0.9
    assert discounted(0.8, 0.81, relative_time(2, 3)) == pytest.approx(0.72)
    # round 4 of 7: t = 0.5; 0.5 x 0.25^0.5
    assert discounted(0.5, 0.25, relative_time(4, 7)) == pytest.approx(0.25)
    # the deadline: the whole factor
    assert discounted(0.6, 0.5, 1.0) == pytest.approx(0.3)
    assert discounted(0.6, 1.0, 0.7) == 0.6  # no discount
    assert discount_multiplier(0.5, 2.0) == 0.5  # t clamped to 1
    assert multipliers([1.0, 0.64], 0.5).tolist() == pytest.approx([1.0, 0.8])


def test_party_discounts_utility_and_batna_alike() -> None:
    u = LinearAdditiveUtility({"x": 1.0}, {"x": {"a": 0.2, "b": 0.9}})
    p = Party("p", u, 0.4, 0.81)
    assert p.utility_at({"x": "b"}, 0.5) == pytest.approx(0.9 * 0.9)
    assert p.batna_at(0.5) == pytest.approx(0.4 * 0.9)  # Genius discounts the reservation
    assert p.batna_at(0.0) == 0.4 and p.utility_at({"x": "a"}, 0.0) == 0.2
    assert Party("q", u, 0.4).discount == 1.0  # the default: undiscounted


@pytest.mark.parametrize("bad", [0.0, -0.5, 1.5, math.nan, math.inf, True, "0.9"])
def test_a_discount_outside_0_1_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="discount factor"):
        check_discount(bad)  # type: ignore[arg-type]
    u = LinearAdditiveUtility({"x": 1.0}, {"x": {"a": 1.0}})
    with pytest.raises(ValueError, match=r"party 'p'.*discount factor"):
        Party("p", u, 0.0, bad)  # type: ignore[arg-type]


def test_multipliers_scale_columns() -> None:
    m = np.array([[1.0, 1.0], [0.5, 0.2]])
    scaled = m * multipliers(np.array([0.25, 1.0]), 1.0)
    assert scaled.tolist() == [[0.25, 1.0], [0.125, 0.2]]
