"""The cache's group-commit writer: batches, errors to every waiter, idle exit, close."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from accord.llm import cache_writer
from accord.llm.cache_writer import GroupWriter, WriterClosedError


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


def _gated() -> tuple[GroupWriter, threading.Event, list[tuple[object, ...]]]:
    """A writer whose writes wait for the returned gate, and the rows it wrote."""
    written: list[tuple[object, ...]] = []
    gate = threading.Event()

    def write(rows: list[tuple[object, ...]]) -> None:
        gate.wait(5)
        written.extend(rows)

    return GroupWriter(write), gate, written


async def test_a_cancelled_caller_does_not_stop_its_row() -> None:
    writer, gate, written = _gated()
    future = writer.submit(("x",))
    future.cancel()
    gate.set()
    writer.close()  # drains: the row is written though nobody waits for it
    assert written == [("x",)]


async def test_a_bad_row_fails_only_its_own_call() -> None:
    written: list[tuple[object, ...]] = []

    def write(rows: list[tuple[object, ...]]) -> list[BaseException | None] | None:
        if len(rows) > 1 and ("bad",) in rows:
            return [ValueError("bad row") if row == ("bad",) else None for row in rows]
        written.extend(rows)
        return None

    writer = GroupWriter(write)
    gate = writer.submit(("first",))
    rows = [("a",), ("bad",), ("b",)]
    results = await asyncio.gather(gate, *(writer.submit(r) for r in rows),
                                   return_exceptions=True)
    assert [type(r).__name__ for r in results] in (
        ["NoneType", "NoneType", "ValueError", "NoneType"],  # batched behind the first
        ["NoneType"] * 4)  # (or each alone: then nothing was refused)
    writer.close()


async def test_a_closed_writer_refuses_rows_instead_of_losing_them() -> None:
    writer = GroupWriter(lambda rows: None)
    await writer.submit((1,))
    writer.close()
    writer.close()  # twice: harmless
    with pytest.raises(WriterClosedError, match="not recorded"):
        writer.submit((2,))


async def test_a_thread_that_cannot_start_queues_nothing_and_the_next_row_starts_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    written: list[tuple[object, ...]] = []
    writer = GroupWriter(written.extend)
    real_start = threading.Thread.start
    fail = [True]

    def start(self: threading.Thread) -> None:
        if fail.pop() if fail else False:
            raise RuntimeError("can't start new thread")
        real_start(self)

    monkeypatch.setattr(threading.Thread, "start", start)
    with pytest.raises(RuntimeError, match="start new thread"):
        writer.submit((1,))
    await writer.submit((2,))
    writer.close()
    assert written == [(2,)]


def test_rows_of_cancelled_calls_are_written_before_the_interpreter_exits(
        tmp_path: Path) -> None:
    """The writer is a daemon thread: an exit hook drains it (as the worker threads used
    before were joined at loop shutdown)."""
    path = tmp_path / "c.sqlite"
    code = f"""
import asyncio, sqlite3, threading
from accord.llm.cache import CompletionCache
from accord.llm.providers import resolve_model
from accord.llm.types import Completion, Usage
cache = CompletionCache({str(path)!r}, "rw", busy_timeout=10)
blocker = sqlite3.connect({str(path)!r}, isolation_level=None, check_same_thread=False)
blocker.execute("BEGIN IMMEDIATE")  # another writer holds the file for a while
threading.Timer(0.5, lambda: blocker.execute("COMMIT")).start()
async def main():
    put = cache.put("k", Completion("t", Usage(1, 1), 0.1, "mock/x", "mock"),
                    resolve_model("mock/x", {{}}), None)
    try:
        await asyncio.wait_for(put, 0.1)
    except asyncio.TimeoutError:
        print("cancelled")
asyncio.run(main())
"""  # the cache is never closed, as agents' shared runtimes never close theirs
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "cancelled"
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT text FROM completions").fetchall() == [("t",)]


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
    writer, gate, written = _gated()

    async def submit_and_leave() -> None:
        writer.submit(("late",))

    asyncio.run(submit_and_leave())  # the loop closes before the row is written
    gate.set()
    writer.close()  # no error from settling a future on a closed loop
    assert written == [("late",)]
