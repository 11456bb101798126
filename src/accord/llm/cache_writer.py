"""Group commit for the completion cache: one thread records every waiting answer at once.

Recording each answer from its own worker thread cost two thread hand-offs and one SQLite
transaction per call: at 64 calls in flight that was a third of the client's CPU per
call (``benchmarks/bench_llm.py``). Here a call hands its row to one writer thread and
awaits a future; the thread takes every row queued when it wakes, writes them in one
transaction and settles their futures with one wake-up per event loop. A call still
returns only after its answer is committed, so a run killed afterwards loses nothing
it acted on.

The thread starts on the first row and ends after :data:`IDLE_EXIT` seconds without
one (a cache nobody closes does not keep a thread forever); :meth:`GroupWriter.close`
drains what is queued and stops it.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable, Sequence
from typing import Any

IDLE_EXIT = 1.0
"""Seconds without a row after which the writer thread ends (it restarts on demand)."""

Row = tuple[Any, ...]
_Item = tuple[Row, asyncio.AbstractEventLoop, "asyncio.Future[None]"]


def _settle(futures: Sequence[asyncio.Future[None]], error: BaseException | None) -> None:
    """Resolve ``futures`` (on their loop): done, or failed with ``error``."""
    for future in futures:
        if future.done():  # the caller was cancelled; the row is written all the same
            continue
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)


class GroupWriter:
    """Writes rows with ``write(rows)`` (one transaction per call) on one thread."""

    def __init__(self, write: Callable[[list[Row]], None], name: str = "accord-cache-writer"
                 ) -> None:
        self._write = write
        self._name = name
        self._queue: queue.SimpleQueue[_Item | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        #: transactions and rows written so far (for benchmarks and tests)
        self.batches = 0
        self.rows = 0

    def submit(self, row: Row) -> asyncio.Future[None]:
        """Queue ``row``; the future resolves once it is committed (or fails with the error)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            self._queue.put((row, loop, future))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
        return future

    def close(self) -> None:
        """Write what is queued, then stop the thread (a later :meth:`submit` restarts it)."""
        with self._lock:
            thread = self._thread
            if thread is None:
                return
            self._queue.put(None)
        thread.join()

    def _take(self) -> tuple[list[_Item], bool]:
        """The next batch (waiting up to :data:`IDLE_EXIT` for its first row) and whether
        to stop after it; an empty batch with stop means the thread has ended."""
        while True:
            try:
                first = self._queue.get(timeout=IDLE_EXIT)
                break
            except queue.Empty:
                with self._lock:
                    if self._queue.empty():
                        self._thread = None
                        return [], True
        if first is None:
            with self._lock:
                self._thread = None
            return [], True
        batch, stop = [first], False
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is None:
                stop = True
                break
            batch.append(item)
        if stop:
            with self._lock:
                self._thread = None
        return batch, stop

    def _run(self) -> None:
        while True:
            batch, stop = self._take()
            if batch:
                self._commit(batch)
            if stop:
                return

    def _commit(self, batch: list[_Item]) -> None:
        error: BaseException | None = None
        try:
            self._write([row for row, _, _ in batch])
            self.batches += 1
            self.rows += len(batch)
        except Exception as exc:  # every waiting call sees the error, as if it wrote alone
            error = exc
        by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = {}
        for _, loop, future in batch:
            by_loop.setdefault(loop, []).append(future)
        for loop, futures in by_loop.items():
            # a closed loop (RuntimeError) has nobody waiting any more
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_settle, futures, error)
