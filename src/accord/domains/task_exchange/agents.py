"""Code-executed task-exchange agents, so the domain runs offline.

:class:`UtilityAwareAgent` follows the utility-aware strategy in code: it only proposes
splits that raise (or keep) its own utility over its original task, concedes over time
towards that reservation level, and among the splits it can live with proposes the one
its partner model rates highest. The partner model (per-atomic-task weights) learns from
what the partner proposes and from which of its own proposals the partner rejects, and
rejected splits are not proposed again while alternatives remain. With the partner model
switched off it becomes the ``selfish`` agent: unilateral gains, minimal compromise.
"""

from __future__ import annotations

import numpy as np

from accord.agents.base import Agent
from accord.core.moves import Accept, Message, Move, Offer, Reject
from accord.domains.task_exchange.masks import bits_of
from accord.domains.task_exchange.protocol import HistoryEntry, TaskExchangeObservation
from accord.domains.task_exchange.scenario import PrivateView
from accord.protocols.base import Observation


class UtilityAwareAgent(Agent):
    """Time-dependent concession over own utility plus a learned model of the partner.

    ``e`` shapes the concession (``target = u_max - (u_max - u_0) * tau ** (1 / e)``, tau
    the share of the proposal turns used; e < 1 concedes late). ``eta`` is the learning
    rate of the partner model. ``partner_model=False`` ignores the partner entirely.
    """

    name = "utility-aware"

    def __init__(self, e: float = 0.5, eta: float = 0.3, partner_model: bool = True) -> None:
        if e <= 0:
            raise ValueError(f"e must be positive, got {e}")
        if not 0 < eta <= 1:
            raise ValueError(f"eta must be in (0, 1], got {eta}")
        self.e = float(e)
        self.eta = float(eta)
        self.partner_model = partner_model
        if not partner_model:
            self.name = "selfish"
        self.reset()

    def reset(self, rng: np.random.Generator | None = None) -> None:
        super().reset(rng)
        self._view: PrivateView | None = None
        self._u: list[float] = []
        self._w = np.full(0, 0.5)
        self._rejected: set[int] = set()
        self._offered: set[int] = set()
        self._seen = 0
        self._pending: int | None = None

    # -- learning ------------------------------------------------------------------------

    def _setup(self, view: PrivateView) -> None:
        self._view = view
        self._u = [float(x) for x in view.utilities]
        self._w = np.full(view.universe.n, 0.5)

    def _split(self, entry: HistoryEntry) -> tuple[int, int] | None:
        """(my mask, partner mask) of a history proposal, if it is a clean listed split."""
        view = self._view
        assert view is not None
        if entry.proposal is None:
            return None
        masks = {}
        for role in (view.role, view.partner):
            descs = entry.proposal.get(role, ())
            mask = view.universe.mask_of(descs[0]) if len(descs) == 1 else None
            if mask is None:
                return None
            masks[role] = mask
        return masks[view.role], masks[view.partner]

    def _nudge(self, mask: int, up: bool, rate: float) -> None:
        for i in bits_of(mask):
            self._w[i] += rate * (1 - self._w[i]) if up else -rate * self._w[i]

    def _learn(self, history: tuple[HistoryEntry, ...]) -> None:
        view = self._view
        assert view is not None
        partner_initial = view.initial[view.partner]
        for entry in history[self._seen:]:
            if entry.speaker == view.role:
                split = self._split(entry)
                self._pending = split[0] if split else None
                continue
            if self._pending is not None and entry.kind != "accept":
                mine = self._pending
                self._rejected.add(mine)
                if self.partner_model:  # it did not want what I added, and wanted what I took
                    self._nudge((view.universe.full ^ mine) & ~partner_initial, False, self.eta / 2)
                    self._nudge(mine & partner_initial, True, self.eta / 2)
            self._pending = None
            split = self._split(entry)
            if split is not None:
                mine, theirs = split
                self._offered.add(mine)
                if self.partner_model:
                    self._nudge(theirs, True, self.eta)
                    self._nudge(mine, False, self.eta)
        self._seen = len(history)

    # -- deciding ------------------------------------------------------------------------

    def estimate(self, partner_mask: int) -> float:
        """Estimated partner utility for holding ``partner_mask`` (0.5 max + 0.5 mean weight)."""
        w = [self._w[i] for i in bits_of(partner_mask)]
        return 0.5 * max(w) + 0.5 * float(np.mean(w)) if w else 0.0

    def _target(self, turn: int, limit: int) -> float:
        view = self._view
        assert view is not None
        u0 = self._u[view.own_initial]
        top = max(self._u[m] for m in range(1, view.universe.full))
        tau = min(max((turn - 2) / max(limit - 2, 1), 0.0), 1.0)
        return top - (top - u0) * tau ** (1 / self.e)

    def plan(self, turn: int, limit: int) -> int:
        """The mask this agent would propose to keep at ``turn``."""
        view = self._view
        assert view is not None
        full = view.universe.full
        u0 = self._u[view.own_initial]
        target = max(self._target(turn, limit), u0)
        ok = [m for m in range(1, full) if self._u[m] >= target - 1e-12]
        fresh = [m for m in ok if m not in self._rejected] or ok
        order = self.rng.permutation(len(fresh))

        def score(k: int) -> tuple[float, float]:
            m = fresh[k]
            if not self.partner_model:
                return (self._u[m], 0.0)
            est = 1.0 if m in self._offered else self.estimate(full ^ m)
            return (est, self._u[m])

        return fresh[max(order, key=lambda k: score(int(k)))]

    def _offer(self, mine: int) -> Offer:
        view = self._view
        assert view is not None
        uni = view.universe
        return Offer({view.role: uni.description(mine),
                      view.partner: uni.description(uni.full ^ mine)})

    async def act(self, observation: Observation) -> Move:
        if not isinstance(observation, TaskExchangeObservation) or observation.view is None:
            raise TypeError(f"{self.name} agent plays task-exchange only")
        obs = observation
        if self._view is None:
            self._setup(obs.view)  # type: ignore[arg-type]
        self._learn(obs.history)
        if obs.phase == "consider":
            return Message("")
        view = self._view
        assert view is not None
        u0 = self._u[view.own_initial]
        if obs.phase == "respond" and obs.table is not None:
            descs = obs.table.get(view.role, ())
            mine = view.universe.mask_of(descs[0]) if len(descs) == 1 else None
            got = self._u[mine] if mine is not None else -1.0
            if obs.final_response:
                return Accept() if got >= u0 else Reject()
            plan = self.plan(obs.turn, obs.turn_limit)
            if got >= self._u[plan] and got >= u0:
                return Accept()
            return Reject(counter=self._offer(plan))
        return self._offer(self.plan(obs.turn, obs.turn_limit))


def selfish_agent(e: float = 0.3) -> UtilityAwareAgent:
    """The ``selfish`` agent: concedes on its own utility only and ignores its partner."""
    return UtilityAwareAgent(e=e, partner_model=False)


__all__ = ["UtilityAwareAgent", "selfish_agent"]
