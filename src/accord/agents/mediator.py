"""A simple code mediator: it sees offers only and suggests a package between them."""

from __future__ import annotations

import numpy as np

from accord.agents.base import Agent
from accord.core.moves import Move, Suggest
from accord.protocols.base import Observation
from accord.protocols.negotiation import MediatorObservation


class MidpointMediator(Agent):
    """Suggests, issue by issue, the median value position of the parties' latest offers.

    It never receives utilities (seed 002: a mediator that leaks is worse than none).
    """

    name = "midpoint"

    async def act(self, observation: Observation) -> Move:
        obs = observation
        assert isinstance(obs, MediatorObservation) and obs.space is not None
        latest = list(obs.latest.values())
        package = {}
        for issue in obs.space.issues:
            pos = sorted(issue.index(pkg[issue.name]) for pkg in latest) or [0]
            mid = int(np.floor(np.median(pos)))
            package[issue.name] = issue.values[mid]
        return Suggest(package, rationale="median of the parties' latest offers on each issue")
