"""Chunks of episodes for the Ray executor: how many go in one Ray task, and the worker
side that runs a chunk and streams its records back in groups.

One Ray task per episode costs a round trip through the scheduler and about a
millisecond of driver CPU per task; for millisecond code episodes that is most of the
work. The Ray executor therefore sends a *chunk* of episodes per task:

* :class:`ChunkSizer` picks the chunk size: fixed (``ray?chunk=N``), or adaptive (the
  default) so that each task runs about :data:`TARGET_SECONDS` of work, from the
  throughput measured on the chunks finished so far, never more than
  :data:`MAX_CHUNK`, and smaller near the end of the run so that the last tasks finish
  together.
* :func:`run_chunk` is the Ray generator task: it runs the chunk's episodes on one event
  loop (``lanes`` at once) and yields the finished records in groups, whatever finished,
  at most every ``flush`` seconds: the driver stores each record as it arrives (resume
  stays per episode) and pays one message per group, not one per episode.

Nothing here imports Ray: both parts are tested without a cluster.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from accord.bench.worker import EpisodeRecord, EpisodeTask, execute

#: seconds of work an adaptive chunk aims at (per Ray task), on a small cluster
TARGET_SECONDS = 0.5
#: ... and on a large one, per slot: the driver then handles about ``1 / TARGET_PER_SLOT``
#: = 50 chunks a second however many slots there are (~1 ms of driver CPU each)
TARGET_PER_SLOT = 0.02
#: an adaptive chunk never holds more episodes than this
MAX_CHUNK = 1000
#: nor more than this many episodes wait in all submitted chunks together (driver memory)
MAX_SUBMITTED = 50_000
#: a running chunk sends its finished records at most this often (seconds), and at
#: least every half target
FLUSH_SECONDS = 0.25


@dataclass
class ChunkSizer:
    """Episodes per Ray task.

    ``lanes`` is how many episodes a task runs at once (a chunk is never smaller, so
    that every lane has work); ``fixed`` a chunk size set by the user (``None``:
    adaptive). The adaptive size is ``rate * target`` where ``rate`` is the episodes
    per second a task finished so far (an exponential moving average over chunks);
    before the first chunk has finished it is ``lanes`` (a probe).
    """

    lanes: int = 1
    fixed: int | None = None
    target: float = TARGET_SECONDS
    max_chunk: int = MAX_CHUNK
    #: measured episodes per second per task (``None`` until a chunk finished)
    rate: float | None = None

    def __post_init__(self) -> None:
        if self.lanes < 1:
            raise ValueError("lanes must be at least 1")
        if self.fixed is not None and self.fixed < 1:
            raise ValueError("a fixed chunk size must be at least 1")

    def observe(self, episodes: int, seconds: float) -> None:
        """A task finished ``episodes`` episodes in ``seconds`` (first start to last end)."""
        if episodes <= 0 or not math.isfinite(seconds):
            return
        rate = episodes / max(seconds, 1e-4)
        self.rate = rate if self.rate is None else 0.5 * self.rate + 0.5 * rate

    def size(self, remaining: int | None = None, tasks: int = 1) -> int:
        """The next chunk's size; ``remaining``: episodes not yet sent (``None``: unknown),
        ``tasks``: Ray tasks kept in flight (the tail is spread over them)."""
        if self.fixed is not None:
            return self.fixed
        if self.rate is None:
            n = self.lanes
        else:
            n = max(self.lanes, min(self.max_chunk, math.ceil(self.rate * self.target)))
        if remaining is not None:
            n = min(n, max(self.lanes, math.ceil(remaining / max(1, tasks))))
        return max(1, n)


def chunk_plan(slots: int, lanes: int, fixed: int | None = None,
               flush: float = FLUSH_SECONDS) -> tuple[ChunkSizer, int, float]:
    """``(sizer, tasks in flight, flush seconds)`` for ``slots`` Ray tasks running at once.

    Twice as many tasks as slots stay submitted, so a worker never waits for the driver
    between chunks. Adaptive chunks aim at :data:`TARGET_SECONDS` of work, or
    :data:`TARGET_PER_SLOT` per slot on large clusters (1,600 slots: 32 s), so that the
    driver's per-task and per-message cost stays bounded as the cluster grows; all
    submitted chunks together hold at most :data:`MAX_SUBMITTED` episodes.
    """
    in_flight = 2 * max(1, slots)
    target = max(TARGET_SECONDS, slots * TARGET_PER_SLOT)
    cap = max(lanes, min(MAX_CHUNK, MAX_SUBMITTED // in_flight))
    sizer = ChunkSizer(lanes=lanes, fixed=fixed, target=target, max_chunk=cap)
    return sizer, in_flight, max(flush, target / 2)


def run_chunk(tasks: Sequence[EpisodeTask], lanes: int = 1,
              flush: float = FLUSH_SECONDS) -> Iterator[list[EpisodeRecord]]:
    """Run the chunk's episodes, at most ``lanes`` at once on one fresh event loop, and
    yield their records in groups: what finished, at most every ``flush`` seconds, and
    the rest at the end. Every task yields exactly one record (an episode's failure is
    a ``failed`` record, as in :func:`~accord.bench.worker.execute`)."""
    loop = asyncio.new_event_loop()
    finished: list[EpisodeRecord] = []
    pending = iter(tasks)

    async def lane() -> None:
        for task in pending:
            finished.append(await execute(task))
            await asyncio.sleep(0)  # let the flush timer fire between code episodes

    async def all_lanes() -> None:
        await asyncio.gather(*(lane() for _ in range(max(1, min(lanes, len(tasks))))))

    main = loop.create_task(all_lanes())
    try:
        last = time.monotonic()
        while True:
            if not main.done():
                wait = max(0.0, last + flush - time.monotonic())
                loop.run_until_complete(asyncio.wait({main}, timeout=wait))
            if finished and (main.done() or time.monotonic() >= last + flush):
                group = finished[:]
                finished.clear()
                yield group
                last = time.monotonic()
            if main.done():
                break
        main.result()  # a bug outside any episode ends the chunk loudly
    finally:
        if not main.done():  # the driver cancelled the task
            main.cancel()
            loop.run_until_complete(asyncio.gather(main, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()
