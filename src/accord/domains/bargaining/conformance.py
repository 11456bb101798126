"""The conformance kit of alternating offers (:class:`~accord.protocols.kit.ProtocolKit`).

Random legal moves (offers, accepts, rejects with and without counters, messages, walks,
mediator suggestions) and random illegal ones (unknown issues, values outside an issue,
empty suggestions and messages, moves out of phase) for any scenario; privacy is checked
on the parties' utility functions and BATNAs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from accord.core.moves import Accept, Message, Move, Offer, Reject, Suggest, Walk
from accord.core.scenario import Party, Scenario
from accord.core.utility import UtilityFunction
from accord.protocols.alternating import MEDIATOR, AlternatingConfig, AlternatingOffers
from accord.protocols.base import Observation, Protocol
from accord.protocols.engine import EpisodeResult
from accord.protocols.kit import ProtocolKit, reachable
from accord.protocols.negotiation import MediatorObservation, NegotiationObservation


def _package(obs: NegotiationObservation | MediatorObservation,
             rng: np.random.Generator) -> dict[str, Any]:
    assert obs.space is not None
    return obs.space.package(int(rng.integers(obs.space.size)))


def legal_move(obs: Observation, rng: np.random.Generator) -> Move:
    """A random move alternating offers accepts from ``obs``."""
    if isinstance(obs, MediatorObservation):
        return Suggest(_package(obs, rng))
    assert isinstance(obs, NegotiationObservation)
    if rng.random() < 0.02:
        return Walk("conformance")
    if obs.phase == "propose":
        if "message" in obs.legal and rng.random() < 0.2:
            return Message("let us talk")
        return Offer(_package(obs, rng))
    r = rng.random()
    if r < 0.3:
        return Accept()
    if r < 0.7:
        return Reject(counter=Offer(_package(obs, rng)))
    return Reject()


def illegal_move(obs: Observation, rng: np.random.Generator) -> Move:
    """A random move alternating offers must refuse from ``obs``."""
    choice = int(rng.integers(4))
    if choice == 0:
        return Offer({"no_such_issue": 1})
    if choice == 1 and isinstance(obs, NegotiationObservation) and obs.space is not None:
        pkg = _package(obs, rng)
        pkg[obs.space.names[0]] = "not-a-value"
        return Offer(pkg)
    if choice == 2:
        return Suggest({})
    return Message("")


def check_observation(scenario: Scenario, role: str, obs: Observation) -> None:
    """A party's observation holds no Party object, no other utility and only its BATNA."""
    own = scenario.party(role).utility if role != MEDIATOR else None
    for val in reachable(obs):
        if isinstance(val, Party):
            raise AssertionError(f"{role}'s observation holds Party object {val.name!r}")
        if isinstance(val, UtilityFunction) and val is not own:
            owner = next((p.name for p in scenario.parties if p.utility is val), "?")
            raise AssertionError(f"{role}'s observation holds {owner}'s private utility")
    if isinstance(obs, NegotiationObservation) and obs.batna != scenario.party(role).batna:
        raise AssertionError(f"{role}'s observation carries a BATNA that is not its own")


def check_result(scenario: Scenario, res: EpisodeResult) -> None:
    """The record agrees with the scenario: utilities, below-BATNA flags, logged accepts."""
    rec = res.record
    if res.status == "agreement":
        idx = scenario.space.index_of(rec["agreement"])
        for p in scenario.parties:
            u = float(scenario.utility_matrix[idx, scenario.party_names.index(p.name)])
            if abs(rec["utilities"][p.name] - u) > 1e-9:
                raise AssertionError(f"recorded utility of {p.name} disagrees with scenario")
            if rec["accepted_below_batna"][p.name] != (u < p.batna):
                raise AssertionError(f"accepted_below_batna flag wrong for {p.name}")
        if not any(e.move and e.move["kind"] == "accept" for e in res.trajectory.of_kind("move")):
            raise AssertionError("agreement without any logged accept")
    elif res.status == "no_deal":
        if res.reason not in ("walk", "bound_hit", "stagnation", "judge"):
            raise AssertionError(f"unexpected no-deal reason {res.reason!r}")
        if res.reason == "walk" and not any(
                e.move and e.move["kind"] == "walk" for e in res.trajectory.of_kind("move")):
            raise AssertionError("walk recorded without a logged walk move")


def kit(scenario: Scenario, *, max_rounds: int = 12,
        config: AlternatingConfig | None = None) -> ProtocolKit:
    """The kit for alternating offers on ``scenario`` (mediator on in odd episodes)."""

    def make(i: int) -> Protocol[Any]:
        cfg = config or AlternatingConfig(max_rounds=max_rounds, mediator=bool(i % 2),
                                          stagnation_rounds=2 if i % 3 == 0 else 3)
        return AlternatingOffers(scenario, cfg)

    def private(protocol: Protocol[Any], role: str) -> Sequence[object]:
        return () if role == MEDIATOR else (scenario.party(role).utility,)

    return ProtocolKit(
        name=f"alternating-offers/{scenario.name}", make=make, legal=legal_move,
        illegal=illegal_move, private=private,
        check_observation=lambda p, role, obs: check_observation(scenario, role, obs),
        check_result=lambda p, res: check_result(scenario, res),
        max_rounds=config.max_rounds if config else max_rounds,
        roles=lambda p: (*p.parties, *([MEDIATOR] if _mediated(p) else [])))


def _mediated(protocol: Protocol[Any]) -> bool:
    return isinstance(protocol, AlternatingOffers) and protocol.config.mediator


__all__ = ["check_observation", "check_result", "illegal_move", "kit", "legal_move"]
