import numpy as np
import pytest

from accord.core import AllocationUtility, LinearAdditiveUtility, OutcomeSpace, TableUtility


def test_linear_additive_scalar_matches_vector(laptop):
    buyer = laptop.party("buyer").utility
    vals = buyer.values(laptop.space)
    for i, pkg in enumerate(laptop.space.packages()):
        assert vals[i] == pytest.approx(buyer(pkg))
    assert buyer({"price": 900, "warranty": 2}) == pytest.approx(0.7 * 1.0 + 0.3 * 1.0)
    assert buyer({"price": 1100, "warranty": 1}) == pytest.approx(0.7 * 0.3 + 0.3 * 0.6)


def test_table_utility(laptop):
    seller = laptop.party("seller").utility
    assert seller({"price": 1200, "warranty": 0}) == 1.0
    assert seller({"price": 1100, "warranty": 0}) == 0.8
    assert seller({"price": 900, "warranty": 2}) == 0.0
    vals = seller.values(laptop.space)
    assert sorted(vals)[-2:] == [0.8, 1.0]


def test_allocation_utility_both_sides():
    counts = {"book": 1, "hat": 2, "ball": 3}
    space = AllocationUtility.space_for(counts)
    a = AllocationUtility(counts, {"book": 4, "hat": 0, "ball": 2}, side=0)
    b = AllocationUtility(counts, {"book": 0, "hat": 2, "ball": 2}, side=1)
    pkg = {"book": 1, "hat": 0, "ball": 1}
    assert a(pkg) == 4 + 2
    assert b(pkg) == 2 * 2 + 2 * 2
    va, vb = a.values(space), b.values(space)
    for i, p in enumerate(space.packages()):
        assert va[i] == a(p) and vb[i] == b(p)


def test_utilities_are_immutable(laptop):
    u = laptop.party("buyer").utility
    with pytest.raises(AttributeError, match="immutable"):
        u.weights = {}
    with pytest.raises(TypeError):
        u.weights["price"] = 0.0  # type: ignore[index]
    with pytest.raises(ValueError):
        u.values(laptop.space)[0] = 5.0


def test_table_utility_keys_are_outcome_indices():
    space = OutcomeSpace.from_mapping({"x": [0, 1]})
    t = TableUtility(space, {1: 0.5}, default=0.1)
    assert list(t.values(space)) == [0.1, 0.5]
    lin = LinearAdditiveUtility({"x": 1.0}, {"x": {0: 0.0, 1: 1.0}})
    assert np.allclose(lin.values(space), [0.0, 1.0])
