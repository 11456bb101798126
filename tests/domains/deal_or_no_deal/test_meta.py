"""Meta-game of section 5.6 (Table 19), cross-checked by a brute-force pure-NE search."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from accord.domains.deal_or_no_deal.meta import (
    STRATEGIES,
    payoff_matrix,
    payoffs_from_episodes,
    solve_meta_game,
)

W, R = STRATEGIES
# Table 19 (Opus "not use, not use" from the text: 2.68, 3.02)
TABLE_19 = {
    "sonnet": {(W, W): (5.82, 6.16), (W, R): (4.88, 6.57), (R, W): (6.39, 5.07),
               (R, R): (5.55, 5.57)},
    "gpt-4o": {(W, W): (5.93, 6.25), (W, R): (3.66, 6.18), (R, W): (5.75, 4.14),
               (R, R): (2.80, 4.38)},
    "opus": {(W, W): (5.82, 6.50), (W, R): (5.09, 5.53), (R, W): (4.86, 4.57),
             (R, R): (2.68, 3.02)},
}


def brute_pure_ne(u: np.ndarray) -> list[tuple[str, str]]:
    out = []
    for r, c in itertools.product(range(2), range(2)):
        if u[r, c, 0] >= u[1 - r, c, 0] and u[r, c, 1] >= u[r, 1 - c, 1]:
            out.append((STRATEGIES[r], STRATEGIES[c]))
    return out


@pytest.mark.parametrize("model,want,dilemma", [("sonnet", [(R, R)], True),
                                                 ("gpt-4o", [(W, W)], False),
                                                 ("opus", [(W, W)], False)])
def test_table_19_equilibria(model: str, want: list[tuple[str, str]], dilemma: bool) -> None:
    sol = solve_meta_game(TABLE_19[model])
    assert sol.pure == want == brute_pure_ne(sol.matrix)
    assert sol.dilemma is dilemma
    if model == "sonnet":
        assert sol.dominant == {"alice": R, "bob": R}
        assert (W, W) in sol.pareto_optimal and (R, R) not in sol.pareto_optimal
    if model == "opus":
        assert sol.dominant == {"alice": W, "bob": W}
    d = sol.to_dict()
    assert d["pure_nash"] == [list(p) for p in want] and f"{W},{W}" in d["payoffs"]


def test_matrix_is_exact_and_complete() -> None:
    u = payoff_matrix(TABLE_19["sonnet"])
    assert str(u[0, 0, 0]) == "291/50"  # 5.82 exactly
    with pytest.raises(ValueError, match="missing"):
        payoff_matrix({(W, W): (1, 1)})


def test_payoffs_from_episodes_means() -> None:
    rows = [(W, W, 6, 6), (W, W, 4, 8), (W, R, 3, 7), (R, W, 7, 3), (R, R, 5, 5)]
    pay = payoffs_from_episodes(rows)
    assert pay[(W, W)] == (5.0, 7.0)
    assert solve_meta_game(pay).pure == brute_pure_ne(payoff_matrix(pay))
