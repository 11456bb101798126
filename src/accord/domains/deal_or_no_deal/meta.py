"""The meta-game of section 5.6: to adopt the workflow or not.

Each side chooses ``workflow`` or ``raw`` (no workflow). The four pairings' mean payoffs
``(alice, bob)`` form a 2x2 normal-form game (Table 19), solved with the exact game
solvers of :mod:`accord.solvers.nash`: pure and mixed equilibria, dominant strategies, and
which profiles are Pareto-optimal (a prisoner's dilemma shows up as an equilibrium that is
not Pareto-optimal).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from statistics import fmean
from typing import Any

import numpy as np

from accord.solvers.nash import pure_nash
from accord.solvers.nash_mixed import mixed_nash
from accord.solvers.payoff_arrays import to_fraction

STRATEGIES: tuple[str, str] = ("workflow", "raw")
"""The two meta-strategies, in row/column order."""

Profile = tuple[str, str]


def payoff_matrix(payoffs: Mapping[Profile, tuple[Any, Any]],
                  strategies: tuple[str, str] = STRATEGIES) -> np.ndarray:
    """The ``(2, 2, 2)`` exact payoff array from ``{(alice_s, bob_s): (alice, bob)}``.

    Alice picks the row, Bob the column; ``U[r, c, 0]`` is Alice's payoff. All four
    pairings are required. Numbers are kept exact (floats via their decimal repr).
    """
    missing = [(a, b) for a in strategies for b in strategies if (a, b) not in payoffs]
    if missing:
        raise ValueError(f"payoffs missing for pairing(s) {missing}; need all four of "
                         f"{list(strategies)} x {list(strategies)}")
    out = np.empty((2, 2, 2), dtype=object)
    for r, a in enumerate(strategies):
        for c, b in enumerate(strategies):
            pa, pb = payoffs[(a, b)]
            out[r, c, 0], out[r, c, 1] = to_fraction(pa), to_fraction(pb)
    return out


def payoffs_from_episodes(rows: Iterable[tuple[str, str, float, float]]
                          ) -> dict[Profile, tuple[float, float]]:
    """Mean ``(alice, bob)`` scores per pairing from ``(alice_s, bob_s, alice, bob)`` rows."""
    groups: dict[Profile, list[tuple[float, float]]] = {}
    for a, b, sa, sb in rows:
        groups.setdefault((a, b), []).append((float(sa), float(sb)))
    return {k: (fmean(x for x, _ in v), fmean(y for _, y in v)) for k, v in groups.items()}


def _pareto_profiles(u: np.ndarray, strategies: tuple[str, str]) -> list[Profile]:
    cells = [(r, c) for r in range(2) for c in range(2)]
    out = []
    for r, c in cells:
        pa, pb = u[r, c, 0], u[r, c, 1]
        dominated = any(u[x, y, 0] >= pa and u[x, y, 1] >= pb
                        and (u[x, y, 0] > pa or u[x, y, 1] > pb) for x, y in cells)
        if not dominated:
            out.append((strategies[r], strategies[c]))
    return out


def _dominant(u: np.ndarray, player: int, strategies: tuple[str, str]) -> str | None:
    """A strictly dominant strategy of ``player`` (0 = rows, 1 = columns), if any."""
    for s in range(2):
        o = 1 - s
        if player == 0 and all(u[s, c, 0] > u[o, c, 0] for c in range(2)):
            return strategies[s]
        if player == 1 and all(u[r, s, 1] > u[r, o, 1] for r in range(2)):
            return strategies[s]
    return None


@dataclass(frozen=True)
class MetaGameSolution:
    """Equilibria and structure of the workflow-adoption game."""

    matrix: np.ndarray
    pure: list[Profile]
    mixed: list[tuple[tuple[Fraction, ...], tuple[Fraction, ...]]]
    dominant: dict[str, str | None]
    pareto_optimal: list[Profile]
    strategies: tuple[str, str] = STRATEGIES

    @property
    def dilemma(self) -> bool:
        """True when some pure equilibrium is not Pareto-optimal (a prisoner's dilemma)."""
        return any(p not in self.pareto_optimal for p in self.pure)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (payoffs as floats, mixed probabilities as strings)."""
        return {
            "payoffs": {f"{a},{b}": [float(self.matrix[r, c, 0]), float(self.matrix[r, c, 1])]
                        for r, a in enumerate(self.strategies)
                        for c, b in enumerate(self.strategies)},
            "pure_nash": [list(p) for p in self.pure],
            "mixed_nash": [[[str(p) for p in x], [str(q) for q in y]] for x, y in self.mixed],
            "dominant": self.dominant,
            "pareto_optimal": [list(p) for p in self.pareto_optimal],
            "dilemma": self.dilemma,
        }


def solve_meta_game(payoffs: Mapping[Profile, tuple[Any, Any]],
                    strategies: tuple[str, str] = STRATEGIES) -> MetaGameSolution:
    """Build the matrix and solve it (pure and mixed equilibria, dominance, Pareto)."""
    u = payoff_matrix(payoffs, strategies)
    pure = [(strategies[r], strategies[c]) for r, c in pure_nash(u)]
    mixed = mixed_nash(u[..., 0], u[..., 1])
    dominant = {"alice": _dominant(u, 0, strategies), "bob": _dominant(u, 1, strategies)}
    return MetaGameSolution(u, pure, mixed, dominant, _pareto_profiles(u, strategies),
                            strategies)
