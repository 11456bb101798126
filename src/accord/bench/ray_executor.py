"""The Ray executor (optional extra ``accord[ray]``): chunks of episodes as Ray tasks.

``ray`` starts (or joins, when ``RAY_ADDRESS`` is set) a local Ray instance;
``ray:auto`` / ``ray:HOST:PORT`` joins a running cluster from one of its nodes and
``ray://HOST:PORT`` connects through Ray Client. Worker nodes need accord (and any
config ``plugins``) installed. If this executor started Ray, it shuts it down at the end.

Each Ray task is a generator (:func:`~accord.bench.ray_chunks.run_chunk`) that runs a
chunk of episodes and streams their records back in groups; the driver alone writes
the store, one record at a time, so a run resumes per episode. The chunk size is
adaptive (about half a second of work per task,
:class:`~accord.bench.ray_chunks.ChunkSizer`) unless ``?chunk=N`` fixes it; on large
clusters the target grows with the slots so that the driver's per-task cost stays
bounded (:func:`~accord.bench.ray_chunks.chunk_plan`). Slots (Ray tasks running at
once) are the cluster's CPUs divided by ``?cpus=F`` (CPUs reserved per task), capped by
``concurrency``; each task runs ``ceil(concurrency / slots)`` episodes at once on one
event loop, so ``concurrency`` still bounds the episodes in flight. Twice as many tasks
as slots are kept submitted (workers never wait for the driver between chunks) and no
more, so the driver holds at most ``2 * slots`` chunks of tasks (at most 50,000
episodes in all), however long the plan.

An episode that fails is a ``failed`` record like any other and its chunk-mates carry
on. If a whole task fails (its worker process died, the node was lost), the records it
had already sent are kept and the episodes it had not reported are run again, each
alone in its own task, so only an episode that fails by itself is recorded as failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator, Iterable, Iterator, Sized
from typing import Any

from accord.bench.executors import Executor
from accord.bench.ray_chunks import FLUSH_SECONDS, ChunkSizer, chunk_plan, run_chunk
from accord.bench.worker import EpisodeRecord, EpisodeTask, failed_record


def import_ray() -> Any:
    """Import ray or explain how to get it."""
    try:
        import ray
    except ImportError:
        raise RuntimeError("the ray executor needs Ray: pip install 'accord[ray]' "
                           "(or pip install ray)") from None
    return ray


class RayExecutor(Executor):
    """Chunks of episodes as Ray tasks; at most ``concurrency`` episodes running
    (default: the cluster's CPUs divided by the CPUs reserved per task)."""

    name = "ray"

    def __init__(self, address: str | None = None, concurrency: int | None = None,
                 num_cpus_per_task: float = 1.0, chunk: int | None = None,
                 flush: float = FLUSH_SECONDS) -> None:
        if chunk is not None and chunk < 1:
            raise ValueError("chunk must be at least 1 episode per task")
        self.address = address
        self.requested = concurrency
        self.concurrency = concurrency or 1
        self.num_cpus = num_cpus_per_task
        #: episodes per task (``None``: adaptive)
        self.chunk = chunk
        self.flush = flush
        #: Ray tasks running at once (set by :meth:`prepare`)
        self.slots = 1
        #: the last run's chunk sizer (its measured rate; for benchmarks and tests)
        self.sizer: ChunkSizer | None = None
        self._started = False

    def prepare(self) -> None:
        """Start or join Ray (once); size the slots and ``concurrency`` to the cluster."""
        ray = import_ray()
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"ignore_reinit_error": True, "log_to_driver": False,
                                      "logging_level": "warning"}
            if self.address is None:
                kwargs["include_dashboard"] = False
            ray.init(address=self.address, **kwargs)
            self._started = True
        cpus = ray.cluster_resources().get("CPU", 1)
        slots = max(1, int(cpus // self.num_cpus))
        if self.requested is None:
            self.concurrency = slots
        self.slots = min(slots, self.concurrency)

    async def run(self, tasks: Iterable[EpisodeTask]) -> AsyncIterator[EpisodeRecord]:
        """Keep ``2 * slots`` chunk tasks submitted and yield each record as it arrives."""
        ray = import_ray()
        if not ray.is_initialized():
            await asyncio.to_thread(self.prepare)
        started, self._started = self._started, False
        lanes = -(-self.concurrency // self.slots)
        sizer, in_flight, flush = chunk_plan(self.slots, lanes, self.chunk, self.flush)
        self.sizer = sizer
        remote = ray.remote(num_cpus=self.num_cpus, max_retries=0)(run_chunk)
        left = len(tasks) if isinstance(tasks, Sized) else None
        it: Iterator[EpisodeTask] = iter(tasks)
        # a one-slot queue: at most one received record waits for the store per task
        out: asyncio.Queue[EpisodeRecord | Exception | None] = asyncio.Queue(maxsize=1)

        def take() -> list[EpisodeTask]:
            nonlocal left
            chunk = list(itertools.islice(it, sizer.size(left, in_flight)))
            if left is not None:
                left -= len(chunk)
            return chunk

        async def run_one(chunk: list[EpisodeTask]) -> None:
            """One Ray task: forward its records; if it dies, rerun the rest alone."""
            gen = remote.remote(chunk, lanes, flush)
            reported: set[str] = set()
            first, last = float("inf"), float("-inf")
            try:
                async for ref in gen:
                    for rec in await ref:
                        reported.add(rec.id)
                        first, last = min(first, rec.started), max(last, rec.finished)
                        await out.put(rec)
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):  # best effort on the way out
                    ray.cancel(gen, force=True)
                raise
            except Exception as exc:  # worker died, task lost, serialization ...
                rest = [t for t in chunk if t.id not in reported]
                if len(chunk) == 1:
                    for task in rest:
                        await out.put(failed_record(task, f"ray: {type(exc).__name__}: "
                                                          f"{exc}"))
                else:
                    for task in rest:
                        await run_one([task])
            else:
                sizer.observe(len(reported), last - first)

        async def submitter() -> None:
            end: Exception | None = None
            try:
                while chunk := take():
                    await run_one(chunk)
            except Exception as exc:  # a bug outside any episode: stop the run loudly
                end = exc
            finally:
                if not cancelling():
                    await out.put(end)

        def cancelling() -> bool:
            task = asyncio.current_task()
            return task is not None and task.cancelling() > 0

        workers = [asyncio.create_task(submitter()) for _ in range(in_flight)]
        live = len(workers)
        try:
            while live:
                rec = await out.get()
                if rec is None:
                    live -= 1
                elif isinstance(rec, Exception):
                    raise rec
                else:
                    yield rec
        finally:
            for w in workers:
                w.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            if started:
                await asyncio.to_thread(ray.shutdown)
