import numpy as np
import pytest

from accord.core import Issue, OutcomeSpace


def test_index_roundtrip_and_grid():
    space = OutcomeSpace.from_mapping({"a": [1, 2, 3], "b": ["x", "y"], "c": [0, 5]})
    assert space.size == 12
    for i in range(space.size):
        pkg = space.package(i)
        assert space.index_of(pkg) == i
        assert tuple(space.grid[i]) == space.value_indices(pkg)
    as_text = space.index_of({"a": "2", "b": "y", "c": 5})
    assert as_text == space.index_of({"a": 2, "b": "y", "c": 5})


def test_sampling_uses_explicit_generator():
    space = OutcomeSpace.from_mapping({"a": list(range(10)), "b": list(range(10))})
    a = space.sample(np.random.default_rng(3), 5)
    b = space.sample(np.random.default_rng(3), 5)
    assert (a == b).all() and a.max() < 100


def test_errors_are_specific():
    with pytest.raises(ValueError, match="duplicate values"):
        Issue("a", (1, 1))
    space = OutcomeSpace.from_mapping({"a": [1, 2]})
    with pytest.raises(KeyError, match="not a value of issue 'a'"):
        space.index_of({"a": 3})
    with pytest.raises(KeyError, match="lacks issue"):
        OutcomeSpace.from_mapping({"a": [1], "b": [2]}).index_of({"a": 1})
    with pytest.raises(KeyError, match="unknown issue"):
        space.index_of({"a": 1, "z": 1})
    with pytest.raises(IndexError):
        space.package(2)


def test_outcome_cap_is_checked_before_any_array_is_allocated() -> None:
    """Issue 12: 10^7 outcomes took 340 s and 10 GB, 10^9 crashed in numpy."""
    import pytest

    from accord.core import DEFAULT_MAX_OUTCOMES, LinearAdditiveUtility, OutcomeSpaceTooLarge

    big = OutcomeSpace.from_mapping({f"i{k}": list(range(10)) for k in range(9)})
    assert big.size == 10**9 and big.max_outcomes == DEFAULT_MAX_OUTCOMES
    with pytest.raises(OutcomeSpaceTooLarge, match="--max-outcomes"):
        _ = big.grid
    with pytest.raises(OutcomeSpaceTooLarge, match="1,000,000,000 outcomes"):
        next(big.packages())
    util = LinearAdditiveUtility({f"i{k}": 1 / 9 for k in range(9)},
                                 {f"i{k}": {v: v / 9 for v in range(10)} for k in range(9)})
    with pytest.raises(OutcomeSpaceTooLarge):
        util.values(big)
    raised = OutcomeSpace.from_mapping({"a": list(range(1000)), "b": list(range(1001))},
                                       max_outcomes=1_001_000)
    assert raised.grid.shape == (1_001_000, 2)
    with pytest.raises(OutcomeSpaceTooLarge, match="cannot be indexed"):
        OutcomeSpace.from_mapping({f"i{k}": list(range(100)) for k in range(12)})


def test_outcome_is_a_read_only_package_that_knows_its_index() -> None:
    """Issue 16: agents that pick outcomes by index offer an Outcome, which a protocol
    accepts without looking every value up again."""
    import copy
    import json
    import pickle

    from accord.core import Outcome

    space = OutcomeSpace.from_mapping({"a": [1, 2, 3], "b": ["x", "y"], "c": [0, 5]})
    for i in range(space.size):
        o = space.outcome(i)
        assert o == space.package(i) and list(o) == list(space.names)
        assert o.index == i and o.space is space and space.owns(o)
        assert space.index_of(o) == i
    o = space.outcome(7)
    for mutate in (lambda: o.__setitem__("a", 1), lambda: o.__delitem__("a"), o.clear,
                   lambda: o.pop("a"), o.popitem, lambda: o.setdefault("z", 1),
                   lambda: o.update(a=1), lambda: o.__ior__({"a": 1})):
        with pytest.raises(TypeError, match="read-only"):
            mutate()
    assert o == space.package(7)
    for copied in (pickle.loads(pickle.dumps(o)), copy.copy(o), copy.deepcopy(o), dict(o)):
        assert type(copied) is dict and copied == o
    assert json.loads(json.dumps(o)) == o
    with pytest.raises(IndexError):
        space.outcome(space.size)
    # made any other way it belongs to no space, and is checked like any package
    loose = Outcome({"a": 9, "b": "x", "c": 0})
    assert loose.space is None and not space.owns(loose) and not space.owns(space.package(7))
    with pytest.raises(KeyError, match="not a value of issue 'a'"):
        space.index_of(loose)
    # another space's outcome is not trusted either
    other = OutcomeSpace.from_mapping({"a": [7, 8, 9], "b": ["x", "y"], "c": [0, 5]})
    assert not space.owns(other.outcome(0))
    with pytest.raises(KeyError, match="not a value of issue 'a'"):
        space.index_of(other.outcome(0))


def test_l1_codes_popcount_is_the_l1_distance_of_value_positions() -> None:
    import numpy as np

    space = OutcomeSpace.from_mapping({"a": list(range(7)), "b": ["x", "y", "z"],
                                       "c": list(range(12))})
    codes = space.l1_codes
    assert codes is not None and codes.dtype == np.uint64 and not codes.flags.writeable
    grid = space.grid.astype(np.int64)
    rng = np.random.default_rng(0)
    for ref in rng.integers(0, space.size, 20):
        want = np.abs(grid - grid[ref]).sum(axis=1)
        assert np.array_equal(np.bitwise_count(codes ^ codes[ref]).astype(np.int64), want)


def test_l1_codes_are_none_beyond_63_bits() -> None:
    import numpy as np

    assert OutcomeSpace.from_mapping({"a": list(range(65))}).l1_codes is None  # 64 bits
    space = OutcomeSpace.from_mapping({"a": list(range(40)), "b": list(range(26))})
    assert space.l1_codes is None  # 39 + 25 = 64 bits
    fits = OutcomeSpace.from_mapping({"a": list(range(40)), "b": list(range(25))})
    codes = fits.l1_codes  # 39 + 24 = 63 bits: the top outcome sets every bit but the last
    assert codes is not None and int(codes[-1]) == (1 << 63) - 1
    assert int(np.bitwise_count(codes[-1] ^ codes[0])) == 39 + 24


def test_l1_codes_are_made_without_the_outcome_grid() -> None:
    """The codes are built by broadcasting each issue's field, not from ``grid`` (which
    a bilateral concession agent never needs): building them leaves the grid unbuilt,
    and they are the grid's unary codes, one field per issue in issue order."""
    space = OutcomeSpace.from_mapping({"a": list(range(5)), "b": ["x", "y"],
                                       "c": list(range(4)), "d": [0]})
    codes = space.l1_codes
    assert codes is not None and "grid" not in vars(space)
    assert codes.shape == (space.size,) and codes.flags.c_contiguous
    want = []
    for row in space.grid.tolist():
        code, offset = 0, 0
        for v, n in zip(row, space.shape, strict=True):
            code |= ((1 << v) - 1) << offset
            offset += n - 1
        want.append(code)
    assert codes.tolist() == want


def test_a_boolean_is_no_value_of_a_numeric_issue():
    """JSON's true/false compare equal to 1/0 in Python; a model's
    ``{"warranty_years": false}`` is still no offer (issues of booleans take them)."""
    space = OutcomeSpace.from_mapping({"warranty": [0, 1, 2], "price": [800, 900]})
    for value in (True, False):
        with pytest.raises(KeyError, match="not a value of issue 'warranty'"):
            space.index_of({"warranty": value, "price": 800})
    assert space.index_of({"warranty": 1, "price": 800}) == 2
    flags = OutcomeSpace.from_mapping({"remote": [False, True]})
    assert flags.index_of({"remote": True}) == 1 and flags.index_of({"remote": "False"}) == 0
