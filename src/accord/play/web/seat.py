"""The browser seat: a turn waits in memory until the person's form arrives.

:meth:`WebSeat.ask` publishes the :class:`~accord.agents.human.Turn` and awaits a future;
the page's POST hands the reply over with :meth:`WebSeat.submit`. The episode runs on
its own event loop in its own thread (:class:`~accord.play.web.games.Games`), the pages
on the server's loop, so the hand-over is thread-safe: the seat's state changes under a
lock and the future is resolved on the episode's loop (``call_soon_threadsafe``).
``version`` counts published turns so a page can poll for "something changed" cheaply.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Mapping
from typing import Any

from accord.agents.human.seat import Reply, Seat, SeatClosed, Turn


def _settle(fut: asyncio.Future[Reply], reply: Reply | None,
            error: BaseException | None) -> None:
    """Resolve ``fut`` on its own loop, from any thread (a closed loop: nobody waits)."""

    def settle() -> None:
        if fut.done():
            return
        if error is not None:
            fut.set_exception(error)
        else:
            fut.set_result(reply)  # type: ignore[arg-type]

    with contextlib.suppress(RuntimeError):  # the episode's loop is already closed
        fut.get_loop().call_soon_threadsafe(settle)


class WebSeat(Seat):
    """One person's seat in one browser game."""

    def __init__(self) -> None:
        self.turn: Turn | None = None
        #: the person's latest private brief (kept while the other side thinks)
        self.brief: Mapping[str, Any] | None = None
        self.version = 0
        self._reply: asyncio.Future[Reply] | None = None
        self.closed = False
        self._lock = threading.Lock()

    async def ask(self, turn: Turn) -> Reply:
        """Publish ``turn`` and wait for :meth:`submit` (or :meth:`close`)."""
        fut: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        with self._lock:
            if self.closed:
                raise SeatClosed("the person left the game")
            self._reply = fut
            self.turn = turn
            self.brief = turn.view.get("brief") or self.brief
            self.version += 1
        try:
            return await fut
        finally:
            with self._lock:
                if self._reply is fut:  # not yet cleared by submit (cancelled, closed)
                    self._clear()

    def _clear(self) -> None:
        self.turn = None
        self._reply = None
        self.version += 1

    def submit(self, reply: Reply) -> bool:
        """Hand the person's reply to the waiting turn; ``False`` when none is waiting.
        Safe to call from any thread."""
        with self._lock:
            fut = self._reply
            if fut is None or fut.done():
                return False
            self._clear()  # a page reloaded right after this sees "waiting", never a stale turn
        _settle(fut, reply, None)
        return True

    def close(self, why: str = "the person left the game") -> None:
        """End the game from the person's side (the episode records it as ``quit``).
        Safe to call from any thread."""
        with self._lock:
            self.closed = True
            fut = self._reply
            if fut is None or fut.done():
                return
            self._clear()
        _settle(fut, None, SeatClosed(why))
