"""Pure solvers over scenario data: Bayesian beliefs, exact Nash equilibria, dominance,
Pareto optimality, backward induction, perturbations and binary integer programs."""

# -- accord.solvers.bayes: belief over a partner's valuation (seed 003, section 5.2) --
from accord.solvers.bayes import (
    Belief,
    BeliefModel,
    BeliefSpaceTooLarge,
    belief_model,
    expected_partner_utility,
    offer_likelihood,
    p_ef,
    possibly_envy_free,
    rejection_likelihood,
    solve_proposal,
    update,
    valuation_space,
)

__all__ = [
    *globals().get("__all__", []),
    "Belief",
    "BeliefModel",
    "BeliefSpaceTooLarge",
    "belief_model",
    "expected_partner_utility",
    "offer_likelihood",
    "p_ef",
    "possibly_envy_free",
    "rejection_likelihood",
    "solve_proposal",
    "update",
    "valuation_space",
]

# -- classic games (seed 003, sections 3-4 and 6): equilibria, dominance, trees -----------
from accord.solvers.backward_induction import (
    SubgamePerfectEquilibrium,
    canonical_spe,
    count_spe,
    nash_outcomes,
    punishment_values,
    spe_outcomes,
    subgame_perfect_equilibria,
)
from accord.solvers.budget import BudgetExhausted, TimeBudget
from accord.solvers.dominance import (
    Elimination,
    dominance_matrix,
    dominant_action,
    dominated_actions,
    iterated_elimination,
)
from accord.solvers.game_pareto import (
    pareto_optimal_mask,
    pareto_optimal_profiles,
    payoff_dominant_nash,
)
from accord.solvers.game_tree import Decision, Leaf
from accord.solvers.nash import (
    action_values,
    best_response_mask,
    best_responses,
    is_pure_nash,
    pure_nash,
    pure_nash_mask,
    strict_nash_mask,
)
from accord.solvers.nash_mixed import MixedEquilibria, is_mixed_nash, mixed_nash, mixed_nash_within
from accord.solvers.payoff_arrays import exact_array, integer_payoffs, to_fraction
from accord.solvers.perturbation import (
    Perturbation,
    is_ne_invariant,
    nash_invariant_perturbation,
    same_equilibria,
)
from accord.solvers.pivoting import MemoryBudgetError

__all__ = [
    *__all__,
    "Decision",
    "Elimination",
    "Leaf",
    "Perturbation",
    "SubgamePerfectEquilibrium",
    "action_values",
    "best_response_mask",
    "best_responses",
    "canonical_spe",
    "count_spe",
    "dominance_matrix",
    "dominant_action",
    "dominated_actions",
    "exact_array",
    "integer_payoffs",
    "MemoryBudgetError",
    "BudgetExhausted",
    "MixedEquilibria",
    "TimeBudget",
    "is_mixed_nash",
    "is_ne_invariant",
    "is_pure_nash",
    "iterated_elimination",
    "mixed_nash",
    "mixed_nash_within",
    "nash_invariant_perturbation",
    "nash_outcomes",
    "pareto_optimal_mask",
    "pareto_optimal_profiles",
    "payoff_dominant_nash",
    "punishment_values",
    "pure_nash",
    "pure_nash_mask",
    "same_equilibria",
    "spe_outcomes",
    "strict_nash_mask",
    "subgame_perfect_equilibria",
    "to_fraction",
]
