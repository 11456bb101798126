"""Deliberation protocol: symmetric and leader-based ends, truncation, round cap, feedback."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from accord.agents.base import Agent
from accord.core.moves import Accept, Decide, Malformed, Message, Move, Offer, Walk
from accord.domains.deliberation import (
    DeliberationObservation,
    DeliberationProtocol,
    MenuInstance,
    TaskInstance,
)
from accord.domains.deliberation.domain import build_protocol
from accord.domains.deliberation.observations import sample_observation_spec
from accord.protocols.engine import Bounds, check_move, run_episode


class Scripted(Agent):
    """Plays a fixed list of moves, then messages; keeps the observations it saw."""

    def __init__(self, moves: Sequence[Move]) -> None:
        self.moves = list(moves)
        self.seen: list[DeliberationObservation] = []

    async def act(self, observation: Any) -> Move:
        self.seen.append(observation)
        return self.moves.pop(0) if self.moves else Message("...")


def _with_obs(inst):
    return replace(inst, observations=sample_observation_spec(inst, np.random.default_rng(0)))


def _task_protocol(tasks: TaskInstance, **kw: Any) -> DeliberationProtocol:
    return build_protocol(_with_obs(tasks), "deliberation", kw)


async def test_only_the_leader_ends_task_allocation(tasks: TaskInstance) -> None:
    proto = _task_protocol(tasks)
    plan = {"t1": "agent_2", "t3": "agent_0"}
    a0 = Scripted([Offer(plan, "my plan"), Message("waiting for the leader")])
    a1 = Scripted([Accept("fine"), Decide(plan), Offer(plan, "same plan")])  # Decide refused
    a2 = Scripted([Message("thinking"), Accept("agreed, final")])
    res = await run_episode(proto, {"agent_0": a0, "agent_1": a1, "agent_2": a2},
                            bounds=Bounds(max_rounds=6))
    assert res.status == "agreement" and res.who == "agent_2"
    assert res.record["decision"] == plan and res.record["decided_by"] == "agent_2"
    invalid = res.trajectory.of_kind("invalid")
    assert [e.reason for e in invalid] == ["not_leader"] and invalid[0].party == "agent_1"
    notes = [e.reason for e in res.trajectory.of_kind("note")]
    assert notes.count("worker_accept") == 1  # the worker's accept in round 1 ended nothing
    assert res.record["rounds_used"] == 2
    assert res.record["dialog"][2]["speaker"] == "agent_2"  # round 1 went on after it


async def test_symmetric_menu_ends_when_partner_accepts(menu: MenuInstance) -> None:
    proto = build_protocol(_with_obs(menu), "deliberation", {})
    a0 = Scripted([Accept("nothing to accept yet"), Offer({"salad": 1}, "salad?")])
    a1 = Scripted([Accept("yes")])
    res = await run_episode(proto, {"agent_0": a0, "agent_1": a1}, bounds=Bounds(max_rounds=6))
    assert res.status == "agreement" and res.record["decision"] == ["salad"]
    assert [e.reason for e in res.trajectory.of_kind("invalid")] == ["nothing_to_accept"]
    # each agent sees only its own private observation
    assert a0.seen[0].private == proto.private["agent_0"]
    assert a0.seen[0].private != proto.private["agent_1"]


async def test_round_cap_and_truncation(menu: MenuInstance) -> None:
    proto = build_protocol(_with_obs(menu), "deliberation", {"max_rounds": 2, "max_chars": 10})
    a0 = Scripted([Message("x" * 50)] * 5)
    a1 = Scripted([Offer(["salad"], "a long explanation")] * 5)
    res = await run_episode(proto, {"agent_0": a0, "agent_1": a1}, bounds=Bounds(max_rounds=2))
    assert res.status == "no_deal" and res.reason == "max_rounds"
    assert res.record["decision"] is None and len(res.record["dialog"]) == 4
    assert all(len(u["text"]) <= 10 for u in res.record["dialog"])
    assert res.record["dialog"][0]["truncated"] is True
    assert any(e.reason == "truncated" for e in res.trajectory.of_kind("note"))
    # agent_0 saw agent_1's truncated text
    assert a0.seen[1].dialog[1].text == "a long exp"


def test_validation_feedback(menu: MenuInstance, tasks: TaskInstance) -> None:
    proto = build_protocol(_with_obs(menu), "deliberation", {})
    s = proto.initial_state()
    assert proto.validate(s, "agent_1", Message("hi")).reason == "not_your_turn"  # type: ignore[union-attr]
    bad = proto.validate(s, "agent_0", Offer({"pizza": 1}))
    assert bad is not None and "unknown dishes ['pizza']" in bad.feedback
    assert proto.validate(s, "agent_0", Offer({"salad": 1, "omelette": 0})) is None
    assert proto.validate(s, "agent_0", Walk()).reason == "illegal_move"  # type: ignore[union-attr]
    assert proto.validate(s, "agent_0", Decide(["salad"])).reason == "illegal_move"  # type: ignore[union-attr]
    mal = check_move(proto, s, "agent_0", Malformed("parse_error", "use <PROPOSAL> tags"))
    assert mal is not None and mal.feedback == "use <PROPOSAL> tags"
    tp = _task_protocol(tasks)
    ts = tp.initial_state()
    bad = tp.validate(ts, "agent_0", Offer({"t1": "agent_9"}))
    assert bad is not None and "unknown agents" in bad.feedback
    assert tp.validate(ts, "agent_0", Offer({"agent_0": ["t1"], "agent_1": ["t1"]})) is not None
    for empty in ("", "  \n"):  # found by the conformance check: an empty message passed
        assert tp.validate(ts, "agent_0", Message(empty)).reason == "empty_message"  # type: ignore[union-attr]


def test_centralized_is_one_decision(tasks: TaskInstance) -> None:
    proto = build_protocol(_with_obs(tasks), "centralized", {})
    assert proto.parties == ("central",) and proto.legal(proto.initial_state(), "central") == \
        ("decide",)
    assert set(proto.private["central"]["private_resources"]) == set(tasks.agents)
    assert proto.private["central"]["public_resources"] == dict(tasks.public_resources)
    with pytest.raises(ValueError):
        DeliberationProtocol(["a", "b"], proto.shared, {"a": {}, "b": {}}, proto.normalize,
                             mode="leader", leader="z")
