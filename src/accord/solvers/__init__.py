"""accord.solvers."""

# -- accord.solvers.bayes: belief over a partner's valuation (seed 003, section 5.2) --
from accord.solvers.bayes import (
    Belief,
    BeliefModel,
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
