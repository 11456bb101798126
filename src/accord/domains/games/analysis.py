"""Solve a game model into names: equilibria, Pareto optima, SPE (the ``games solve`` data).

Conventions, the same for both game types:

- Normal form: a *profile* is a tuple of action names in player order. ``pure_nash`` are
  the pure Nash equilibria, ``pareto_optimal`` the Pareto-optimal profiles and
  ``pareto_optimal_nash`` the equilibria that no other equilibrium Pareto-dominates (the
  seed's "Pareto optimal Nash Equilibrium": the only equilibrium of the Prisoner's
  Dilemma counts, since Tables 5-8 score it so). Two-player games add ``mixed_nash``,
  every (extreme) mixed equilibrium, found by vertex enumeration within a time budget:
  ``mixed_complete`` is false when the budget ran out first (the equilibria listed are
  exact and verified, the list may miss some).
- Extensive form: a *profile* is an outcome, the path of action names from the root to a
  leaf. ``pure_nash`` are the outcomes of all pure Nash equilibria (which include
  non-credible threats, e.g. staying out in ``monopoly``), ``pareto_optimal`` the leaves no
  other leaf dominates, ``pareto_optimal_nash`` the equilibrium outcomes no other one
  dominates, and ``spe`` every subgame-perfect equilibrium - or, when ties make them
  more than ``spe_limit`` (a tree of depth 12 with tied payoffs has 2^4095), one of them
  (the canonical one, ties broken towards the first action) with ``spe_complete`` false.

Whatever was cut short says so in ``notes`` (a time limit reached, a part skipped).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from accord.domains.games.load import number_out
from accord.domains.games.model import ExtensiveGame, Game, NormalFormGame
from accord.solvers.backward_induction import (
    SubgamePerfectEquilibrium,
    canonical_spe,
    count_spe,
    nash_outcomes,
    subgame_perfect_equilibria,
)
from accord.solvers.budget import BudgetExhausted, TimeBudget
from accord.solvers.game_pareto import pareto_optimal_profiles, undominated
from accord.solvers.game_tree import Path, leaves
from accord.solvers.nash import pure_nash
from accord.solvers.nash_mixed import MemoryBudgetError, mixed_nash_within

Names = tuple[str, ...]



@dataclass(frozen=True)
class Solution:
    """Everything ``games solve`` reports about one game (see the module docstring)."""

    type: str
    pure_nash: list[Names]
    pareto_optimal: list[Names] | None
    pareto_optimal_nash: list[Names]
    mixed_nash: list[tuple[dict[str, Fraction], ...]] | None = None
    spe: list[SubgamePerfectEquilibrium] | None = None
    mixed_skipped: str | None = None
    #: ``False`` when the time budget ran out before every mixed equilibrium was found
    mixed_complete: bool | None = None
    #: ``False`` when there were more subgame-perfect equilibria than the limit (one listed)
    spe_complete: bool | None = None
    #: sentences for people about any part cut short or skipped
    notes: tuple[str, ...] = ()


def _solve_normal(game: NormalFormGame, mixed: bool, budget: TimeBudget | None) -> Solution:
    eqs = pure_nash(game.payoffs)
    vecs = [game.payoff(e) for e in eqs]
    pone = [e for e, keep in zip(eqs, undominated(vecs), strict=True) if keep]
    mixed_out: list[tuple[dict[str, Fraction], ...]] | None = None
    skipped = None
    complete = None
    if len(game.players) == 2 and mixed:
        a, b = game.matrices()
        try:
            res = mixed_nash_within(a, b, budget)
        except MemoryBudgetError as exc:
            skipped = f"mixed equilibria skipped: {exc}"
        else:
            complete = res.complete
            mixed_out = [tuple({act: p for act, p in zip(game.actions[i], strat, strict=True)}
                               for i, strat in enumerate(eq)) for eq in res.equilibria]
    notes = [skipped] if skipped else []
    try:
        po: list[Names] | None = [game.profile_names(p)
                                  for p in pareto_optimal_profiles(game.payoffs, budget)]
    except BudgetExhausted as exc:
        po = None
        notes.append(f"Pareto-optimal profiles skipped: {exc}")
    return Solution("normal", [game.profile_names(e) for e in eqs], po,
                    [game.profile_names(e) for e in pone], mixed_out, None, skipped,
                    complete, None, tuple(notes))


def _solve_extensive(game: ExtensiveGame, spe_limit: int) -> Solution:
    all_leaves = leaves(game.tree)
    po = [p for (p, leaf), keep in zip(all_leaves, undominated([lf.payoff for _, lf in
                                                                 all_leaves]), strict=True)
          if keep]
    outcomes = nash_outcomes(game.tree, len(game.players))
    pone = [p for (p, _), keep in zip(outcomes, undominated([v for _, v in outcomes]),
                                      strict=True) if keep]
    total = count_spe(game.tree)  # counted per payoff class: cheap even when astronomical
    notes: tuple[str, ...] = ()
    if total > spe_limit:
        spe = [canonical_spe(game.tree)]
        digits = len(str(total))
        size = f"{total:,}" if digits <= 15 else f"about 10^{digits - 1}"
        notes = (f"the tree has {size} subgame-perfect equilibria (ties), more than the limit "
                 f"of {spe_limit:,}: one is listed, the canonical one (ties broken towards "
                 "the first action)",)
    else:
        spe = subgame_perfect_equilibria(game.tree, limit=spe_limit)
    return Solution("extensive", [p for p, _ in outcomes], po, pone, None, spe,
                    spe_complete=total <= spe_limit, notes=notes)


def solve_game(game: Game, *, mixed: bool = True, spe_limit: int = 100_000,
               budget: TimeBudget | None = None) -> Solution:
    """Equilibria and Pareto optima of ``game`` with action names (exact).

    ``budget`` bounds the time spent on mixed equilibria and on Pareto optimality among
    many players (``None``: no bound); see :attr:`Solution.mixed_complete` and
    :attr:`Solution.notes`.
    """
    if isinstance(game, NormalFormGame):
        return _solve_normal(game, mixed, budget)
    return _solve_extensive(game, spe_limit)


def node_key(path: Path) -> str:
    """A readable key for a decision node: ``/`` for the root, ``/choice_2/choice_1`` below."""
    return "/" + "/".join(path)


def solution_json(solution: Solution) -> dict[str, Any]:
    """The JSON object of ``games solve --json``."""
    out: dict[str, Any] = {
        "type": solution.type,
        "pure_nash": [list(p) for p in solution.pure_nash],
        "pareto_optimal": (None if solution.pareto_optimal is None
                           else [list(p) for p in solution.pareto_optimal]),
        "pareto_optimal_nash": [list(p) for p in solution.pareto_optimal_nash],
    }
    if solution.type == "normal" and (solution.mixed_nash is not None
                                      or solution.mixed_skipped):
        out["mixed_nash"] = (None if solution.mixed_nash is None else
                             [[{a: float(p) for a, p in strat.items()} for strat in eq]
                              for eq in solution.mixed_nash])
        out["mixed_complete"] = solution.mixed_complete
    if solution.spe is not None:
        out["spe"] = [{"path": list(e.path), "payoff": [number_out(v) for v in e.payoff],
                       "strategy": {node_key(p): a for p, a in e.strategy.items()}}
                      for e in solution.spe]
        out["spe_complete"] = solution.spe_complete
    if solution.notes:
        out["notes"] = list(solution.notes)
    return out
