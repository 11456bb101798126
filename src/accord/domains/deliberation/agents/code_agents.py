"""Code agents for offline runs of the deliberation settings.

* :class:`SharingAgent` (kind ``share``) shares its whole observation in structured
  messages (packed to the character limit), estimates the state from everything it has
  heard, solves the ILP on that estimate and proposes the result. It accepts a partner's
  proposal once it has heard everything and the proposal is feasible and as good as its
  own under its estimate (or, in the last round, merely feasible). A leader decides as
  soon as it has heard everything, or in the last round. With tools on, its planning goes
  through the Solver and Calculator tools and their outputs are recorded.
* :class:`NaiveAgent` (kind ``naive``) shares nothing, assumes each unseen ingredient is
  stocked just enough for any one dish, the other guest likes what its own guest likes,
  other agents are like itself
  and its public fragment is the whole public total; it proposes the ILP optimum of that
  guess and accepts any proposal from someone else (a leader decides at once).

Both record their state estimate every turn for HR and NMAE_pub.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from accord.agents.base import Agent
from accord.core.moves import Accept, Decide, Message, Move, Offer
from accord.domains.deliberation.agent_tools import (
    calculator_tool,
    estimate_instance,
    solver_tool,
)
from accord.domains.deliberation.agents.knowledge import (
    estimate,
    gather,
    knows_everything,
    own_facts,
    summarize_proposal,
)
from accord.domains.deliberation.agents.recording import DeliberationRecorder
from accord.domains.deliberation.database import MenuDatabase, load_menu_database
from accord.domains.deliberation.errors import InstanceError
from accord.domains.deliberation.ilp import optimum
from accord.domains.deliberation.protocol import DeliberationObservation
from accord.domains.deliberation.rewards import check_decision, decision_value
from accord.domains.deliberation.share import pack_messages

_EPS = 1e-9


def _package(setting: str, decision: Any) -> dict[str, Any]:
    """A proposal as an Offer package (menus become ``{dish: 1}``)."""
    if setting == "task-allocation":
        return dict(decision)
    return dict.fromkeys(decision, 1)


class _CodeAgent(Agent, DeliberationRecorder):
    """Shared machinery: estimate, plan (ILP, optionally through the tools), record."""

    naive = False

    def __init__(self, db: MenuDatabase | None = None) -> None:
        self._db = db
        self.clear_records()
        self.reset()

    def reset(self, rng: np.random.Generator | None = None) -> None:
        super().reset(rng)
        self.clear_records()

    @property
    def db(self) -> MenuDatabase:
        """The menu database (for the rating model in menu-semantic)."""
        if self._db is None:
            self._db = load_menu_database()
        return self._db

    def _plan(self, obs: DeliberationObservation, est: dict[str, Any]) -> tuple[Any, float]:
        """Best decision and its estimated value for the estimate."""
        if obs.tools:
            out = solver_tool(obs.shared, est)
            self.record_tool(obs.round, out)
            if "decision" in out:
                return out["decision"], float(out["estimated_value"])
        try:
            best = optimum(estimate_instance(obs.shared, est))
        except InstanceError:
            return ([] if obs.setting != "task-allocation" else {}), 0.0
        dec = list(best.decision) if isinstance(best.decision, tuple) else dict(best.decision)
        return dec, best.reward

    def _judge(self, obs: DeliberationObservation, est: dict[str, Any], proposal: Any
               ) -> tuple[bool, float]:
        """Whether ``proposal`` is feasible under the estimate, and its estimated value."""
        if obs.tools:
            out = calculator_tool(obs.shared, est, proposal)
            self.record_tool(obs.round, out)
            info = out.get("proposal", {})
            return bool(info.get("feasible")), float(info.get("estimated_value", 0.0))
        inst = estimate_instance(obs.shared, est)
        feasible = check_decision(inst, proposal).valid
        return feasible, decision_value(inst, proposal) if feasible else 0.0

    def _estimate(self, obs: DeliberationObservation, facts: list[list[Any]]) -> dict[str, Any]:
        est = estimate(obs, facts, self.db if obs.setting == "menu-semantic" else None,
                       naive=self.naive)
        self.record_estimate(obs.round, est)
        return est


class SharingAgent(_CodeAgent):
    """Shares its observation in structured messages and proposes the ILP optimum."""

    name = "share"

    async def act(self, observation: Any) -> Move:
        obs = _check(observation)
        know = gather(obs)
        est = self._estimate(obs, know.facts)
        best, best_value = self._plan(obs, est)
        if obs.mode == "single":
            return Decide(best, "final decision from the merged observation")
        complete = knows_everything(obs, know)
        last_round = obs.round >= obs.max_rounds
        messages = [] if obs.merged else pack_messages(own_facts(obs), obs.max_chars)
        text = (messages[know.own_parts_sent] if know.own_parts_sent < len(messages)
                else summarize_proposal(best, best_value))
        if obs.mode == "leader" and obs.role == obs.leader and (complete or last_round):
            return Decide(best, summarize_proposal(best, best_value))
        if obs.current is not None and obs.current[0] != obs.role and "accept" in obs.legal:
            feasible, value = self._judge(obs, est, obs.current[1])
            good = feasible and value >= best_value - _EPS
            if (complete and good) or (last_round and feasible and obs.mode == "symmetric"):
                return Accept("agreed: the proposal is feasible and optimal on my estimate")
        return Offer(_package(obs.setting, best), text)


class NaiveAgent(_CodeAgent):
    """Shares nothing, plans on its own guess and goes along with any proposal."""

    name = "naive"
    naive = True

    async def act(self, observation: Any) -> Move:
        obs = _check(observation)
        est = self._estimate(obs, [])
        best, value = self._plan(obs, est)
        if obs.mode == "single" or (obs.mode == "leader" and obs.role == obs.leader):
            return Decide(best, summarize_proposal(best, value))
        if "accept" in obs.legal:
            return Accept("fine with me")
        if obs.current is not None and obs.current[0] == obs.role:
            return Message("Waiting for your answer to my proposal.")
        return Offer(_package(obs.setting, best), summarize_proposal(best, value))


def _check(observation: Any) -> DeliberationObservation:
    if not isinstance(observation, DeliberationObservation):
        raise TypeError(f"deliberation agents need a DeliberationObservation, got "
                        f"{type(observation).__name__}")
    return observation
