"""The browser seat: a turn waits in memory until the person's form arrives.

:meth:`WebSeat.ask` publishes the :class:`~accord.agents.human.Turn` and awaits a future;
the page's POST hands the reply over with :meth:`WebSeat.submit`. Everything runs on the
server's event loop, so no locks are needed. ``version`` counts published turns so a page
can poll for "something changed" cheaply.
"""

from __future__ import annotations

import asyncio

from accord.agents.human.seat import Reply, Seat, SeatClosed, Turn


class WebSeat(Seat):
    """One person's seat in one browser game."""

    def __init__(self) -> None:
        self.turn: Turn | None = None
        self.version = 0
        self._reply: asyncio.Future[Reply] | None = None
        self.closed = False

    async def ask(self, turn: Turn) -> Reply:
        """Publish ``turn`` and wait for :meth:`submit` (or :meth:`close`)."""
        if self.closed:
            raise SeatClosed("the person left the game")
        fut: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._reply = fut
        self.turn = turn
        self.version += 1
        try:
            return await fut
        finally:
            if self._reply is fut:  # not yet cleared by submit (cancelled, closed)
                self._clear()

    def _clear(self) -> None:
        self.turn = None
        self._reply = None
        self.version += 1

    def submit(self, reply: Reply) -> bool:
        """Hand the person's reply to the waiting turn; ``False`` when none is waiting."""
        fut = self._reply
        if fut is None or fut.done():
            return False
        self._clear()  # the page reloaded right after this sees "waiting", never a stale turn
        fut.set_result(reply)
        return True

    def close(self, why: str = "the person left the game") -> None:
        """End the game from the person's side (the episode records it as ``quit``)."""
        self.closed = True
        fut = self._reply
        if fut is not None and not fut.done():
            self._clear()
            fut.set_exception(SeatClosed(why))
