"""Executors: run episode tasks concurrently and yield their records as they finish.

* ``local`` (default): one asyncio loop, at most ``concurrency`` episodes in flight.
  Right for LLM agents, whose episodes mostly wait on the network.
* ``process``: a pool of ``concurrency`` worker processes (spawned, so no state leaks
  from the driver); right for CPU-heavy agents and solvers.
* ``ray`` / ``ray:ADDRESS`` / ``ray://ADDRESS``: Ray tasks on a local instance or a
  cluster (:mod:`accord.bench.ray_executor`, optional extra).

Every executor yields :class:`~accord.bench.worker.EpisodeRecord` objects back to the
driver, which is the only writer to the store.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from accord.bench.worker import EpisodeRecord, EpisodeTask, execute, execute_sync, failed_record


def watch_parent(parent: int, period: float = 1.0) -> None:
    """Pool-worker initializer: exit when the driver process is gone.

    A SIGKILLed ``accord bench`` cannot shut its pool down; without this its workers would
    be re-parented and idle forever.
    """
    import threading
    import time

    def watch() -> None:
        while True:
            time.sleep(period)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="accord-parent-watch", daemon=True).start()

#: default episodes in flight for the asyncio executor
DEFAULT_CONCURRENCY = 8


@dataclass(frozen=True)
class ExecutorChoice:
    """A parsed ``--executor`` value: ``kind`` and, for Ray, the cluster ``address``."""

    kind: str
    address: str | None = None

    def __str__(self) -> str:
        if self.kind == "ray" and self.address:
            return self.address if "://" in self.address else f"ray:{self.address}"
        return self.kind


def parse_executor(text: str) -> ExecutorChoice:
    """Parse ``local``, ``process``, ``ray``, ``ray:ADDRESS`` or ``ray://HOST:PORT``."""
    t = text.strip()
    if t in ("local", "asyncio", "process"):
        return ExecutorChoice("process" if t == "process" else "local")
    if t == "ray":
        return ExecutorChoice("ray")
    if t.startswith("ray://"):
        if len(t) == len("ray://"):
            raise ValueError("ray:// needs an address, e.g. ray://head-node:10001")
        return ExecutorChoice("ray", t)
    if t.startswith("ray:"):
        addr = t[len("ray:"):]
        if not addr:
            raise ValueError("ray: needs an address, e.g. ray:auto or ray:10.0.0.5:6379")
        return ExecutorChoice("ray", addr)
    raise ValueError(f"unknown executor {text!r}; use local, process, ray, ray:ADDRESS or "
                     "ray://ADDRESS")


class Executor(ABC):
    """Runs tasks and yields records in completion order."""

    #: the executor's name, as given on the command line
    name: str = "executor"
    #: how many episodes may be in flight at once
    concurrency: int = 1

    def prepare(self) -> None:
        """Connect to resources and settle ``concurrency`` before the run is recorded."""
        return None

    @abstractmethod
    def run(self, tasks: Iterable[EpisodeTask]) -> AsyncIterator[EpisodeRecord]:
        """Yield one record per task, as each finishes."""


class LocalExecutor(Executor):
    """asyncio in the driver's loop, with at most ``concurrency`` episodes in flight."""

    name = "local"

    def __init__(self, concurrency: int = DEFAULT_CONCURRENCY) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.concurrency = concurrency

    async def run(self, tasks: Iterable[EpisodeTask]) -> AsyncIterator[EpisodeRecord]:
        """Worker coroutines pull from one shared iterator (bounded memory, no task per episode)."""
        it: Iterator[EpisodeTask] = iter(tasks)
        # a one-slot queue: a finished record waits for the driver to store it before its
        # worker may finish another one, so at most ``concurrency`` finished records are
        # ever unwritten, even for episodes that never yield to the loop (code agents)
        out: asyncio.Queue[EpisodeRecord | Exception | None] = asyncio.Queue(maxsize=1)

        async def worker() -> None:
            end: Exception | None = None
            try:
                for task in it:
                    await out.put(await execute(task))
                    await asyncio.sleep(0)  # let the driver write before the next episode
            except Exception as exc:  # a bug outside any episode: stop the run loudly
                end = exc
            finally:
                if not cancelling():
                    await out.put(end)

        def cancelling() -> bool:
            task = asyncio.current_task()
            return task is not None and task.cancelling() > 0

        workers = [asyncio.create_task(worker()) for _ in range(self.concurrency)]
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


class ProcessExecutor(Executor):
    """A pool of spawned worker processes, each running one episode at a time."""

    name = "process"

    def __init__(self, concurrency: int | None = None) -> None:
        self.concurrency = concurrency or os.cpu_count() or 1

    def _pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self.concurrency,
                                   mp_context=multiprocessing.get_context("spawn"),
                                   initializer=watch_parent, initargs=(os.getpid(),))

    async def run(self, tasks: Iterable[EpisodeTask]) -> AsyncIterator[EpisodeRecord]:
        """Keep the pool busy with a small queue; a dead worker fails its episodes only."""
        loop = asyncio.get_running_loop()
        it = iter(tasks)
        pool = self._pool()
        pending: dict[asyncio.Future[EpisodeRecord], tuple[EpisodeTask, ProcessPoolExecutor]] = {}

        def fill() -> None:
            while len(pending) < 2 * self.concurrency:
                task = next(it, None)
                if task is None:
                    return
                pending[loop.run_in_executor(pool, execute_sync, task)] = (task, pool)

        try:
            fill()
            while pending:
                done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for fut in done:
                    task, owner = pending.pop(fut)
                    try:
                        yield fut.result()
                    except BrokenProcessPool:
                        yield failed_record(task, "BrokenProcessPool: a worker process died "
                                            "(out of memory, a crash in native code or a "
                                            "kill) while this episode was running or queued")
                        if owner is pool:  # replace the broken pool once
                            pool.shutdown(wait=False, cancel_futures=True)
                            pool = self._pool()
                    except Exception as exc:
                        yield failed_record(task, f"{type(exc).__name__}: {exc}")
                fill()
        finally:
            pool.shutdown(wait=False, cancel_futures=True)


def make_executor(choice: ExecutorChoice | str, concurrency: int | None = None) -> Executor:
    """Build the executor named by ``choice`` (Ray is imported only when asked for)."""
    if isinstance(choice, str):
        choice = parse_executor(choice)
    if choice.kind == "local":
        return LocalExecutor(concurrency or DEFAULT_CONCURRENCY)
    if choice.kind == "process":
        return ProcessExecutor(concurrency)
    from accord.bench.ray_executor import RayExecutor

    return RayExecutor(choice.address, concurrency)
