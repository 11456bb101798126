"""The rule-based ``task-exchange`` stub policy: it reads the Figure 7 text a model reads."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.core.moves import Message
from accord.domains.task_exchange import get_scenario
from accord.domains.task_exchange.cli import app
from accord.domains.task_exchange.domain import build_protocol
from accord.domains.task_exchange.llm.prompts import render_system_prompt, render_turn_prompt
from accord.domains.task_exchange.llm.replies import format_proposal, parse_reply
from accord.domains.task_exchange.protocol import HistoryEntry, TaskExchangeObservation
from accord.domains.task_exchange.stub import (
    TaskExchangePolicy,
    parse_mistakes,
    parse_setup,
    parse_turn,
)
from accord.protocols.base import Invalid
from accord.testing.stub import PolicyError, PolicyRequest, Reply, make_policy

SC = get_scenario("cooperative")


def observe(strategy: str = "utility-aware", role: str = "Alice") -> TaskExchangeObservation:
    protocol = build_protocol("cooperative", {"strategy": strategy})
    obs = protocol.observe(protocol.initial_state(), role)
    assert isinstance(obs, TaskExchangeObservation)
    return obs


def on_table(obs: TaskExchangeObservation, table: dict[str, tuple[str, ...]]
             ) -> TaskExchangeObservation:
    """``obs`` answering Bob's proposal ``table``, which Bob sent in the dialogue."""
    said = HistoryEntry(obs.turn - 1, "Bob", "proposal", format_proposal(table, SC.roles),
                        table)
    return dataclasses.replace(obs, table=table, history=(*obs.history, said))


def ask(policy: TaskExchangePolicy, obs: TaskExchangeObservation,
        history: list[dict[str, str]] | None = None) -> str:
    assert obs.view is not None
    system = render_system_prompt(obs.view, obs.strategy)
    messages = [{"role": "system", "content": system}, *(history or []),
                {"role": "user", "content": render_turn_prompt(obs)}]
    out = policy.respond(PolicyRequest(tuple(messages), "task-exchange"))
    assert isinstance(out, Reply)
    return out.text


def test_setup_is_read_from_the_figure_7_text() -> None:
    alice = parse_setup(render_system_prompt(SC.view("Alice"), "baseline"))
    assert alice.role == "Alice" and alice.roles == ("Alice", "Bob")
    assert alice.original == {"Alice": 0b111000, "Bob": 0b000111}
    assert alice.descriptions == SC.universe.descriptions
    # the utilities as Figure 7 prints them (two decimals), the party's own only
    assert alice.utilities == pytest.approx(
        [float(u) for u in SC.profile("Alice").utilities], abs=0.005)
    bob = parse_setup(render_system_prompt(SC.view("Bob"), "utility-aware"))
    assert bob.utilities == pytest.approx([float(u) for u in SC.profile("Bob").utilities],
                                          abs=0.005)
    # the Figure 7 prompt carries no machine-readable block unless asked (state=true)
    assert "<TX_SETUP>" not in render_system_prompt(SC.view("Bob"), "utility-aware")
    with_block = render_system_prompt(SC.view("Bob"), "utility-aware", machine_state=True)
    assert with_block.count("<TX_SETUP>") == 1
    assert json.dumps(float(SC.profile("Alice").utilities[0b000111])) not in \
        with_block.split("<TX_SETUP>")[1].split('"original"')[0]


def test_replies_follow_figure_7_in_every_phase() -> None:
    policy = TaskExchangePolicy()
    obs = observe()
    text = ask(policy, obs)
    assert re.fullmatch(r"<CONSIDER>.*</CONSIDER>", text, re.S)
    assert parse_reply(text, SC.roles, "consider") == Message("")  # nothing public in Turn 1
    propose = dataclasses.replace(obs, phase="propose", turn=2, agent_turn=2)
    text = ask(policy, propose)
    move = parse_reply(text, SC.roles, "propose")
    assert type(move).__name__ == "Offer" and "<CONSIDER>" in text
    # at turn 2 the target is the best split: Alice keeps a top composite
    kept = SC.universe.mask_of(move.package["Alice"])  # type: ignore[attr-defined]
    assert kept is not None
    best = max(SC.utility("Alice", m) for m in range(1, SC.universe.full))
    assert SC.utility("Alice", kept) == best
    # the final answer to a split worse than the original task is a bare <REJECT>
    worse = {"Alice": (SC.universe.description(0b001000),),
             "Bob": (SC.universe.description(0b110111),)}
    final = dataclasses.replace(obs, phase="respond", turn=10, final_response=True)
    text = ask(policy, on_table(final, worse))
    assert "<REJECT>" in text and "<PROPOSAL>" not in text
    better = {"Alice": (SC.universe.description(0b100001),),
              "Bob": (SC.universe.description(0b011110),)}
    assert "<ACCEPT>" in ask(policy, on_table(final, better))


def test_strategy_read_from_rule_5() -> None:
    aware, selfish = TaskExchangePolicy(), TaskExchangePolicy()
    mid = dataclasses.replace(observe("utility-aware"), phase="propose", turn=7, agent_turn=4)
    base = dataclasses.replace(observe("baseline"), phase="propose", turn=7, agent_turn=4)
    a = parse_reply(ask(aware, mid), SC.roles, "propose")
    b = parse_reply(ask(selfish, base), SC.roles, "propose")
    ua, ub = (SC.utility("Alice", SC.universe.mask_of(m.package["Alice"]) or 0)  # type: ignore[attr-defined]
              for m in (a, b))
    assert ub >= ua  # the baseline party asks for at least as much for itself


def test_mistakes_and_feedback_state() -> None:
    policy = TaskExchangePolicy(mistakes="MET+OK+EMP")
    obs = dataclasses.replace(observe(), phase="propose", turn=2, agent_turn=2)
    first = ask(policy, obs)
    assert "<PROPOSAL>" in first and "</PROPOSAL>" not in first
    retry = dataclasses.replace(obs, attempt=2, feedback=Invalid(
        "missing_proposal_close_tag", "✖ Missing </PROPOSAL> tag"))
    history: list[dict[str, Any]] = [
        {"role": "user", "content": render_turn_prompt(obs)},
        {"role": "assistant", "content": first}]
    text = ask(policy, retry, history)
    assert "✖ Missing </PROPOSAL> tag" in render_turn_prompt(retry)
    state, _ = parse_turn(render_turn_prompt(retry), "Bob", None)
    assert state["feedback"] is not None and state["turn"] == 2  # read from the words
    assert '"feedback":"missing_proposal_close_tag"' in render_turn_prompt(retry,
                                                                           machine_state=True)
    assert type(parse_reply(text, SC.roles, "propose")).__name__ == "Offer"  # the OK
    assert parse_mistakes("unk*2, OVL") == ("UNK", "UNK", "OVL")
    with pytest.raises(PolicyError, match="unknown mistake 'XYZ'"):
        parse_mistakes("XYZ")


def test_contract_errors_are_clear() -> None:
    policy = make_policy("task-exchange")
    with pytest.raises(PolicyError, match=r"no 'You are agent A\. You negotiate with agent B'"):
        policy.respond(PolicyRequest(({"role": "user", "content": "hi"},), "task-exchange"))
    system = render_system_prompt(SC.view("Alice"), "baseline")
    with pytest.raises(PolicyError, match=r"no 'You are agent A\. Global Turn t/T"):
        policy.respond(PolicyRequest(({"role": "system", "content": system},
                                      {"role": "user", "content": "no state"}), "x"))
    broken = system.replace("Negotiation Flow (max 10 turns)", "Negotiation Flow")
    with pytest.raises(PolicyError, match=r"no 'Negotiation Flow \(max T turns\)' line"):
        parse_setup(broken)
    short = "\n".join(line for line in system.splitlines() if "(mask=000001," not in line)
    with pytest.raises(PolicyError, match="must show all 64 masks once"):
        parse_setup(short)
    gen = make_policy("task-exchange-generator")
    with pytest.raises(PolicyError, match="neither <DESCRIPTION> nor <SCORE>"):
        gen.respond(PolicyRequest(({"role": "user", "content": "hello"},), "g"))


def test_prompt_command_can_show_the_setup_block() -> None:
    res = CliRunner().invoke(app, ["prompt", "competitive", "--role", "Bob", "--state"])
    assert res.exit_code == 0 and res.output.count("<TX_SETUP>") == 1
    assert parse_setup(res.output).role == "Bob"
