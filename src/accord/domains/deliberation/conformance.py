"""The conformance kit of deliberation (:class:`~accord.protocols.kit.ProtocolKit`).

Episodes cycle through the three settings (menu design with numeric or semantic guests:
symmetric termination; task allocation: a leader decides) and the three episode modes
(``deliberation`` under partial observability, the ``centralized`` single-decision
baseline, the ``oracle`` baseline with merged observations), on shipped instances, with
round limits of 1 to 6 and a message limit of 40 or 1000 characters; the protocol is
built by the domain's own :func:`~accord.domains.deliberation.domain.build_protocol`.

Random legal moves: proposals of any shape the protocol reads (a menu as ``{dish: 0/1}``
or a list of dishes; an allocation as ``{task: agent}``, with tasks left unassigned, or
``{agent: [tasks]}``), messages of any non-empty length (overlong ones are cut, not
refused), accepting another party's proposal on the table, and the final decision where
the mode allows it (the leader; the single centralized agent). Random illegal moves:
proposals naming unknown dishes, tasks or agents, a dish twice, a task given to two
agents, flags that are not 0/1, a menu written as one string; accepting with no other
party's proposal on the table; deciding as a worker or in symmetric mode; anything but a
decision in single mode; empty messages; move kinds deliberation does not know.

Privacy (seed 001, partial observability): in ``deliberation`` mode each agent's private
observation (its ingredients, guest scores or personas, private resources, efficiencies)
is private to it - every container reachable from it that no other agent's observation or
the shared instance information also holds. Under the merged baselines everyone sees the
team's whole observation by design, so only each role's own observation object is
guarded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from accord.core.moves import Accept, Action, Decide, Message, Move, Offer, Reject, Walk
from accord.domains.deliberation.catalog import instance_count, shipped_instance
from accord.domains.deliberation.domain import MODES, build_protocol
from accord.domains.deliberation.load import SETTINGS
from accord.domains.deliberation.protocol import (
    DeliberationObservation,
    DeliberationProtocol,
)
from accord.protocols.base import Observation, Protocol
from accord.protocols.engine import EpisodeResult
from accord.protocols.kit import ProtocolKit, observation_check, reachable, result_check

ROUND_LIMITS = (1, 2, 3, 6)
"""Round limits the episodes cycle through (6 is the paper's)."""

CHAR_LIMITS = (40, 1000)
"""Message limits the episodes alternate between (40 makes truncation common)."""

WORDS = ("I", "see", "tomato", "basil", "guests", "like", "task", "lead", "we", "propose")


def _text(rng: np.random.Generator) -> str:
    return " ".join(str(w) for w in rng.choice(WORDS, size=int(rng.choice((1, 6, 60)))))


def _is_task(obs: DeliberationObservation) -> bool:
    return obs.setting == "task-allocation"


def _proposal(obs: DeliberationObservation, rng: np.random.Generator) -> Any:
    """A well-formed proposal in any of the shapes the protocol reads."""
    shared = obs.shared
    if _is_task(obs):
        tasks, agents = list(shared["tasks"]), list(shared["agents"])
        pick = [str(t) for t in tasks if rng.random() < 0.8]
        if rng.random() < 0.3:  # {agent: [tasks]}
            out: dict[str, list[str]] = {a: [] for a in agents}
            for t in pick:
                out[str(rng.choice(agents))].append(t)
            return out
        alloc: dict[str, Any] = {t: str(rng.choice(agents)) for t in pick}
        if tasks and rng.random() < 0.2:
            alloc[str(tasks[0])] = str(rng.choice(("none", "unassigned")))
        return alloc
    dishes = [str(d) for d in shared["dishes"]]
    chosen = [d for d in dishes if rng.random() < 0.4]
    if rng.random() < 0.5:
        return chosen
    return {d: int(d in chosen) for d in dishes}


def _package(obs: DeliberationObservation, rng: np.random.Generator) -> dict[str, Any]:
    """A well-formed proposal that is a mapping (what an :class:`Offer` carries)."""
    raw = _proposal(obs, rng)
    while not isinstance(raw, dict) or any(isinstance(v, list) for v in raw.values()):
        if isinstance(raw, list):
            return {d: int(d in raw) for d in obs.shared["dishes"]}
        raw = _proposal(obs, rng)
    return raw


def legal_move(obs: Observation, rng: np.random.Generator) -> Move:
    """A random move deliberation accepts from ``obs``."""
    assert isinstance(obs, DeliberationObservation)
    note = None if rng.random() < 0.3 else _text(rng)
    if obs.legal == ("decide",):
        return Decide(_proposal(obs, rng), note)
    r = rng.random()
    if "accept" in obs.legal and r < 0.25:
        return Accept(note)
    if "decide" in obs.legal and r < 0.35:
        return Decide(_proposal(obs, rng), note)
    if r < 0.7:
        return Offer(_package(obs, rng), note)
    return Message(_text(rng))


def _bad_proposal(obs: DeliberationObservation, rng: np.random.Generator) -> Any:
    shared = obs.shared
    flaw = int(rng.integers(3))
    if _is_task(obs):
        tasks, agents = [str(t) for t in shared["tasks"]], [str(a) for a in shared["agents"]]
        if flaw == 0:
            return {"no_such_task": agents[0]}
        if flaw == 1:
            return {tasks[0]: "no_such_agent"}
        return {agents[0]: [tasks[0]], agents[-1]: [tasks[0]]} if len(agents) > 1 \
            else [tasks[0]]
    dishes = [str(d) for d in shared["dishes"]]
    if flaw == 0:
        return ["no_such_dish", *dishes[:1]]
    if flaw == 1:
        return [dishes[0], dishes[0]] if rng.random() < 0.5 else {dishes[0]: 2}
    return dishes[0]


def illegal_move(obs: Observation, rng: np.random.Generator) -> Move:
    """A random move deliberation must refuse from ``obs``."""
    assert isinstance(obs, DeliberationObservation)
    choice = int(rng.integers(4))
    if obs.legal == ("decide",):
        options: tuple[Move, ...] = (Decide(_bad_proposal(obs, rng)), Message(_text(rng)),
                                     Offer(_package(obs, rng)), Accept())
        return options[choice]
    if choice == 0:
        bad = _bad_proposal(obs, rng)
        return Offer(bad) if isinstance(bad, dict) and not any(
            isinstance(v, list) for v in bad.values()) else Decide(bad)
    if choice == 1:
        if "decide" not in obs.legal:
            return Decide(_proposal(obs, rng))
        return Accept() if "accept" not in obs.legal else Message(str(rng.choice(("", " "))))
    if choice == 2:
        return Accept() if "accept" not in obs.legal else Message("")
    return (Walk("bye"), Reject(), Action("propose"))[int(rng.integers(3))]


def check_observation(protocol: DeliberationProtocol, role: str, obs: Observation) -> None:
    """A role sees the shared information, its own observation and the public dialog."""
    assert isinstance(obs, DeliberationObservation), f"{role} got {type(obs).__name__}"
    if obs.private is not protocol.private[role]:
        raise AssertionError(f"{role} is not handed its own private observation")
    if obs.shared is not protocol.shared:
        raise AssertionError(f"{role} is handed other shared information")
    if obs.merged != protocol.merged:
        raise AssertionError(f"{role} is told merged={obs.merged} in a merged="
                             f"{protocol.merged} episode")
    if ("accept" in obs.legal) != (obs.current is not None and obs.current[0] != role
                                   and protocol.mode != "single"):
        raise AssertionError(f"{role} may accept exactly when another's proposal is on the "
                             "table")
    if any(len(u.text) > protocol.max_chars for u in obs.dialog):
        raise AssertionError(f"{role} sees an utterance longer than {protocol.max_chars}")


def check_result(protocol: DeliberationProtocol, res: EpisodeResult) -> None:
    """Decisions are well-formed and made by someone allowed to; the dialog is bounded."""
    rec = res.record
    if len(rec["dialog"]) > protocol.max_rounds * len(protocol.parties):
        raise AssertionError("more utterances than the round limit allows")
    if res.status == "agreement":
        _, problem = protocol.normalize(rec["decision"])
        if problem is not None:
            raise AssertionError(f"the decision is not well-formed: {problem}")
        if protocol.mode == "leader" and rec["decided_by"] != protocol.leader:
            raise AssertionError(f"{rec['decided_by']} decided, not the leader")
        if protocol.mode == "symmetric":
            last = rec["dialog"][-1]
            if last["kind"] != "accept" or last["proposal"] != rec["decision"]:
                raise AssertionError("a symmetric decision must be the accepted proposal")
    elif res.status == "no_deal":
        if rec["decision"] is not None:
            raise AssertionError("no decision, yet one was recorded")
        if res.reason not in ("max_rounds", "bound_hit"):
            raise AssertionError(f"unexpected no-decision reason {res.reason!r}")


def _exclusive(protocol: DeliberationProtocol, role: str) -> list[object]:
    """Containers reachable from ``role``'s observation and from nothing anyone else sees."""
    others = {id(v) for v in reachable(protocol.shared)}
    for other in protocol.parties:
        if other != role:
            others.update(id(v) for v in reachable(protocol.private[other]))
    return [v for v in reachable(protocol.private[role])
            if isinstance(v, dict | list) and id(v) not in others]


def kit(instances: int = 6) -> ProtocolKit:
    """The kit for deliberation on the first ``instances`` shipped instances of each
    setting, cycling settings, modes, round and message limits with the episode."""
    if instances < 1:
        raise ValueError("the deliberation kit needs at least one instance per setting")

    def make(i: int) -> Protocol[Any]:
        setting = SETTINGS[i % len(SETTINGS)]
        mode = MODES[(i // len(SETTINGS)) % len(MODES)]
        inst = shipped_instance(setting, (i // 9) % min(instances, instance_count(setting)))
        return build_protocol(inst, mode, {"max_rounds": ROUND_LIMITS[i % len(ROUND_LIMITS)],
                                           "max_chars": CHAR_LIMITS[i % len(CHAR_LIMITS)]})

    def private(protocol: Protocol[Any], role: str) -> Sequence[object]:
        assert isinstance(protocol, DeliberationProtocol)
        if protocol.merged:
            return (protocol.private[role],)
        return _exclusive(protocol, role)

    return ProtocolKit(
        name="deliberation", make=make, legal=legal_move, illegal=illegal_move,
        private=private, max_rounds=max(ROUND_LIMITS),
        check_observation=observation_check(DeliberationProtocol, check_observation),
        check_result=result_check(DeliberationProtocol, check_result))


__all__ = ["check_observation", "check_result", "illegal_move", "kit", "legal_move"]
