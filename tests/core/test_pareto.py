"""Known-value tests: the frontier equals brute force on random scenarios of 2-4 parties."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.core import (
    LinearAdditiveUtility,
    OutcomeSpace,
    distance_to_frontier,
    pareto_mask,
    pareto_mask_bruteforce,
)


@st.composite
def scenarios(draw):
    n_issues = draw(st.integers(1, 3))
    sizes = [draw(st.integers(1, 5)) for _ in range(n_issues)]
    space = OutcomeSpace.from_mapping({f"i{k}": list(range(s)) for k, s in enumerate(sizes)})
    parties = draw(st.integers(2, 4))
    cols = []
    for _ in range(parties):
        weights = {f"i{k}": draw(st.sampled_from([0.0, 0.25, 0.5, 1.0])) for k in range(n_issues)}
        scores = {f"i{k}": {v: float(draw(st.integers(0, 3))) for v in range(s)}
                  for k, s in enumerate(sizes)}
        cols.append(LinearAdditiveUtility(weights, scores).values(space))
    return np.stack(cols, axis=1)


@settings(max_examples=150, deadline=None)
@given(scenarios())
def test_frontier_equals_bruteforce(u):
    assert (pareto_mask(u) == pareto_mask_bruteforce(u)).all()


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 300), st.integers(2, 5), st.integers(0, 10_000))
def test_frontier_with_many_ties(n, k, seed):
    u = np.random.default_rng(seed).integers(0, 4, size=(n, k)).astype(float)
    assert (pareto_mask(u) == pareto_mask_bruteforce(u)).all()


def test_duplicates_all_kept():
    u = np.array([[1.0, 1.0], [1.0, 1.0], [0.5, 0.5], [2.0, 0.0]])
    assert pareto_mask(u).tolist() == [True, True, False, True]


def test_distance_to_frontier():
    front = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert distance_to_frontier(np.array([0.0, 0.0]), front) == 1.0
    assert distance_to_frontier(np.array([1.0, 0.0]), front) == 0.0
    assert abs(distance_to_frontier(np.array([0.6, 0.6]), front) - np.hypot(0.4, 0.6)) < 1e-12


def _exact_utilities(scenario):
    """Every party's utility of every outcome in exact decimal arithmetic."""
    from fractions import Fraction

    rows = []
    for pkg in scenario.space.packages():
        row = []
        for party in scenario.parties:
            u = party.utility
            row.append(sum(Fraction(str(u.weights[i])) * Fraction(str(u.scores[i][pkg[i]]))
                           for i in u.weights))
        rows.append(row)
    return rows


def test_frontier_is_exact_with_decimal_scores():
    """Float sums of decimal scores (0.1 + 0.2 != 0.3) must not let dominated packages in."""
    from accord.domains.bargaining import builtin_scenarios, resolve_scenario

    for name in builtin_scenarios():
        scenario = resolve_scenario(name)
        exact = _exact_utilities(scenario)
        n = len(exact)
        dominated = [any(all(a >= b for a, b in zip(exact[j], exact[i], strict=True)) and
                         exact[j] != exact[i] for j in range(n)) for i in range(n)]
        expected = [not d for d in dominated]
        assert pareto_mask(scenario.utility_matrix).tolist() == expected, name
    assert pareto_mask(np.array([[0.1 + 0.2, 0.5], [0.3, 0.5]])).tolist() == [True, True]


@settings(max_examples=30, deadline=None)
@given(st.integers(8192, 40_000), st.integers(2, 60), st.integers(0, 10_000))
def test_two_party_prefilter_is_exact(n, levels, seed):
    """From 4,096 outcomes two parties take the sample pre-filter: it must keep exactly the
    one-sort frontier, ties included (few utility levels make many ties)."""
    from accord.core.pareto import _pareto_2d_exact

    rng = np.random.default_rng(seed)
    u = rng.integers(0, levels, size=(n, 2)).astype(float)
    u[rng.integers(0, n, 5)] = u.max(axis=0)  # copies of the ideal point, if it is one
    expected = _pareto_2d_exact(np.ascontiguousarray(u[:, 0]), np.ascontiguousarray(u[:, 1]))
    assert (pareto_mask(u) == expected).all()
    # the exact sort itself against brute force on a slice
    small = u[:400]
    assert (pareto_mask(small) == pareto_mask_bruteforce(small)).all()
