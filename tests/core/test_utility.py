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


def _near_ties(rng: np.random.Generator, n: int) -> np.ndarray:
    """Values a few ulps apart (closer than the packed keys keep), some exactly equal."""
    base = 0.7 + rng.integers(-6, 6, n) * np.finfo(float).eps
    return np.where(rng.random(n) < 0.05, 0.7, base)


@pytest.mark.parametrize("n", [500, 5000])
@pytest.mark.parametrize("kind", ["distinct", "ties", "nan", "negative", "signed_zeros",
                                  "near_ties", "infinities", "one", "empty"])
def test_ranking_is_the_stable_argsort(kind, n):
    """``ranking``'s order is exactly the stable argsort's (ties in outcome index order),
    and the sorted values are the values in that order: a small table sorted directly, a
    large one as packed integer keys, checked, with the direct sort when the keys cannot
    tell values apart (near ties, NaNs); -0.0 ties 0.0, as in the stable argsort."""
    from accord.core.utility import _stable_ranking

    rng = np.random.default_rng(7)
    values = {"distinct": rng.random(n), "ties": rng.integers(0, 7, n).astype(float),
              "nan": np.where(rng.random(n) < 0.1, np.nan, rng.random(n)),
              "negative": rng.normal(size=n) * 1e3,
              "signed_zeros": np.where(rng.random(n) < 0.5, -0.0, 0.0)
              * (rng.random(n) < 0.8) + (rng.random(n) < 0.2) * rng.normal(size=n),
              "near_ties": _near_ties(rng, n),
              "infinities": np.where(rng.random(n) < 0.1, np.inf, np.where(
                  rng.random(n) < 0.1, -np.inf, rng.normal(size=n))),
              "one": np.array([0.5]), "empty": np.array([])}[kind]
    order, ranked = _stable_ranking(values)
    want = np.argsort(values, kind="stable")
    assert np.array_equal(order, want)
    assert order.dtype == want.dtype
    assert np.array_equal(ranked, values[want], equal_nan=True)


def test_packed_ranking_declines_what_its_keys_cannot_order():
    """The packed sort answers ``None`` (the caller sorts directly) when values closer than
    its truncated keys come out of order, or with NaNs; else the stable order."""
    from accord.core.utility import _packed_ranking

    rng = np.random.default_rng(3)
    assert _packed_ranking(_near_ties(rng, 4096)) is None
    assert _packed_ranking(np.array([0.5, np.nan, 0.25] * 1000)) is None
    values = rng.random(4096)
    got = _packed_ranking(values)
    assert got is not None
    assert np.array_equal(got[0], np.argsort(values, kind="stable"))


def test_values_sum_from_zero_in_issue_order():
    """A linear-additive utility's values are ``((0 + s0) + s1) + ...`` in issue order: a
    sum of negative zeros is 0.0, not -0.0 (as the broadcast sum from zeros gave), and the
    rounding is that of the sums in that order."""
    space = OutcomeSpace.from_mapping({"a": [0, 1], "b": [0, 1], "c": [0, 1]})
    u = LinearAdditiveUtility({"a": -1.0, "b": -1.0, "c": 0.1},
                              {"a": {0: 0.0, 1: 0.1}, "b": {0: 0.0, 1: 0.2},
                               "c": {0: -0.0, 1: 3.0}})
    got = u.values(space)
    assert not np.signbit(got[0])  # (-0.0 + -0.0) + -0.0 would be -0.0
    want = [((0.0 + sa) + sb) + sc for sa in (-0.0, -0.1) for sb in (-0.0, -0.2)
            for sc in (-0.0, 0.30000000000000004)]
    assert got.tolist() == want


def test_ranking_of_a_scenario_with_ties_keeps_index_order():
    space = OutcomeSpace.from_mapping({"a": [0, 1, 2], "b": [0, 1, 2]})
    u = LinearAdditiveUtility({"a": 1.0, "b": 1.0},
                              {"a": {0: 0.0, 1: 1.0, 2: 2.0}, "b": {0: 0.0, 1: 1.0, 2: 2.0}})
    order, ranked = u.ranking(space)
    assert order.tolist() == [0, 1, 3, 2, 4, 6, 5, 7, 8]  # a + b, ties by index
    assert ranked.tolist() == [0, 1, 1, 2, 2, 2, 3, 3, 4]
    assert not order.flags.writeable and not ranked.flags.writeable
