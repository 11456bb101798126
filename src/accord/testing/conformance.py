"""Protocol conformance checks that ship with accord (DESIGN.md principle 9).

:func:`check_protocol` is accord's ``api_test``: any protocol, built in or third-party,
handed over as a :class:`~accord.protocols.kit.ProtocolKit` (or a domain, or a bargaining
scenario), is exercised two ways:

1. **The state machine, step by step.** From every state reached, each role to move is
   observed; a random illegal move must be refused with a reason and feedback, a random
   legal move must be accepted, and the moves are applied. Every observation must belong
   to its role and reach none of another role's private objects.
2. **Whole episodes through the engine** with chaotic agents that mix legal and illegal
   moves: the episode must end within its bounds with a known status, every illegal move
   must be logged as refused (with reason and feedback) and no legal one, the record and
   the summary must be JSON, the trajectory must survive a JSONL round trip, an error
   status must come from exhausted retries, and the same seed must replay the same
   trajectory (determinism).

Raises :class:`ConformanceError` naming the protocol, the episode and the invariant.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from accord.core.moves import Malformed, Move
from accord.core.scenario import Scenario
from accord.core.trajectory import Trajectory
from accord.protocols.agent import Agent
from accord.protocols.base import Invalid, Observation, Protocol
from accord.protocols.engine import Bounds, EpisodeResult, check_move, run_episode
from accord.protocols.kit import ProtocolKit, reachable


class ConformanceError(AssertionError):
    """A protocol invariant was violated; the message says which and where."""


@dataclass
class ConformanceReport:
    """What the check exercised."""

    episodes: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    invalid_moves: int = 0
    observations: int = 0
    steps: int = 0


def _illegal(kit: ProtocolKit, obs: Observation, rng: np.random.Generator) -> Move:
    """A move the protocol must refuse: the kit's own, or an unparseable reply (where the
    kit says one must be refused)."""
    if kit.illegal is not None and (rng.random() < 0.75 or (
            kit.refuses_malformed is not None and not kit.refuses_malformed(obs))):
        return kit.illegal(obs, rng)
    return Malformed("parse_error", "could not parse the reply", raw="garbage")


class ChaosAgent(Agent):
    """Plays the kit's random legal moves and, with probability ``p_illegal``, illegal ones;
    remembers every observation and how many illegal moves it made."""

    name = "chaos"

    def __init__(self, kit: ProtocolKit, p_illegal: float = 0.25) -> None:
        self.kit, self.p_illegal = kit, p_illegal
        self.seen: list[Observation] = []
        self.illegal_sent = 0
        self.reset()

    async def act(self, observation: Observation) -> Move:
        self.seen.append(observation)
        if self.rng.random() < self.p_illegal:
            self.illegal_sent += 1
            return _illegal(self.kit, observation, self.rng)
        return self.kit.legal(observation, self.rng)


def _fail(kit: ProtocolKit, episode: int, problem: str) -> ConformanceError:
    return ConformanceError(f"{kit.name}, episode {episode}: {problem}")


def _check_observation(kit: ProtocolKit, protocol: Protocol[Any], role: str,
                       obs: Observation, episode: int) -> None:
    if obs.role != role:
        raise _fail(kit, episode, f"{role} was handed an observation for {obs.role!r}")
    others = {id(obj): other for other in kit.movers(protocol) if other != role
              for obj in kit.private(protocol, other)}
    if others:
        for val in reachable(obs):
            owner = others.get(id(val))
            if owner is not None:
                raise _fail(kit, episode, f"{role}'s observation reaches {owner}'s private "
                            f"{type(val).__name__}")
    if kit.check_observation is not None:
        try:
            kit.check_observation(protocol, role, obs)
        except AssertionError as exc:
            raise _fail(kit, episode, str(exc)) from None


def _check_refusal(kit: ProtocolKit, verdict: Invalid | None, move: Move, role: str,
                   episode: int) -> None:
    if verdict is None:
        raise _fail(kit, episode, f"illegal move {move.to_dict()} by {role} was accepted")
    if not verdict.reason or not verdict.feedback:
        raise _fail(kit, episode, f"refusal of {move.kind} by {role} lacks reason or feedback")


def walk_state_machine(kit: ProtocolKit, episode: int, rng: np.random.Generator,
                       report: ConformanceReport) -> None:
    """Drive the protocol directly (no engine): refusals, acceptances, observations."""
    protocol = kit.make(episode)
    state = protocol.initial_state()
    last_round = protocol.progress(state).round
    steps = 0
    while protocol.termination(state) is None:
        if protocol.progress(state).round > kit.max_rounds or steps > 50 * kit.max_rounds:
            return  # the engine's bound would end it here
        moves: dict[str, Move] = {}
        for role in protocol.to_move(state):
            obs = protocol.observe(state, role)
            _check_observation(kit, protocol, role, obs, episode)
            report.observations += 1
            bad = _illegal(kit, obs, rng)
            _check_refusal(kit, check_move(protocol, state, role, bad), bad, role, episode)
            good = kit.legal(obs, rng)
            verdict = check_move(protocol, state, role, good)
            if verdict is not None:
                raise _fail(kit, episode, f"legal move {good.to_dict()} by {role} was refused: "
                            f"{verdict.reason}: {verdict.feedback}")
            moves[role] = good
        if not moves:
            raise _fail(kit, episode, "no role to move, yet the episode has not ended")
        state, _notes = protocol.apply(state, moves)
        now = protocol.progress(state).round
        if now < last_round:
            raise _fail(kit, episode, f"round went back from {last_round} to {now}")
        last_round = now
        steps += 1
        report.steps += 1
    termination = protocol.termination(state)
    assert termination is not None
    _json(kit, episode, "the result record", protocol.result(state, termination))
    _json(kit, episode, "the public view", protocol.public_view(state))


def _json(kit: ProtocolKit, episode: int, what: str, value: Any) -> None:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise _fail(kit, episode, f"{what} is not JSON: {exc}") from None


def _events(res: EpisodeResult) -> list[dict[str, Any]]:
    """The trajectory without wall-clock fields (what determinism compares)."""
    out = []
    for ev in res.trajectory:
        d = ev.to_dict()
        d.pop("t", None)
        out.append(d)
    return out


def _play(kit: ProtocolKit, episode: int, seed: int, max_retries: int
          ) -> tuple[Protocol[Any], dict[str, ChaosAgent], EpisodeResult]:
    protocol = kit.make(episode)
    agents: dict[str, ChaosAgent] = {}
    for i, role in enumerate(kit.movers(protocol)):
        agent = ChaosAgent(kit, p_illegal=0.15 + 0.1 * (episode % 3))
        agent.reset(np.random.default_rng([seed, episode, i]))
        agents[role] = agent
    bounds = Bounds(max_rounds=kit.max_rounds, max_retries=max_retries)
    res = asyncio.run(run_episode(protocol, dict(agents), bounds=bounds))
    return protocol, agents, res


def _check_episode(kit: ProtocolKit, episode: int, protocol: Protocol[Any],
                   agents: Mapping[str, ChaosAgent], res: EpisodeResult,
                   max_retries: int) -> None:
    if res.status not in ("agreement", "completed", "no_deal", "error"):
        raise _fail(kit, episode, f"unknown status {res.status!r}")
    if res.rounds > kit.max_rounds:
        raise _fail(kit, episode, f"ran {res.rounds} rounds past the bound {kit.max_rounds}")
    again = Trajectory.from_jsonl(res.trajectory.to_jsonl())
    if [e.to_dict() for e in again] != [e.to_dict() for e in res.trajectory]:
        raise _fail(kit, episode, "the trajectory does not survive a JSONL round trip")
    _json(kit, episode, "the record", res.record)
    _json(kit, episode, "the summary", res.summary())
    refused = res.trajectory.of_kind("invalid")
    for ev in refused:
        if not ev.reason or not ev.feedback:
            raise _fail(kit, episode, "a refused move was logged without reason and feedback")
    sent = sum(a.illegal_sent for a in agents.values())
    if len(refused) != sent:
        raise _fail(kit, episode, f"{sent} illegal moves were made but {len(refused)} were "
                    "logged as refused (a legal move refused or an illegal one accepted)")
    if res.status == "error" and res.reason not in kit.error_reasons:
        crashed = res.trajectory.of_kind("agent_error")
        mine = [e for e in refused if e.party == res.who]
        if len(mine) <= max_retries and not crashed:
            raise _fail(kit, episode, "status error without exceeding the retry limit")
    for role, agent in agents.items():
        for obs in agent.seen:
            _check_observation(kit, protocol, role, obs, episode)
    if kit.check_result is not None:
        try:
            kit.check_result(protocol, res)
        except AssertionError as exc:
            raise _fail(kit, episode, str(exc)) from None


def check_protocol(target: ProtocolKit | Scenario | Any, *, episodes: int = 20, seed: int = 0,
                   max_rounds: int = 12, max_retries: int = 2,
                   config: Any = None) -> ConformanceReport:
    """Check a protocol's invariants; return what was exercised.

    ``target`` is a :class:`ProtocolKit`, a domain with a ``conformance_kit()`` method, or
    a bargaining :class:`~accord.core.scenario.Scenario` (alternating offers, with
    ``max_rounds`` and an optional ``AlternatingConfig`` as ``config``). Raises
    :class:`ConformanceError` on the first violation.
    """
    kit = _kit(target, max_rounds, config)
    report = ConformanceReport()
    rng = np.random.default_rng(seed)
    for ep in range(episodes):
        walk_state_machine(kit, ep, rng, report)
        protocol, agents, res = _play(kit, ep, seed, max_retries)
        _check_episode(kit, ep, protocol, agents, res, max_retries)
        if ep < 3:  # the same seed replays the same episode
            _, _, twin = _play(kit, ep, seed, max_retries)
            if _events(twin) != _events(res):
                raise _fail(kit, ep, "the same seed gave a different trajectory")
        report.observations += sum(len(a.seen) for a in agents.values())
        report.episodes += 1
        report.statuses[res.status] = report.statuses.get(res.status, 0) + 1
        report.invalid_moves += len(res.trajectory.of_kind("invalid"))
    return report


def _kit(target: Any, max_rounds: int, config: Any) -> ProtocolKit:
    if isinstance(target, ProtocolKit):
        return target
    if isinstance(target, Scenario):
        from accord.domains.bargaining.conformance import kit

        return kit(target, max_rounds=max_rounds, config=config)
    make = getattr(target, "conformance_kit", None)
    if make is None:
        raise TypeError(f"check_protocol needs a ProtocolKit, a domain or a scenario, "
                        f"got {type(target).__name__}")
    out = make()
    if out is None:
        raise TypeError(f"domain {getattr(target, 'name', target)!r} ships no conformance kit")
    return out


__all__ = ["ChaosAgent", "ConformanceError", "ConformanceReport", "check_protocol",
           "walk_state_machine"]
