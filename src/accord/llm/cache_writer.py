"""Group commit for the completion cache: one thread records every waiting answer at once.

Recording each answer from its own worker thread cost two thread hand-offs and one SQLite
transaction per call: at 64 calls in flight that was a third of the client's CPU per
call (``benchmarks/bench_llm.py``). Here a call hands its row to one writer thread and
awaits a future; the thread takes every row queued when it wakes, writes them in one
transaction and settles their futures with one wake-up per event loop. A call still
returns only after its answer is committed, so a run killed afterwards loses nothing
it acted on; a row whose caller was cancelled is written all the same, and rows still
queued when the interpreter exits are written first (an ``atexit`` drain), as the
worker threads used before were joined.

The thread starts on the first row and ends after :data:`IDLE_EXIT` seconds without
one (a cache nobody closes does not keep a thread forever); :meth:`GroupWriter.close`
writes what is queued and stops it for good.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import queue
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any

IDLE_EXIT = 1.0
"""Seconds without a row after which the writer thread ends (it restarts on demand)."""

Row = tuple[Any, ...]
Write = Callable[[list[Row]], Sequence[BaseException | None] | None]
"""Writes rows: ``None`` when all are written, else one error (or ``None``) per row;
raising means every row failed alike."""
_Item = tuple[Row, asyncio.AbstractEventLoop, "asyncio.Future[None]"]
_LIVE: weakref.WeakSet[GroupWriter] = weakref.WeakSet()


class WriterClosedError(RuntimeError):
    """A row was handed to a writer after :meth:`GroupWriter.close`."""


def _settle(outcomes: Sequence[tuple[asyncio.Future[None], BaseException | None]]) -> None:
    """Resolve each future (on its loop): done, or failed with its error."""
    for future, error in outcomes:
        if future.done():  # the caller was cancelled; the row is written all the same
            continue
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)


class GroupWriter:
    """Writes rows with ``write(rows)`` (one transaction per call) on one thread."""

    def __init__(self, write: Write, name: str = "accord-cache-writer") -> None:
        self._write = write
        self._name = name
        self._queue: queue.SimpleQueue[_Item | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False
        #: transactions and rows written so far (for benchmarks and tests)
        self.batches = 0
        self.rows = 0
        _LIVE.add(self)

    def submit(self, row: Row) -> asyncio.Future[None]:
        """Queue ``row``; the future resolves once it is committed (or fails with the error).

        Raises :class:`WriterClosedError` after :meth:`close`, and the thread's start
        error if it cannot start (nothing is queued then).
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self._closed:
                raise WriterClosedError(f"{self._name}: closed; the row was not recorded")
            if self._thread is None:
                thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                thread.start()  # may raise: then nothing is queued and no thread is set
                self._thread = thread
            self._queue.put((row, loop, future))
        return future

    def close(self) -> None:
        """Write what is queued, then stop the thread; later rows are refused."""
        with self._lock:
            thread = self._thread
            if not self._closed:
                self._closed = True
                if thread is not None:
                    self._queue.put(None)
        if thread is not None and thread is not threading.current_thread():
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
        batch: list[_Item] = []
        stop = first is None
        if first is not None:
            batch.append(first)
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
        errors: Sequence[BaseException | None]
        try:
            result = self._write([row for row, _, _ in batch])
            errors = [None] * len(batch) if result is None else result
        except Exception as exc:  # every waiting call sees the error, as if it wrote alone
            errors = [exc] * len(batch)
        written = sum(e is None for e in errors)
        if written:
            self.batches += 1
            self.rows += written
        by_loop: dict[asyncio.AbstractEventLoop,
                      list[tuple[asyncio.Future[None], BaseException | None]]] = {}
        for (_, loop, future), error in zip(batch, errors, strict=True):
            by_loop.setdefault(loop, []).append((future, error))
        for loop, outcomes in by_loop.items():
            # a closed loop (RuntimeError) has nobody waiting any more
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_settle, outcomes)


@atexit.register
def _drain_at_exit() -> None:
    """Write every queued row before the interpreter ends the daemon writer threads."""
    for writer in list(_LIVE):
        writer.close()
