"""A time limit on the HiGHS ILP: a partial answer is feasible and marked not optimal.

The hard program below (190 binary variables, 40 knapsack rows: inside the deliberation
instance caps) runs for minutes without a limit; HiGHS cannot prove it optimal in
10 ms, so the answer must come back unproven. No wall-clock assertion: the check is on
``optimal`` and on feasibility.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from accord.solvers.ilp import max_value_assignment, max_weight_selection, solve_binary_program


def hard_program() -> tuple[list[float], list[list[int]], list[int]]:
    """Values, usage rows and capacities of a hard multi-knapsack (seeded, fixed)."""
    rng = np.random.default_rng(5)
    n, m = 190, 40
    usage = [[0] * n for _ in range(m)]
    for j in range(n):
        for i in rng.choice(m, 12, replace=False):
            usage[int(i)][j] = int(rng.integers(1, 30))
    capacity = [sum(row) // 3 for row in usage]
    values = [round(float(rng.uniform(1, 100)), 2) for _ in range(n)]
    return values, usage, capacity


def test_a_time_limit_returns_a_feasible_unproven_answer() -> None:
    values, usage, capacity = hard_program()
    res = max_weight_selection(values, usage, capacity, time_limit=0.01)
    assert res.optimal is False
    for row, cap in zip(usage, capacity, strict=True):
        assert sum(a * x for a, x in zip(row, res.x, strict=True)) <= cap
    assert math.isclose(res.objective, sum(v for v, x in zip(values, res.x, strict=True) if x))


def test_within_the_limit_the_answer_is_proven_optimal() -> None:
    res = solve_binary_program([3, 2, 2], [[2, 1, 1]], [2], time_limit=30)
    assert res.optimal is True and res.x == (0, 1, 1) and res.objective == 4
    done = max_value_assignment([[1, 2], [3, 1]], [], [[], []], [], [], time_limit=30)
    assert done.optimal is True and done.agent_of == (1, 0)


@pytest.mark.parametrize("bad", [0, -1.0, math.nan, math.inf, "5"])
def test_a_bad_time_limit_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="time limit must be a positive number"):
        solve_binary_program([1], [[1]], [1], time_limit=bad)  # type: ignore[arg-type]
