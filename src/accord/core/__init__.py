"""Pure data and math: outcomes, utilities, moves, records and analysis."""

from accord.core.fairness import envy_free_mask_two_party, envy_matrix, is_envy_free
from accord.core.moves import (
    Accept,
    Action,
    Assess,
    Decide,
    Malformed,
    Message,
    Move,
    Offer,
    Package,
    Reject,
    Suggest,
    Value,
    Walk,
    move_from_dict,
)
from accord.core.outcomes import (
    DEFAULT_MAX_OUTCOMES,
    Issue,
    Outcome,
    OutcomeSpace,
    OutcomeSpaceTooLarge,
)
from accord.core.pareto import (
    distance_to_frontier,
    pareto_indices,
    pareto_mask,
    pareto_mask_bruteforce,
)
from accord.core.scenario import Party, Scenario
from accord.core.solutions import (
    individually_rational,
    kalai_point,
    kalai_smorodinsky_point,
    max_welfare_point,
    nash_point,
)
from accord.core.trajectory import Event, Trajectory
from accord.core.utility import (
    AllocationUtility,
    LinearAdditiveUtility,
    TableUtility,
    UtilityFunction,
)

__all__ = [
    "DEFAULT_MAX_OUTCOMES",
    "Accept",
    "Action",
    "AllocationUtility",
    "Assess",
    "Decide",
    "Event",
    "Issue",
    "LinearAdditiveUtility",
    "Malformed",
    "Message",
    "Move",
    "Offer",
    "Outcome",
    "OutcomeSpace",
    "OutcomeSpaceTooLarge",
    "Package",
    "Party",
    "Reject",
    "Scenario",
    "Suggest",
    "TableUtility",
    "Trajectory",
    "UtilityFunction",
    "Value",
    "Walk",
    "distance_to_frontier",
    "envy_free_mask_two_party",
    "envy_matrix",
    "individually_rational",
    "is_envy_free",
    "kalai_point",
    "kalai_smorodinsky_point",
    "max_welfare_point",
    "move_from_dict",
    "nash_point",
    "pareto_indices",
    "pareto_mask",
    "pareto_mask_bruteforce",
]
