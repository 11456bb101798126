"""``undominated`` (Pareto optimality within a list of payoff vectors): the fast exact
version agrees with the pairwise definition, ties included."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from accord.solvers.game_pareto import pareto_dominates, undominated


def _pairwise(vectors: list[tuple[Fraction, ...]]) -> list[bool]:
    return [not any(pareto_dominates(w, v) for w in vectors) for v in vectors]


@pytest.mark.parametrize("players", [1, 2, 3, 4])
@pytest.mark.parametrize("seed", range(5))
def test_matches_the_pairwise_definition(players: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    vecs = [tuple(Fraction(int(x), int(d)) for x, d in zip(row, dens, strict=True))
            for row, dens in zip(rng.integers(-4, 5, (60, players)),
                                 rng.integers(1, 4, (60, players)), strict=True)]
    assert undominated(vecs) == _pairwise(vecs)


def test_ties_big_numbers_and_empty() -> None:
    assert undominated([]) == []
    tied = [(Fraction(1), Fraction(1))] * 5000  # one distinct vector: nobody dominates
    assert all(undominated(tied))
    big = [(Fraction(10**30), Fraction(0)), (Fraction(10**30), Fraction(1)), (1, 1)]
    assert undominated(big) == [False, True, False]
