"""The negotiation flow through the engine: patterns, retries, K, outcomes, privacy."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from accord.agents.base import Agent
from accord.core.moves import Accept, Move
from accord.domains.task_exchange import (
    ScriptedAgent,
    TaskExchangeObservation,
    UtilityAwareAgent,
    get_scenario,
)
from accord.domains.task_exchange.domain import build_protocol, play
from accord.protocols.base import Observation
from accord.protocols.engine import EpisodeResult


class Recorder(Agent):
    """Wraps an agent and keeps every observation it was shown."""

    def __init__(self, inner: Agent) -> None:
        self.inner = inner
        self.seen: list[TaskExchangeObservation] = []

    def reset(self, rng: np.random.Generator | None = None) -> None:
        super().reset(rng)
        self.inner.reset(rng)
        self.seen = []

    async def act(self, observation: Observation) -> Move:
        assert isinstance(observation, TaskExchangeObservation)
        self.seen.append(observation)
        return await self.inner.act(observation)


async def episode(scenario: str, a: Agent, b: Agent, strategy: str = "utility-aware",
                  seed: int = 0, **params: Any) -> EpisodeResult:
    return await play(build_protocol(scenario, {"strategy": strategy, **params}), [a, b], seed)


def invalid_events(res: EpisodeResult) -> list[Any]:
    return res.trajectory.of_kind("invalid")


PATTERN_FEEDBACK = {
    "UNK": ("unknown_task", "is not in the composite task list"),
    "MAT": ("missing_atomic_tasks", "unassigned atomic task(s): [Book a flight"),
    "OVL": ("overlap", "share atomic task(s); [Book a flight from San Francisco to New York"),
    "MPT": ("missing_proposal_open_tag", "✖ Missing <PROPOSAL> tag"),
    "MET": ("missing_proposal_close_tag", "✖ Missing </PROPOSAL> tag"),
    "MDA": ("multiple_descriptions", "their bitwise OR: 'Prepare for your upcoming Software "
                                     "Engineer opportunity"),
    "EMP": ("empty_agent", "✖ Empty agent: Bob receives no task"),
}


@pytest.mark.parametrize("code", sorted(PATTERN_FEEDBACK))
async def test_each_pattern_is_caught_with_feedback_and_retried(code: str) -> None:
    reason, snippet = PATTERN_FEEDBACK[code]
    alice = Recorder(ScriptedAgent(code))
    res = await episode("cooperative", alice, ScriptedAgent())
    events = invalid_events(res)
    assert [e.reason for e in events] == [reason]
    assert snippet in (events[0].feedback or "")
    assert events[0].round == 2 and events[0].party == "Alice"
    # the retry saw the feedback, in the same turn, and the run went on to a valid end
    retry = alice.seen[2]
    assert retry.feedback is not None and retry.feedback.reason == reason
    assert retry.attempt == 2 and retry.turn == alice.seen[1].turn == 2
    assert res.record["status"] == "agreed" and res.record["turns"] == 2


async def test_invalid_proposal_is_not_delivered() -> None:
    bob = Recorder(ScriptedAgent())
    await episode("cooperative", ScriptedAgent("OVL"), bob)
    invalid_text = get_scenario("cooperative").universe.description(0b001111)  # OVL: Bob 7|8
    texts = [h.text for obs in bob.seen for h in obs.history]
    assert texts and all(invalid_text not in t for t in texts)
    assert bob.seen[1].table is not None
    assert bob.seen[1].table["Bob"] == (get_scenario("cooperative").universe.description(7),)


async def test_k_exceeded_ends_in_error_without_allocation() -> None:
    res = await episode("cooperative", ScriptedAgent("OVL*6"), ScriptedAgent())
    assert res.status == "error" and res.who == "Alice"
    assert len(invalid_events(res)) == 6
    assert res.record["status"] == "error"
    assert res.record["allocation"] is None and res.record["utilities"] is None


async def test_five_retries_are_allowed() -> None:
    res = await episode("cooperative", ScriptedAgent("MET*5"), ScriptedAgent())
    assert res.record["status"] == "agreed" and len(invalid_events(res)) == 5


async def test_retry_counter_resets_when_the_turn_passes() -> None:
    alice = ScriptedAgent("MAT*5+ok+MAT*5+ok")
    res = await episode("cooperative", alice, ScriptedAgent(then="keep"))
    events = invalid_events(res)
    assert len(events) == 10 and res.record["status"] == "agreed"
    assert {e.round for e in events} == {2, 3}


async def test_custom_k() -> None:
    res = await episode("cooperative", ScriptedAgent("UNK*3"), ScriptedAgent(), max_retries=2)
    assert res.status == "error" and len(invalid_events(res)) == 3


async def test_agreed_path_with_code_agents() -> None:
    res = await episode("cooperative", UtilityAwareAgent(), UtilityAwareAgent(), seed=3)
    rec = res.record
    assert rec["status"] == "agreed" and 2 <= rec["turns"] <= 10
    masks = [int(a["mask"], 2) for a in rec["allocation"].values()]
    assert masks[0] & masks[1] == 0 and masks[0] | masks[1] == 63
    # both end at least as well off as with their original tasks
    assert rec["utilities"]["Alice"] >= 0.75 and rec["utilities"]["Bob"] >= 0.70
    assert rec["accepted_turn"] == rec["turns"]


async def test_disagreed_path_keeps_original_tasks() -> None:
    res = await episode("competitive", ScriptedAgent(then="keep"), ScriptedAgent(then="keep"))
    rec = res.record
    assert res.status == "no_deal" and res.reason == "turn_limit"
    assert rec["status"] == "disagreed" and rec["turns"] == 10
    assert rec["allocation"]["Alice"]["mask"] == "111000"
    assert rec["utilities"] == {"Alice": pytest.approx(0.58), "Bob": pytest.approx(0.25)}
    # turns 2..10 each carried one proposal, alternating, Alice on even turns
    props = rec["proposals"]
    assert [p["turn"] for p in props] == list(range(2, 11))
    assert [p["proposer"] for p in props] == ["Alice", "Bob"] * 4 + ["Alice"]


async def test_turn_limit_param() -> None:
    res = await episode("competitive", ScriptedAgent(then="keep"), ScriptedAgent(then="keep"),
                        turn_limit=4)
    assert res.record["status"] == "disagreed" and res.record["turns"] == 4


async def test_turn_one_is_private_and_simultaneous() -> None:
    alice, bob = Recorder(ScriptedAgent()), Recorder(ScriptedAgent())
    res = await episode("cooperative", alice, bob)
    first = res.trajectory.of_kind("move")[:2]
    assert {e.party for e in first} == {"Alice", "Bob"} and {e.round for e in first} == {1}
    assert alice.seen[0].phase == "consider" and alice.seen[0].agent_turn == 1
    assert alice.seen[1].history == () and alice.seen[1].phase == "propose"
    assert alice.seen[1].agent_turn == 2


async def test_consider_content_is_never_forwarded() -> None:
    alice = Recorder(ScriptedAgent("MPT+OVL+keep+keep+keep", then="keep"))
    bob = Recorder(ScriptedAgent("MET+keep", then="keep"))
    res = await episode("cooperative", alice, bob, strategy="baseline")
    sent = [t for agent in (alice, bob) for t in agent.inner.sent]  # type: ignore[attr-defined]
    assert sum("SECRET-" in t for t in sent) == len(sent) > 10
    for obs in alice.seen + bob.seen:
        for h in obs.history:
            assert "SECRET" not in h.text and "CONSIDER" not in h.text
        assert "SECRET" not in (obs.table_text or "")
    assert "SECRET" not in res.trajectory.to_jsonl()
    assert "SECRET" not in json.dumps(res.record)


async def test_accept_with_nothing_on_the_table_is_illegal() -> None:
    class Eager(Agent):
        async def act(self, observation: Observation) -> Move:
            return Accept()

    res = await episode("cooperative", Eager(), ScriptedAgent())
    events = invalid_events(res)
    assert events and events[0].reason == "illegal_move"
    assert res.status == "error"


# -- baseline strategy -----------------------------------------------------------------------

async def test_baseline_forwards_intermediate_invalid_proposals_unchecked() -> None:
    bob = Recorder(ScriptedAgent(then="keep"))
    res = await episode("cooperative", ScriptedAgent("OVL", then="keep"), bob, "baseline")
    assert invalid_events(res) == []
    notes = [e for e in res.trajectory.of_kind("note") if e.reason == "unchecked_invalid"]
    assert [n.data["pattern"] for n in notes] == ["overlap"]
    assert bob.seen[1].table is not None  # the invalid proposal reached Bob
    assert res.record["status"] == "disagreed"
    assert res.record["proposals"][0]["valid"] is False


async def test_baseline_accepting_an_invalid_proposal_is_an_error() -> None:
    res = await episode("cooperative", ScriptedAgent("OVL"), ScriptedAgent(then="accept"),
                        "baseline")
    assert res.status == "error" and res.reason == "invalid_final_proposal"
    assert res.who == "Alice" and res.record["utilities"] is None
    failed = [e for e in res.trajectory.of_kind("note") if e.reason == "final_check_failed"]
    assert failed and failed[0].data["pattern"] == "overlap"


async def test_baseline_checks_the_final_turn_proposal() -> None:
    # Alice's 5th proposal-phase reply makes the turn-10 proposal
    alice = ScriptedAgent("keep*4+OVL+keep", then="keep")
    res = await episode("cooperative", alice, ScriptedAgent(then="keep"), "baseline")
    events = invalid_events(res)
    assert [e.reason for e in events] == ["overlap"] and events[0].round == 9
    assert res.record["status"] == "disagreed" and res.record["turns"] == 10


async def test_baseline_tag_errors_pass_as_text_in_intermediate_turns() -> None:
    bob = Recorder(ScriptedAgent(then="keep"))
    res = await episode("cooperative", ScriptedAgent("MPT", then="keep"), bob, "baseline")
    assert invalid_events(res) == []
    # turn 2 carried no proposal, so Bob proposes afresh at turn 3
    assert bob.seen[1].phase == "propose" and bob.seen[1].turn == 3
    assert bob.seen[1].history[0].kind == "text"


async def test_utility_aware_checks_every_turn() -> None:
    alice = ScriptedAgent("keep*4+OVL+keep", then="keep")
    res = await episode("cooperative", alice, ScriptedAgent(then="keep"), "utility-aware")
    assert [e.reason for e in invalid_events(res)] == ["overlap"]
    alice = ScriptedAgent("OVL+keep", then="keep")
    res = await episode("cooperative", alice, ScriptedAgent(then="keep"), "utility-aware")
    assert [e.round for e in invalid_events(res)] == [2]


def test_unknown_strategy_and_params() -> None:
    with pytest.raises(ValueError, match="parameter 'strategy': input should be "
                       "'utility-aware' or 'baseline', got 'greedy'"):
        build_protocol("cooperative", {"strategy": "greedy"})
    with pytest.raises(ValueError, match="unknown task-exchange parameter 'rounds'; known: "
                       "max_retries, stagnation_rounds, strategy, turn_limit"):
        build_protocol("cooperative", {"strategy": "baseline", "rounds": 3})


def test_unknown_agents_and_foreign_move_kinds_are_refused() -> None:
    """Found by the conformance check: a proposal naming an agent outside the scenario
    passed (the extra entry was ignored), and on the baseline's unchecked turns so did a
    walk or any other move kind the negotiation does not know."""
    from accord.core.moves import Action, Offer, Walk

    for strategy in ("utility-aware", "baseline"):
        proto = build_protocol("cooperative", {"strategy": strategy})
        uni = proto.scenario.universe
        first, second = proto.parties
        state, _ = proto.apply(proto.initial_state(), {r: Accept() for r in proto.parties})
        assert state.phase == "propose" and state.mover == first
        split = {first: uni.description(1), second: uni.description(uni.full ^ 1)}
        assert proto.validate(state, first, Offer(split)) is None
        for move in (Walk("bye"), Action("accept")):
            bad = proto.validate(state, first, move)
            assert bad is not None and bad.reason == "illegal_move"
            assert f"{move.kind} is not a move in this negotiation" in bad.feedback
    proto = build_protocol("cooperative", {"strategy": "utility-aware"})
    state, _ = proto.apply(proto.initial_state(), {r: Accept() for r in proto.parties})
    bad = proto.validate(state, first, Offer({**split, "Carol": uni.description(1)}))
    assert bad is not None and bad.reason == "malformed_proposal"
    assert "unknown agent 'Carol'" in bad.feedback
