"""A trusted code mediator that sees the utilities and never reveals them (seed 002).

The seed's mediator "surfaces a Pareto-improving package neither agent has proposed".
:class:`ParetoMediator` is built with the scenario (so it is *trusted*: it knows every
party's utility), but what it hands back is only a package and a fixed, generic
rationale: no number, no party's preference, nothing of any party's private signals
reaches a party (the parties' observations never carry it either).

The package is computed exactly over the whole outcome space: among the outcomes that
Pareto-improve on at least one of the parties' latest offers (every party at least as
well off, one strictly better) and that no party has proposed, the Pareto-optimal ones
(:func:`accord.core.pareto.pareto_mask`) are kept; of those it suggests the one whose
smallest gain over a party's BATNA is largest (ties: larger total utility, then the lower
outcome index). When no such package exists it says so in a message and suggests
nothing.
"""

from __future__ import annotations

import numpy as np

from accord.agents.base import Agent
from accord.core.moves import Message, Move, Package, Suggest
from accord.core.pareto import canonical_utilities, pareto_mask
from accord.core.scenario import Scenario
from accord.protocols.base import Observation
from accord.protocols.negotiation import MediatorObservation

RATIONALE = ("a package no party has proposed that leaves every party at least as well "
             "off as one of the latest offers, and at least one party better off")
NOTHING = ("The mediator found no package, beyond those already proposed, that leaves every "
           "party at least as well off as one of the latest offers.")


def pareto_improving_package(scenario: Scenario, latest: list[Package],
                             proposed: set[int], utilities: np.ndarray | None = None
                             ) -> int | None:
    """Outcome index of the suggestion (see the module), or ``None`` if there is none.

    ``utilities`` is the scenario's canonical utility matrix when the caller keeps it.
    """
    space = scenario.space
    u = canonical_utilities(scenario.utility_matrix) if utilities is None else utilities
    if not latest:
        return None
    ref = u[[space.index_of(p) for p in latest]]  # (offers, parties)
    ge: np.ndarray = np.all(u[:, None, :] >= ref[None, :, :], axis=2)
    gt: np.ndarray = np.any(u[:, None, :] > ref[None, :, :], axis=2)
    improving: np.ndarray = np.any(ge & gt, axis=1)
    if proposed:
        improving[np.fromiter(proposed, dtype=np.int64)] = False
    cand = np.flatnonzero(improving)
    if len(cand) == 0:
        return None
    cand = cand[pareto_mask(u[cand])]
    gain = (u[cand] - scenario.batnas[None, :]).min(axis=1)
    total = u[cand].sum(axis=1)
    order = np.lexsort((cand, -total, -gain))
    return int(cand[order[0]])


class ParetoMediator(Agent):
    """Suggests an unproposed package that Pareto-improves on the latest offers."""

    name = "pareto"

    def __init__(self, scenario: Scenario) -> None:
        self._scenario = scenario
        self._u: np.ndarray | None = None  # canonical utilities, computed on first use
        self.reset()

    def describe(self) -> str:
        return "pareto"

    async def act(self, observation: Observation) -> Move:
        obs = observation
        assert isinstance(obs, MediatorObservation) and obs.space is not None
        proposed = {r.index for r in obs.history if r.source != "mediator"}
        if self._u is None:
            self._u = canonical_utilities(self._scenario.utility_matrix)
        pick = pareto_improving_package(self._scenario, list(obs.latest.values()), proposed,
                                        self._u)
        if pick is None:
            return Message(NOTHING)
        return Suggest(obs.space.package(pick), rationale=RATIONALE)
