"""A person at the terminal in task exchange and deliberation, and the brief and debrief
of a bargaining and a Deal-or-No-Deal seat: ``accord run ... --agents human,...`` under a
real pseudo-terminal."""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from accord.agents.spec import AgentSpec
from accord.domains.base import EpisodeSpec, RunContext, get_domain
from accord.play.terminal import TerminalSeat

from .test_terminal import _data, finish, spawn

PROMPT = r"move \((?:[a-z]+/?)+, help\)> "


def test_person_negotiates_a_task_exchange_with_validation_feedback() -> None:
    child = spawn("task-exchange/competitive", "--agents", "human,utility-aware")
    child.expect("your brief: Competitive")
    child.expect(r"No deal \(BATNA\): your utility of your original task: 0\.58")
    child.expect("Your utility of every composite task")
    child.expect(r"100001\s+Apply for the Software Developer position and the Software "
                 r"Engineer position\.\s+1")  # the person's best composite, first
    child.expect("Turn 1 is private consideration")
    child.expect(r"Alice move \(message, help\)> ")
    child.sendline("")  # nothing to send on the private turn
    child.expect("Your turn to propose")
    child.expect(r"Alice move \(offer, help\)> ")
    child.sendline("offer 000111 000111")  # both keep the same tasks: an overlap
    child.expect(r"this proposal is worth 0\.39 to you")
    child.expect(r"send it\? \[Y/n\]> ")
    child.sendline("y")
    child.expect(r"not accepted \(overlap\)")  # the protocol's own targeted feedback
    child.expect("Overlap detected")
    child.expect(r"Alice move \(offer, help\)> ")
    child.sendline("offer")
    child.expect(r"the composite you keep \(mask")
    child.sendline("100001")
    child.expect(r"Bob's composite \(Enter: the rest, 011110\)> ")
    child.sendline("")
    child.expect(r"this proposal is worth 1 to you")
    child.expect(r"send it\? \[Y/n\]> ")
    child.sendline("n")  # not sent: asked again
    child.expect(r"Alice move \(offer, help\)> ")
    child.sendline("offer 011110")
    child.expect(r"send it\? \[Y/n\]> ")
    child.sendline("")
    out = finish(child)
    assert "debrief: Alice" in out
    assert "You agreed: your utility 0, Bob's 1 (now revealed)." in out
    assert "Without a deal you would have had 0.58 and Bob 0.25." in out
    assert re.search(r"Bob's utility \(revealed\)\s+1\s+0\.25\s+0\.27", out)
    assert "1 of your moves was not accepted by the protocol" in out
    assert child.exitstatus == 0


def test_person_deliberates_a_menu_and_sees_their_own_observation() -> None:
    child = spawn("deliberation/menu-numeric", "--agents", "human,share")
    child.expect("your brief: menu-numeric")
    child.expect("Ingredients you can")  # the person's own partial observation
    child.expect(r"Falafel\s+30\.39")  # the ratings they see (guest Mei only)
    child.expect(r"agent_0 move \(offer/message, help\)> ")
    child.sendline("message [bold]hello[/] team")  # typed text is data, never markup
    child.expect(r"r1 agent_0 says: \[bold\]hello\[/\] team")
    child.expect(r"agent_0 move \(offer/message/accept, help\)> ")
    child.sendline("offer Nope, 5")
    child.expect(r"not accepted \(bad_proposal\): unknown dishes \['Nope'\]")
    child.expect(r"agent_0 move \(offer/message/accept, help\)> ")
    child.sendline("offer 5, falafel, 4")
    child.expect("your proposal: Chana Masala, Falafel, Sweet and Sour Pork")
    child.expect(r"r2 agent_0 offers Chana Masala, Falafel, Sweet and Sour Pork")
    child.expect(r"agent_0 move \(offer/message/accept, help\)> ")
    child.sendline("accept")
    out = finish(child)
    assert "debrief: agent_0" in out and "The team decided." in out
    assert re.search(r"Team reward [0-9.]+ of a best possible 186\.84", out)
    assert "A best decision: " in out
    assert child.exitstatus == 0


def test_leader_decides_a_task_allocation_at_the_terminal() -> None:
    """Scripted lines (no terminal): the leader proposes in one line, then decides it."""
    lines = iter(["offer " + "; ".join(
        f"{t}=agent_{i % 3}" for i, t in enumerate([
            "Literature review", "Clean the raw dataset", "Hyperparameter sweep",
            "Statistical analysis", "Run lab experiment", "Write the methods section",
            "Produce figures and tables", "Ablation experiments", "Draft the grant report",
            "Release code and documentation"])), "decide we go with mine"])
    buf = io.StringIO()
    seat = TerminalSeat(Console(file=buf, width=120), reader=lambda prompt: next(lines))
    spec = EpisodeSpec("deliberation", "task-allocation",
                       (AgentSpec("share"), AgentSpec("share"), AgentSpec("human")),
                       {"max_rounds": 2}, 0)
    result = asyncio.run(get_domain("deliberation").run_episode(
        spec, RunContext(extra={"seat": seat})))
    assert result.status == "agreement" and result.who == "agent_2"
    rec = result.record
    # round 1: the leader's own proposal went on the table; round 2: it decided the
    # proposal then on the table (a teammate's), as "decide" without a proposal does
    mine = [u for u in rec["dialog"] if u["speaker"] == "agent_2"]
    assert mine[0]["kind"] == "offer" and mine[0]["proposal"]["Literature review"] == "agent_0"
    assert rec["decision"] == rec["proposals"]["agent_1"] != rec["proposals"]["agent_2"]
    assert rec["dialog"][-1]["kind"] == "decide"
    assert rec["dialog"][-1]["text"] == "we go with mine"
    assert "How it ends: the leader agent_2 decides (you are the leader)" in buf.getvalue()


def test_bargaining_brief_first_and_debrief_after() -> None:
    child = spawn("bargaining/buyer-seller", "--agents", "human,boulware")
    child.expect("your brief: buyer-seller")
    child.expect("laptops")  # the scenario's own description
    child.expect(r"Your BATNA \(utility with no deal\): 0\.4")
    child.expect(r"Rounds left: \d+ of \d+")
    child.expect("weight")
    child.expect(r"price\s+0\.6\s+800\s+1\s+best")  # per issue: weight, value, score
    child.expect(r"buyer move \(offer/message/walk, help\)> ")
    child.sendline("offer price=1200 delivery_days=10 warranty_years=0")
    child.expect(r"this offer is worth 0 to you")
    child.expect(r"send it\? \[Y/n\]> ")
    child.sendline("")
    out = finish(child)
    assert "AGREEMENT in round 1" in out
    debrief = out[out.index("debrief: buyer"):]
    assert "You agreed: your utility 0, seller's 1 (now revealed)." in debrief
    assert "Without a deal you would have had 0.4 and seller 0.35." in debrief
    assert "The Nash point: you 0.647, seller 0.555" in debrief
    assert re.search(r"Distance to the Pareto frontier: 0\.\s", debrief)  # not 0.000
    # 0 is below the buyer's 0.4: said in words, once
    assert "Accepted a deal worth less than their BATNA (sycophancy): buyer." in debrief
    assert "accepted below batna" not in debrief and "sycophancy." not in debrief
    assert child.exitstatus == 0


def test_deal_or_no_deal_brief_and_debrief() -> None:
    if not (Path(_data()) / "dealornodeal" / "test.txt").is_file() and not (
            Path(_data()) / "test.txt").is_file():
        pytest.skip("Deal-or-No-Deal data not found (set ACCORD_DATA)")
    child = spawn("deal-or-no-deal/test/0", "--agents", "human,greedy")
    child.expect("your brief: Deal or No Deal test/0")
    child.expect(r"No deal \(BATNA\): 0 points for both")
    child.expect(PROMPT)
    child.sendline("message what would you like?")
    child.expect("proposes to take")
    child.expect(PROMPT)
    child.sendline("accept")
    out = finish(child)
    assert "debrief: alice" in out and "bob's points (revealed)" in out
    assert re.search(r"(Value left on the table: [0-9.]+ in total|Nothing was left)", out)
    assert child.exitstatus == 0


def test_a_saved_episode_names_the_persons_seat_in_its_line_up(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from accord.bench.store import Store

    env = {**os.environ, "COLUMNS": "100"}
    res = subprocess.run([sys.executable, "-m", "accord", "run", "bargaining/buyer-seller",
                          "--agents", "boulware,human", "--save", str(tmp_path / "s.db")],
                         input="walk\n", capture_output=True, text=True, timeout=300, env=env)
    assert res.returncode == 0, res.stderr
    with Store.open(tmp_path / "s.db", create=False) as store:
        (row,) = list(store.episodes("accord-run"))
    assert row.lineup == "boulware vs human (seller)"
    assert row.labels["agents"] == ["boulware", "human"]  # who is rated stays the spec
