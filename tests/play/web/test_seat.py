"""The browser seat: a published turn, one reply, a close that ends the episode."""

from __future__ import annotations

import asyncio

import pytest

from accord.agents.human import SeatClosed, Turn
from accord.play.web.seat import WebSeat

TURN = Turn("games", "Alice", 1, ("action",), {"domain": "games"})


async def test_submit_hands_the_reply_over_once_and_clears_the_turn_at_once() -> None:
    seat = WebSeat()
    assert not seat.submit({"kind": "action", "action": "C"})  # nobody is waiting
    task = asyncio.ensure_future(seat.ask(TURN))
    await asyncio.sleep(0)
    assert seat.turn is TURN and seat.version == 1
    assert seat.submit({"kind": "action", "action": "C"})
    assert seat.turn is None and seat.version == 2  # a reload right now shows "waiting"
    assert not seat.submit({"kind": "action", "action": "D"})  # the second click is ignored
    assert await task == {"kind": "action", "action": "C"}


async def test_close_ends_the_waiting_turn_and_any_later_one() -> None:
    seat = WebSeat()
    task = asyncio.ensure_future(seat.ask(TURN))
    await asyncio.sleep(0)
    seat.close("left")
    with pytest.raises(SeatClosed, match="left"):
        await task
    with pytest.raises(SeatClosed):
        await seat.ask(TURN)
    assert seat.turn is None
