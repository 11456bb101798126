"""Which equilibrium a rational code agent plays: a documented, deterministic selection rule.

Normal-form games:

1. If there are pure Nash equilibria, the candidates are those; otherwise, for two
   players, the (extreme) mixed equilibria; otherwise (three or more players and no pure
   equilibrium) every player mixes uniformly over the actions that survive iterated
   elimination of strictly dominated actions.
2. Pure candidates in which some player uses a weakly dominated action are dropped when
   others remain (equilibria in undominated strategies, which for two players are the
   trembling-hand perfect ones): in Golden Balls only (steal, steal) is left, since
   steal weakly dominates split.
3. Candidates are ranked by: (a) not Pareto-dominated by another candidate (payoff
   dominance: (stag, stag) before (hare, hare)); (b) higher total payoff; (c) higher
   lowest payoff; (d) the order the solver lists them in (lexicographic in action
   indices, so the first-listed actions win remaining ties; e.g. (opera, opera) in the
   Battle of the Sexes and (wait, go) in Wait-Go).
4. ``tie_break="first"`` takes the top candidate; every rational agent computes the same
   one, so two rational agents coordinate without talking. ``tie_break="random"`` draws
   uniformly among the candidates tied on (a)-(c), using the agent's generator, so
   independent agents can miscoordinate (useful to study what cheap talk adds).

Extensive-form games: the same ranking over the subgame-perfect equilibria (payoffs at
their outcomes), with (d) the order of :func:`~accord.solvers.backward_induction.strategy_key`.
When ties make more than ``spe_limit`` equilibria, the canonical SPE (ties broken towards
the first listed action at every node) is used.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np

from accord.domains.games.model import ExtensiveGame, NormalFormGame
from accord.solvers.backward_induction import (
    SubgamePerfectEquilibrium,
    canonical_spe,
    count_spe,
    subgame_perfect_equilibria,
)
from accord.solvers.dominance import dominated_actions, iterated_elimination
from accord.solvers.game_pareto import undominated
from accord.solvers.nash import pure_nash
from accord.solvers.nash_mixed import mixed_nash

TieBreak = Literal["first", "random"]


@dataclass(frozen=True)
class NormalPlan:
    """The selected strategy profile: one distribution over actions per player.

    ``kind`` is ``pure``, ``mixed`` or ``uniform-undominated`` (the n-player fallback).
    """

    strategies: tuple[tuple[Fraction, ...], ...]
    kind: str

    def pure_profile(self) -> tuple[int, ...] | None:
        """Action indices if every strategy is pure, else ``None``."""
        out = []
        for s in self.strategies:
            if max(s) != 1:
                return None
            out.append(s.index(Fraction(1)))
        return tuple(out)


def rank(payoffs: Sequence[Sequence[Fraction]]) -> list[int]:
    """Candidate indices best first by rules (a)-(d) of the module docstring."""
    keep = undominated(payoffs)
    return sorted(range(len(payoffs)),
                  key=lambda i: (not keep[i], -sum(payoffs[i]), -min(payoffs[i]), i))


def _pick(payoffs: Sequence[Sequence[Fraction]], tie_break: TieBreak,
          rng: np.random.Generator | None) -> int:
    order = rank(payoffs)
    if tie_break == "first" or len(order) == 1:
        return order[0]
    if rng is None:
        raise ValueError("tie_break='random' needs a numpy Generator")
    keep = undominated(payoffs)

    def head(i: int) -> tuple[bool, Fraction, Fraction]:
        return (keep[i], sum(payoffs[i], Fraction(0)), min(payoffs[i]))

    tied = [i for i in order if head(i) == head(order[0])]
    return tied[int(rng.integers(len(tied)))]


def _expected(game: NormalFormGame, x: Sequence[Fraction], y: Sequence[Fraction]
              ) -> tuple[Fraction, ...]:
    total = [Fraction(0), Fraction(0)]
    for i, p in enumerate(x):
        for j, q in enumerate(y):
            if p and q:
                vec = game.payoff((i, j))
                total[0] += p * q * vec[0]
                total[1] += p * q * vec[1]
    return tuple(total)


def _unit(k: int, a: int) -> tuple[Fraction, ...]:
    return tuple(Fraction(int(j == a)) for j in range(k))


def select_normal(game: NormalFormGame, *, tie_break: TieBreak = "first",
                  rng: np.random.Generator | None = None) -> NormalPlan:
    """The strategy profile a rational agent aims for (module docstring rules)."""
    sizes = game.payoffs.shape[:-1]
    eqs = pure_nash(game.payoffs)
    weak = [set(dominated_actions(game.payoffs, i, strict=False)) for i in range(len(sizes))]
    perfect = [e for e in eqs if not any(a in weak[i] for i, a in enumerate(e))]
    eqs = perfect or eqs
    if eqs:
        best = eqs[_pick([game.payoff(e) for e in eqs], tie_break, rng)]
        return NormalPlan(tuple(_unit(k, a) for k, a in zip(sizes, best, strict=True)), "pure")
    if len(game.players) == 2:
        a, b = game.matrices()
        mixed = mixed_nash(a, b)
        if mixed:
            best_m = mixed[_pick([_expected(game, x, y) for x, y in mixed], tie_break, rng)]
            return NormalPlan(best_m, "mixed")
    survivors = iterated_elimination(game.payoffs, strict=True).surviving
    return NormalPlan(tuple(
        tuple(Fraction(1, len(alive)) if j in alive else Fraction(0) for j in range(k))
        for k, alive in zip(sizes, survivors, strict=True)), "uniform-undominated")


def select_spe(game: ExtensiveGame, *, tie_break: TieBreak = "first",
               rng: np.random.Generator | None = None, spe_limit: int = 10_000
               ) -> SubgamePerfectEquilibrium:
    """The subgame-perfect equilibrium a rational agent follows (module docstring rules)."""
    if count_spe(game.tree) > spe_limit:
        return canonical_spe(game.tree)
    spes = subgame_perfect_equilibria(game.tree, limit=spe_limit)
    return spes[_pick([e.payoff for e in spes], tie_break, rng)]
