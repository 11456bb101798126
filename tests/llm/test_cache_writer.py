"""The cache's group-commit writer: batches, errors to every waiter, idle exit, close."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from accord.llm import cache_writer
from accord.llm.cache_writer import GroupWriter


async def test_rows_waiting_together_are_written_in_one_batch() -> None:
    written: list[list[tuple[object, ...]]] = []
    gate = threading.Event()

    def write(rows: list[tuple[object, ...]]) -> None:
        gate.wait(5)  # hold the first batch so the others queue behind it
        written.append(list(rows))

    writer = GroupWriter(write)
    first = writer.submit((0,))
    await asyncio.sleep(0.05)  # the thread is now inside write() with row 0
    rest = [writer.submit((i,)) for i in range(1, 50)]
    gate.set()
    await asyncio.gather(first, *rest)
    assert written == [[(0,)], [(i,) for i in range(1, 50)]]
    assert (writer.batches, writer.rows) == (2, 50)
    writer.close()


async def test_a_failed_batch_fails_every_call_in_it() -> None:
    def write(rows: list[tuple[object, ...]]) -> None:
        raise OSError("disk full")

    writer = GroupWriter(write)
    futures = [writer.submit((i,)) for i in range(5)]
    results = await asyncio.gather(*futures, return_exceptions=True)
    assert all(isinstance(r, OSError) and "disk full" in str(r) for r in results)
    assert writer.rows == 0
    writer.close()


async def test_a_cancelled_caller_does_not_stop_its_row() -> None:
    written: list[tuple[object, ...]] = []
    gate = threading.Event()

    def write(rows: list[tuple[object, ...]]) -> None:
        gate.wait(5)
        written.extend(rows)

    writer = GroupWriter(write)
    future = writer.submit(("x",))
    future.cancel()
    gate.set()
    writer.close()  # drains: the row is written though nobody waits for it
    assert written == [("x",)]


def test_the_thread_ends_when_idle_and_restarts_on_demand(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    monkeypatch.setattr(cache_writer, "IDLE_EXIT", 0.05)
    written: list[tuple[object, ...]] = []
    writer = GroupWriter(written.extend)

    async def one(i: int) -> None:
        await writer.submit((i,))

    asyncio.run(one(1))
    deadline = time.monotonic() + 5
    while writer._thread is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert writer._thread is None  # ended on its own
    asyncio.run(one(2))  # a new loop, a new thread
    writer.close()
    assert written == [(1,), (2,)] and writer._thread is None


def test_a_row_whose_loop_closed_is_still_written() -> None:
    written: list[tuple[object, ...]] = []
    gate = threading.Event()

    def write(rows: list[tuple[object, ...]]) -> None:
        gate.wait(5)
        written.extend(rows)

    writer = GroupWriter(write)

    async def submit_and_leave() -> None:
        writer.submit(("late",))

    asyncio.run(submit_and_leave())  # the loop closes before the row is written
    gate.set()
    writer.close()  # no error from settling a future on a closed loop
    assert written == [("late",)]
