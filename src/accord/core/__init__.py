"""Pure data and math: outcomes, utilities, moves, records and analysis.

The face is lazy (PEP 562, :func:`accord._lazy.lazy_exports`): ``from accord.core import
Offer`` imports only the module that defines it, so a light module such as
:mod:`accord.core.names` or :mod:`accord.core.safeload` does not pull in numpy (listings
like ``accord scenarios`` stay cheap).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accord._lazy import lazy_exports

# each name's module is imported on first use (the same names as the imports below)
__getattr__, __dir__ = lazy_exports(__name__, {
    ".fairness": ("envy_free_mask_two_party", "envy_matrix", "is_envy_free"),
    ".moves": ("Accept", "Action", "Assess", "Decide", "Malformed", "Message", "Move", "Offer",
               "Package", "Reject", "Suggest", "Value", "Walk", "move_from_dict"),
    ".outcomes": ("DEFAULT_MAX_OUTCOMES", "Issue", "Outcome", "OutcomeSpace",
                  "OutcomeSpaceTooLarge"),
    ".pareto": ("distance_to_frontier", "pareto_indices", "pareto_mask",
                "pareto_mask_bruteforce"),
    ".scenario": ("Party", "Scenario"),
    ".solutions": ("individually_rational", "kalai_point", "kalai_smorodinsky_point",
                   "max_welfare_point", "nash_point"),
    ".trajectory": ("Event", "Trajectory"),
    ".utility": ("AllocationUtility", "LinearAdditiveUtility", "TableUtility",
                 "UtilityFunction"),
})

if TYPE_CHECKING:
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
