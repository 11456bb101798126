"""Figure 7 prompt rendering (strategy difference is Rule 5 only) and generator prompts."""

from __future__ import annotations

import dataclasses

from accord.domains.task_exchange import ScriptedAgent, get_scenario
from accord.domains.task_exchange.domain import build_protocol
from accord.domains.task_exchange.llm.prompts import (
    render_describe_request,
    render_prompt,
    render_score_request,
    render_system_prompt,
    render_turn_prompt,
)
from accord.domains.task_exchange.protocol import TaskExchangeObservation
from accord.protocols.base import Invalid

SC = get_scenario("cooperative")
RULE5 = "5. Be strategic:"


def test_system_prompt_follows_figure_7() -> None:
    text = render_system_prompt(SC.view("Alice"), "utility-aware")
    assert text.startswith("You are agent Alice.")
    orig = SC.universe.description(0b111000)
    assert f'Your original task: "{orig}" (mask=111000).' in text
    assert ("Mask legend (bit5...bit0): 0:apply_for_job(job=Software Developer); "
            "1:set_alarm(") in text
    assert "(Composite task information covers 64 composite tasks.)" in text
    entry = (f"• {SC.universe.description(1)} (mask=000001, util=1.00) ++ complement: "
             f"{SC.universe.description(62)}")
    assert entry in text
    assert f"• {SC.universe.description(2)} (mask=000010, util=0.10)" in text
    for rule in ("1. NEVER include both", "2. Use exactly", "3. Decomposition is ONLY",
                 "4. If an agent is assigned more than one", RULE5, "6. Never disclose",
                 "7. Each agent must keep at least one atomic task."):
        assert rule in text
    assert "Negotiation Flow (max 10 turns):" in text
    assert '"Alice": ["<one composite task description' in text


def test_baseline_removes_only_rule_5() -> None:
    ua = render_system_prompt(SC.view("Bob"), "utility-aware")
    base = render_system_prompt(SC.view("Bob"), "baseline")
    assert RULE5 in ua and RULE5 not in base
    removed = [line for line in ua.splitlines() if line not in base.splitlines()]
    assert removed[0] == RULE5 and len(removed) == 4
    assert "Pareto front" in removed[-1]
    assert [line for line in base.splitlines() if line not in ua.splitlines()] == []


def test_prompt_shows_own_utilities_only() -> None:
    alice = render_system_prompt(SC.view("Alice"), "utility-aware")
    bob = render_system_prompt(SC.view("Bob"), "utility-aware")
    assert "(mask=000111, util=0.75)" in alice and "(mask=000111, util=0.70)" in bob
    assert SC.profile("Bob").preference not in alice


async def test_turn_prompts_history_and_feedback() -> None:
    protocol = build_protocol("cooperative", {"strategy": "utility-aware"})
    state = protocol.initial_state()
    obs = protocol.observe(state, "Alice")
    assert isinstance(obs, TaskExchangeObservation)
    text = render_turn_prompt(obs)
    assert "Global Turn 1/10, Agent Turn #1." in text and "(no messages yet)" in text
    assert "privately plan your strategy inside <CONSIDER>" in text
    agents = {r: ScriptedAgent() for r in protocol.parties}
    for agent in agents.values():
        agent.reset()
    moves = {r: await agents[r].act(protocol.observe(state, r)) for r in protocol.parties}
    state, _ = protocol.apply(state, moves)
    move = await agents["Alice"].act(protocol.observe(state, "Alice"))
    state, _ = protocol.apply(state, {"Alice": move})
    obs = protocol.observe(state, "Bob")
    text = render_turn_prompt(obs)
    assert "Global Turn 3/10, Agent Turn #2." in text
    assert "[Turn 2] Alice: <PROPOSAL>" in text and "SECRET" not in text
    assert "or with <REJECT>...</REJECT> followed by your alternative <PROPOSAL>" in text
    retry = dataclasses.replace(obs, attempt=2,
                                feedback=Invalid("overlap", "✖ Overlap detected:"))
    text = render_turn_prompt(retry)
    assert "was NOT delivered to Alice (attempt 1 of 6 used)" in text
    assert "✖ Overlap detected:" in text and "does not consume the turn" in text
    full = render_prompt(obs)
    assert full.startswith("You are agent Bob.") and "[Turn 2] Alice:" in full


def test_generator_prompts() -> None:
    uni = SC.universe
    text = render_describe_request(uni, 0b001001)
    assert "- apply_for_job(job=Software Developer)" in text
    assert "- book_flight(date=2023-07-30, from=San Francisco, to=New York)" in text
    assert "set_alarm" not in text and "<DESCRIPTION>" in text
    text = render_score_request("Alice", SC.profile("Alice").preference, uni.description(8))
    assert "making documents for applying for jobs" in text and "<SCORE>" in text
    assert uni.description(8) in text
