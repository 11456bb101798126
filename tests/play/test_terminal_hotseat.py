"""Hot-seat play: two people at one terminal (``--agents human,human``), each turn handed
over by seat and name, each person shown only their own brief; under a real
pseudo-terminal, plus the seat bookkeeping as unit tests."""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path

import pexpect
from rich.console import Console

from accord.agents.spec import AgentSpec
from accord.bench.store import Store
from accord.domains.base import EpisodeSpec, RunContext, get_domain
from accord.play.seats import lineup_seats, person_seats
from accord.play.terminal import TerminalSeat, clear_screen

from .test_terminal import finish, spawn

CLEARED = re.compile(r"(?:\r?\n){40,}")
"""A dumb terminal (``TERM=dumb``, as :func:`spawn` sets) is cleared by a screenful of
blank lines: the previous person's view scrolls off before the hand-over."""

BUYER_BRIEF = r"Your BATNA \(utility with no deal\): 0\.4\b"
SELLER_BRIEF = r"Your BATNA \(utility with no deal\): 0\.35"


def _handover(child: pexpect.spawn, seat: str) -> str:
    """Wait for ``seat``'s hand-over; the output since the last expect (must end cleared)."""
    child.expect(re.escape(seat) + r": your turn; pass the keyboard")
    before = child.before or ""
    assert CLEARED.search(before), f"the screen was not cleared before {seat}'s turn"
    child.expect(re.escape(seat) + r": press Enter when you are at the keyboard> ")
    child.sendline("")
    return before


def test_two_people_negotiate_a_bargaining_episode_in_hot_seat(tmp_path: Path) -> None:
    child = spawn("bargaining/buyer-seller", "--agents", "human,human",
                  "--save", str(tmp_path / "s.db"))
    _handover(child, "Seat 1, buyer")
    child.expect("your brief: buyer-seller")
    child.expect(BUYER_BRIEF)
    child.expect(r"price\s+0\.6\s+800\s+1\s+best")  # the buyer's own weights and scores
    child.expect(r"buyer move \(offer/message/walk, help\)> ")
    child.sendline("offer price=1000 delivery_days=5 warranty_years=2")
    child.expect(r"send it\? \[Y/n\]> ")
    child.sendline("")

    _handover(child, "Seat 2, seller")
    child.expect(r"seller move \(accept/reject/walk, help\)> ")
    seller_screen = (child.before or "") + (child.after or "")
    # the seller's own brief, and nothing of the buyer's private preferences
    assert re.search(SELLER_BRIEF, seller_screen)
    assert re.search(r"price\s+0\.7\s+1200\s+1\s+best", seller_screen)
    assert not re.search(BUYER_BRIEF, seller_screen)
    assert not re.search(r"price\s+0\.6\s", seller_screen)
    assert "On the table from buyer" in seller_screen
    child.sendline("reject price=1100 delivery_days=10 warranty_years=1")
    child.expect(r"send it\? \[Y/n\]> ")
    child.sendline("")

    _handover(child, "Seat 1, buyer")  # back to the buyer: their brief again, not the seller's
    child.expect(r"buyer move \((?:[a-z]+/?)+, help\)> ")
    buyer_screen = child.before or ""
    assert re.search(BUYER_BRIEF, buyer_screen)
    assert not re.search(SELLER_BRIEF, buyer_screen)
    assert "seller" in buyer_screen and "price=1100" in buyer_screen  # the counter-offer
    child.sendline("accept")
    out = finish(child)
    assert "AGREEMENT" in out
    # the debrief after, one per seat, named
    buyer = out[out.index("debrief: Seat 1, buyer"):out.index("debrief: Seat 2, seller")]
    seller = out[out.index("debrief: Seat 2, seller"):]
    # price 1100, 10 days, 1 year: buyer .6x.25 + .25x.5, seller .7x.82 + .2x1 + .1x.8
    assert "your utility 0.275, seller's 0.854 (now revealed)" in buyer
    assert "your utility 0.854, buyer's 0.275 (now revealed)" in seller
    assert child.exitstatus == 0
    with Store.open(tmp_path / "s.db", create=False) as store:
        (row,) = list(store.episodes("accord-run"))
    assert row.lineup == "human (buyer) vs human (seller)"


def test_two_people_play_a_simultaneous_game_without_seeing_each_others_action() -> None:
    child = spawn("games/prisoners-dilemma", "--agents", "human,human", "--max-rounds", "1")
    _handover(child, "Seat 1, Alice")
    child.expect("your brief: prisoners-dilemma")
    child.expect(r"Alice move \(message, help\)> ")
    child.sendline("message I will cooperate")
    _handover(child, "Seat 2, Bob")
    child.expect(r"Bob move \(message, help\)> ")
    assert "talk r1 Alice: I will cooperate" in (child.before or "")
    child.sendline("message so will I")
    _handover(child, "Seat 1, Alice")
    child.expect("Choose your action: 1=cooperate, 2=defect")
    child.expect(r"Alice move \(action, help\)> ")
    child.sendline("1")
    _handover(child, "Seat 2, Bob")
    child.expect(r"Bob move \(action, help\)> ")
    bob_screen = child.before or ""
    assert "your brief: prisoners-dilemma" in bob_screen and "You are: Bob" in bob_screen
    assert "You are: Alice" not in bob_screen
    assert "cooperate" in bob_screen and "played" not in bob_screen  # Alice's choice hidden
    child.sendline("2")
    out = finish(child)
    assert "Game completed: Alice played cooperate, Bob played defect" in out
    assert "debrief: Seat 1, Alice" in out and "debrief: Seat 2, Bob" in out
    assert child.exitstatus == 0


def test_seats_are_numbered_by_line_up_position() -> None:
    agents = (AgentSpec("boulware"), AgentSpec("human"), AgentSpec("human"))
    seats = person_seats("bargaining", "sprint-planning", agents)
    assert seats == {"product": 2, "operations": 3}
    assert lineup_seats(agents, seats) == {1: "product", 2: "operations"}
    assert person_seats("bargaining", "no-such-scenario", agents) == {}
    assert person_seats("bargaining", "buyer-seller", (AgentSpec("boulware"),) * 2) == {}


def test_a_hot_seat_without_numbers_numbers_seats_as_they_first_move() -> None:
    """Task exchange with two people, scripted lines (no terminal: nothing to clear)."""
    lines = iter(["", "", "", "", "", "offer 100001", "", "", "accept"])
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(lines)

    buf = io.StringIO()
    seat = TerminalSeat(Console(file=buf, width=120), reader=read, people=2)
    spec = EpisodeSpec("task-exchange", "competitive", (AgentSpec("human"),) * 2, {}, 0)
    result = asyncio.run(get_domain("task-exchange").run_episode(
        spec, RunContext(extra={"seat": seat})))
    assert seat.seats == {"Alice": 1, "Bob": 2}
    handovers = [p for p in prompts if "press Enter" in p]
    assert handovers[:2] == ["[bold]Seat 1, Alice[/]: press Enter when you are at the "
                             "keyboard> ", "[bold]Seat 2, Bob[/]: press Enter when you are "
                             "at the keyboard> "]
    text = buf.getvalue()
    assert "Seat 2, Bob: your turn; pass the keyboard to Bob." in text
    assert result.status == "agreement", text[-2000:]


def test_clear_screen_erases_a_terminal_and_leaves_a_pipe_alone() -> None:
    term = io.StringIO()
    clear_screen(Console(file=term, force_terminal=True, width=80, height=25))
    assert term.getvalue() == "\x1b[H\x1b[2J\x1b[3J"  # scrollback too
    pipe = io.StringIO()
    clear_screen(Console(file=pipe, width=80))
    assert pipe.getvalue() == ""
