"""Mixed equilibria under a time budget: big games are solved, not refused; a budget that
runs out gives the equilibria found so far, marked incomplete (issues 23 and 24)."""

from __future__ import annotations

import warnings
from fractions import Fraction

import nashpy
import numpy as np
import pytest

from accord.solvers.budget import TimeBudget
from accord.solvers.nash import pure_nash
from accord.solvers.nash_mixed import is_mixed_nash, mixed_nash, mixed_nash_within


def _random_game(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.integers(-10, 11, size=(n, n)), rng.integers(-10, 11, size=(n, n))


def _rounded(eqs: object) -> set[tuple[tuple[float, ...], tuple[float, ...]]]:
    return {(tuple(round(float(p), 9) for p in x), tuple(round(float(q), 9) for q in y))
            for x, y in eqs}  # type: ignore[attr-defined]


class Ticks:
    """A clock that advances one unit per reading: budgets run out after a known number
    of checks, whatever the machine's speed."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.mark.parametrize("seed", [0, 1])
def test_6x6_random_integer_games_match_nashpy(seed: int) -> None:
    a, b = _random_game(seed, 6)
    mine = mixed_nash(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = list(nashpy.Game(a, b).vertex_enumeration())
    assert mine and _rounded(mine) == _rounded(ref)


def test_12x12_random_game_beyond_the_old_guard_is_solved_completely() -> None:
    """The old ``games solve`` guard refused any game with more than 2,000,000 support
    systems (12x12: 2,704,155); vertex enumeration solves it in about two CPU seconds."""
    a, b = _random_game(0, 12)
    res = mixed_nash_within(a, b, TimeBudget(None))
    assert res.complete and len(res.equilibria) == 25
    assert all(is_mixed_nash(a, b, x, y) for x, y in res.equilibria)
    assert any(sum(1 for p in x if p) > 1 for x, _ in res.equilibria)  # truly mixed ones


def test_a_spent_budget_gives_a_partial_answer_marked_as_such() -> None:
    a, b = _random_game(0, 10)
    res = mixed_nash_within(a, b, TimeBudget(0))
    assert res.complete is False
    pure = {(tuple(Fraction(int(k == i)) for k in range(10)),
             tuple(Fraction(int(k == j)) for k in range(10)))
            for i, j in pure_nash(np.stack([a, b], axis=-1))}
    assert pure and pure <= set(res.equilibria)  # the cheap pure equilibria are never lost
    assert set(res.equilibria) < set(mixed_nash(a, b))
    assert all(is_mixed_nash(a, b, x, y) for x, y in res.equilibria)


def test_a_budget_running_out_midway_keeps_what_was_found() -> None:
    a, b = _random_game(1, 10)
    full = set(mixed_nash(a, b))
    # enough readings of the tick clock for the first polytope, not for the second
    res = mixed_nash_within(a, b, TimeBudget(40, Ticks()))
    assert res.complete is False and set(res.equilibria) < full
    assert len(res.equilibria) >= 2  # verified equilibria found before the cut are kept
    again = mixed_nash_within(a, b, TimeBudget(40, Ticks()))
    assert again == res  # a tick clock makes the cut deterministic
    assert mixed_nash_within(a, b, TimeBudget(10**6, Ticks())).complete is True


def test_time_budget_basics() -> None:
    clock = Ticks()
    budget = TimeBudget(3, clock)  # reads 1
    assert budget.remaining() == 2 and not budget.exhausted()  # reads 2, then 3
    assert budget.exhausted()  # reads 4: 3 ticks spent
    assert TimeBudget(None).remaining() is None and not TimeBudget(None).exhausted()
    half = TimeBudget(10, Ticks()).share(0.5)
    assert half.seconds == pytest.approx(4.5)
    with pytest.raises(ValueError, match="cannot be negative"):
        TimeBudget(-1)
