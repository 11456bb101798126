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
