"""Play in the terminal: ``accord run ... --agents human,...`` under a real pseudo-terminal."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pexpect
import pytest
from rich.console import Console

from accord.agents.human import Turn
from accord.play.terminal import TerminalSeat

REPO = Path(__file__).resolve().parents[2]


def _data() -> str:
    return os.environ.get("ACCORD_DATA", str(REPO.parent / "shared" / "data"))


def spawn(*args: str) -> pexpect.spawn:
    env = {**os.environ, "COLUMNS": "120", "LINES": "40", "TERM": "dumb",
           "ACCORD_DATA": _data(), "NO_COLOR": "1"}
    child = pexpect.spawn(sys.executable, ["-m", "accord", "run", *args], env=env,
                          encoding="utf-8", timeout=60, dimensions=(40, 120))
    return child


def finish(child: pexpect.spawn) -> str:
    child.expect(pexpect.EOF)
    child.close()
    out = child.before or ""
    assert "Traceback" not in out
    return out


def test_person_builds_an_offer_issue_by_issue_and_boulware_accepts() -> None:
    child = spawn("bargaining/buyer-seller", "--agents", "human,boulware")
    child.expect("BATNA")
    child.expect(r"buyer move \(offer/message/walk, help\)> ")
    child.sendline("offer price=9999 delivery_days=10 warranty_years=0")  # not a value
    child.expect("not accepted")
    child.expect("9999")
    child.expect(r"buyer move \(offer/message/walk, help\)> ")  # asked again
    child.sendline("offer")
    child.expect(r"price \[800 \| 850")
    child.sendline("1200")
    child.expect(r"worth [0-9.]+ to you")
    child.expect("delivery_days")
    child.sendline("10")
    child.expect("warranty_years")
    child.sendline("")  # Enter keeps the value shown
    out = finish(child)
    assert "AGREEMENT in round 1" in out
    assert child.exitstatus == 0


def test_person_plays_deal_or_no_deal_to_an_agreement() -> None:
    if not (Path(_data()) / "dealornodeal" / "test.txt").is_file() and not (
            Path(_data()) / "test.txt").is_file():
        pytest.skip("Deal-or-No-Deal data not found (set ACCORD_DATA)")
    child = spawn("deal-or-no-deal/test/0", "--agents", "human,greedy")
    child.expect("your partner's are hidden")
    child.expect(r"alice move \(offer/message/walk, help\)> ")
    child.sendline("message what would you like?")
    child.expect("proposes to take")
    child.expect(r"alice move \(offer/accept/reject/message/walk, help\)> ")
    child.sendline("accept")
    out = finish(child)
    assert "agreement" in out and child.exitstatus == 0


def test_person_talks_then_plays_a_game() -> None:
    child = spawn("games/prisoners-dilemma", "--agents", "human,rational", "--max-rounds", "1")
    child.expect("Cells are")
    child.expect(r"Alice move \(message, help\)> ")
    child.sendline("message I will cooperate")
    child.expect("Choose your action: 1=cooperate, 2=defect")
    child.sendline("3")
    child.expect("not accepted")
    child.sendline("2")
    out = finish(child)
    assert "Alice plays defect" in out and child.exitstatus == 0
    assert "Game completed: Alice played defect, Bob played defect" in out
    assert "agreement" not in out  # a game is completed, never an "agreement"


@pytest.mark.parametrize("how", ["eof", "interrupt"])
def test_ctrl_d_or_ctrl_c_ends_the_episode_cleanly(how: str) -> None:
    child = spawn("bargaining/buyer-seller", "--agents", "human,boulware")
    child.expect(r"buyer move \(offer/message/walk, help\)> ")
    if how == "eof":
        child.sendeof()
    else:
        child.sendintr()
    out = finish(child)
    assert "NO DEAL" in out.upper() or "no_deal" in out
    assert "quit" in out and "ended the episode" in out


def test_text_from_the_other_side_is_inert_in_the_terminal() -> None:
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, color_system="standard", width=200,
                      highlight=False)  # as accord.cli.common.console() makes it
    seat = TerminalSeat(console, reader=lambda prompt: "walk")
    evil = "[bold red]pwned[/] \x1b[2J\x1b]8;;http://x\x07link"
    turn = Turn("bargaining", "buyer", 1, ("accept", "reject", "walk"), {
        "round": 1, "max_rounds": 5, "phase": "respond", "batna": 0.3, "proposer": "seller",
        "issues": [{"name": "price", "values": [1, 2]}],
        "offers": [{"round": 1, "party": "seller", "source": "offer",
                    "package": {"price": 2}, "utility": 0.5}],
        "messages": [{"round": 1, "party": "seller", "text": evil}],
        "current_offer": {"package": {"price": 2}, "utility": 0.5}})
    import asyncio

    assert asyncio.run(seat.ask(turn)) == {"kind": "walk", "reason": None}
    out = buf.getvalue()
    assert "[bold red]pwned[/]" in out  # shown literally, not as markup
    assert "\x1b[2J" not in out and "\x1b]8" not in out  # no control sequence got through
