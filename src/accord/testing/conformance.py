"""Protocol conformance checks that ship with accord (DESIGN.md principle 9).

:func:`check_protocol` plays random legal and illegal moves against a negotiation
scenario and checks the invariants every user relies on: the episode ends within its
bounds, the record agrees with the trajectory and the scenario, invalid moves are
refused with a reason, and no party ever observes another party's utility or BATNA.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from accord.agents.base import Agent
from accord.core.moves import Accept, Malformed, Message, Move, Offer, Reject, Suggest, Walk
from accord.core.scenario import Party, Scenario
from accord.core.trajectory import Trajectory
from accord.core.utility import UtilityFunction
from accord.protocols.alternating import MEDIATOR, AlternatingConfig, AlternatingOffers
from accord.protocols.base import Observation
from accord.protocols.engine import Bounds, EpisodeResult, run_episode
from accord.protocols.negotiation import MediatorObservation, NegotiationObservation


class ConformanceError(AssertionError):
    """A protocol invariant was violated; the message says which and where."""


@dataclass
class ConformanceReport:
    """What the check exercised."""

    episodes: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    invalid_moves: int = 0
    observations: int = 0


class ChaosAgent(Agent):
    """Plays random legal moves and, with probability ``p_illegal``, illegal ones."""

    name = "chaos"

    def __init__(self, p_illegal: float = 0.25, p_walk: float = 0.02) -> None:
        self.p_illegal, self.p_walk = p_illegal, p_walk
        self.seen: list[Observation] = []
        self.reset()

    def _random_package(self, obs: NegotiationObservation | MediatorObservation) -> dict[str, Any]:
        assert obs.space is not None
        return obs.space.package(int(self.rng.integers(obs.space.size)))

    def _illegal(self, obs: Observation) -> Move:
        choice = int(self.rng.integers(5))
        if choice == 0:
            return Offer({"no_such_issue": 1})
        if choice == 1 and isinstance(obs, NegotiationObservation) and obs.space is not None:
            pkg = self._random_package(obs)
            pkg[obs.space.names[0]] = "not-a-value"
            return Offer(pkg)
        if choice == 2:
            return Malformed("parse_error", "could not parse the reply", raw="garbage")
        if choice == 3:
            return Suggest({})
        return Message("")

    async def act(self, observation: Observation) -> Move:
        self.seen.append(observation)
        obs = observation
        if self.rng.random() < self.p_illegal:
            return self._illegal(obs)
        if isinstance(obs, MediatorObservation):
            return Suggest(self._random_package(obs))
        assert isinstance(obs, NegotiationObservation)
        if self.rng.random() < self.p_walk:
            return Walk("chaos")
        if obs.phase == "propose":
            if "message" in obs.legal and self.rng.random() < 0.2:
                return Message("let us talk")
            return Offer(self._random_package(obs))
        r = self.rng.random()
        if r < 0.3:
            return Accept()
        if r < 0.7:
            return Reject(counter=Offer(self._random_package(obs)))
        return Reject()


def _walk_values(obj: Any, depth: int = 0) -> Iterable[Any]:
    """Every object reachable from an observation's fields (bounded depth)."""
    yield obj
    if depth > 6:
        return
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            yield from _walk_values(getattr(obj, f.name), depth + 1)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _walk_values(k, depth + 1)
            yield from _walk_values(v, depth + 1)
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for v in obj:
            yield from _walk_values(v, depth + 1)


def _check_observation(scenario: Scenario, role: str, obs: Observation) -> None:
    own = scenario.party(role).utility if role != MEDIATOR else None
    for val in _walk_values(obs):
        if isinstance(val, Party):
            raise ConformanceError(f"{role}'s observation holds Party object {val.name!r}")
        if isinstance(val, UtilityFunction) and val is not own:
            owner = next((p.name for p in scenario.parties if p.utility is val), "?")
            raise ConformanceError(f"{role}'s observation holds {owner}'s private utility")
    if isinstance(obs, NegotiationObservation) and obs.batna != scenario.party(role).batna:
        raise ConformanceError(f"{role}'s observation carries a BATNA that is not its own")


def _check_result(scenario: Scenario, res: EpisodeResult, max_rounds: int, retries: int) -> None:
    if res.status not in ("agreement", "no_deal", "error"):
        raise ConformanceError(f"unknown status {res.status!r}")
    if res.rounds > max_rounds:
        raise ConformanceError(f"episode ran {res.rounds} rounds past the cap {max_rounds}")
    again = Trajectory.from_jsonl(res.trajectory.to_jsonl())
    if [e.to_dict() for e in again] != [e.to_dict() for e in res.trajectory]:
        raise ConformanceError("trajectory does not survive a JSONL round trip")
    rec = res.record
    if res.status == "agreement":
        pkg = rec["agreement"]
        idx = scenario.space.index_of(pkg)
        for p in scenario.parties:
            u = float(scenario.utility_matrix[idx, scenario.party_names.index(p.name)])
            if abs(rec["utilities"][p.name] - u) > 1e-9:
                raise ConformanceError(f"recorded utility of {p.name} disagrees with scenario")
            if rec["accepted_below_batna"][p.name] != (u < p.batna):
                raise ConformanceError(f"accepted_below_batna flag wrong for {p.name}")
        accepts = [e for e in res.trajectory.of_kind("move")
                   if e.move and e.move["kind"] == "accept"]
        if not accepts:
            raise ConformanceError("agreement without any logged accept")
    elif res.status == "no_deal":
        if res.reason not in ("walk", "bound_hit", "stagnation", "judge"):
            raise ConformanceError(f"unexpected no-deal reason {res.reason!r}")
        if res.reason == "walk" and not any(
                e.move and e.move["kind"] == "walk" for e in res.trajectory.of_kind("move")):
            raise ConformanceError("walk recorded without a logged walk move")
    else:
        bad = [e for e in res.trajectory.of_kind("invalid") if e.party == res.who]
        crashed = res.trajectory.of_kind("agent_error")
        if len(bad) <= retries and not crashed:
            raise ConformanceError("error status without exceeding the retry limit")
    for ev in res.trajectory.of_kind("invalid"):
        if not ev.reason or not ev.feedback:
            raise ConformanceError("an invalid move was logged without reason and feedback")


def check_protocol(scenario: Scenario, *, episodes: int = 20, seed: int = 0,
                   max_rounds: int = 12, max_retries: int = 2,
                   config: AlternatingConfig | None = None) -> ConformanceReport:
    """Play ``episodes`` chaotic episodes (with and without a mediator) and check invariants.

    Raises :class:`ConformanceError` on the first violation; returns a report otherwise.
    """
    report = ConformanceReport()
    rng = np.random.default_rng(seed)
    for ep in range(episodes):
        cfg = config or AlternatingConfig(max_rounds=max_rounds, mediator=bool(ep % 2),
                                          stagnation_rounds=2 if ep % 3 == 0 else 3)
        protocol = AlternatingOffers(scenario, cfg)
        agents: dict[str, ChaosAgent] = {}
        roles = [*scenario.party_names, *([MEDIATOR] if cfg.mediator else [])]
        for i, role in enumerate(roles):
            a = ChaosAgent(p_illegal=0.15 + 0.1 * (ep % 3), p_walk=0.01 if ep % 4 else 0.0)
            a.reset(np.random.default_rng([seed, ep, i, int(rng.integers(1 << 30))]))
            agents[role] = a
        bounds = Bounds(max_rounds=cfg.max_rounds, max_retries=max_retries)
        res = asyncio.run(run_episode(protocol, dict(agents), bounds=bounds))
        _check_result(scenario, res, cfg.max_rounds, max_retries)
        for role, agent in agents.items():
            for obs in agent.seen:
                _check_observation(scenario, role, obs)
                report.observations += 1
        report.episodes += 1
        report.statuses[res.status] = report.statuses.get(res.status, 0) + 1
        report.invalid_moves += len(res.trajectory.of_kind("invalid"))
    return report
