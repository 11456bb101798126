"""Executors: run episode tasks concurrently and yield their records as they finish.

* ``local`` (default): one asyncio loop, at most ``concurrency`` episodes in flight.
  Right for LLM agents, whose episodes mostly wait on the network.
* ``process``: one pool per run of ``min(concurrency, CPUs, episodes)`` worker processes
  (forked from a fork server, a clean interpreter started for the purpose, else
  spawned: no state leaks from the driver);
  right for CPU-heavy agents and solvers. Episodes travel in small batches and each
  worker runs its batch with asyncio, so ``concurrency`` still bounds episodes in flight.
* ``ray`` / ``ray:ADDRESS`` / ``ray://ADDRESS``: chunks of episodes as Ray tasks on a
  local instance or a cluster (:mod:`accord.bench.ray_executor`, optional extra).
  Options after ``?``, joined by ``&``: ``cpus=F`` sets the CPUs Ray reserves per task
  (default 1; the cluster's CPUs / F tasks run at once), ``chunk=N`` the episodes per
  task (default ``auto``: about half a second of work per task).

Every executor yields :class:`~accord.bench.worker.EpisodeRecord` objects back to the
driver, which is the only writer to the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from accord.bench.worker import EpisodeRecord, EpisodeTask, execute, execute_batch, failed_record


def watch_parent(parent: int, period: float = 1.0) -> None:
    """Pool-worker initializer: exit when the driver process is gone.

    A SIGKILLed ``accord bench`` cannot shut its pool down; without this its workers would
    be re-parented and idle forever. A worker's parent is the driver (spawn) or the fork
    server, which exits with the driver: either way the parent changes, or the driver's
    pid disappears.
    """
    import threading
    import time

    first = os.getppid()

    def gone() -> bool:
        if os.getppid() != first:
            return True
        try:
            os.kill(parent, 0)
        except ProcessLookupError:
            return True
        except PermissionError:  # the pid now belongs to another user's process
            return True
        return False

    def watch() -> None:
        while True:
            time.sleep(period)
            if gone():
                os._exit(0)

    threading.Thread(target=watch, name="accord-parent-watch", daemon=True).start()


def init_worker(parent: int, modules: tuple[str, ...] = (), encoder: Any = None) -> None:
    """Pool-worker initializer: watch the driver, then import what the run's episodes need.

    ``modules`` are the run's domain modules and plugins; with the fork server they are
    already loaded (preloaded once, inherited by every worker). A module that fails to
    import is skipped here: the episodes that need it fail with the error text.
    ``encoder``: the store's :class:`~accord.bench.rows.EncoderSpec`, so the worker packs
    the records it returns (:func:`~accord.bench.worker.encode_here`).
    """
    import importlib

    from accord.bench.worker import encode_here

    watch_parent(parent)
    encode_here(encoder)
    for module in modules:
        with contextlib.suppress(Exception):
            importlib.import_module(module)


def available_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        with contextlib.suppress(OSError):
            return max(1, len(affinity(0)))
    return os.cpu_count() or 1


def worker_modules(tasks: Sequence[EpisodeTask]) -> tuple[str, ...]:
    """The domain modules and plugins the tasks need, in first-use order."""
    from accord.domains import domain_module

    out: dict[str, None] = {}
    for task in tasks:
        for plugin in task.plugins:
            out.setdefault(plugin)
        module = domain_module(task.spec.domain)
        if module is not None:
            out.setdefault(module)
    return tuple(out)


def pool_size(concurrency: int, episodes: int, cpus: int | None = None) -> int:
    """Worker processes for a run: never more than episodes in flight, CPUs or episodes."""
    return max(1, min(concurrency, cpus or available_cpus(), episodes))


#: at most this many episodes travel to a worker in one message
MAX_BATCH = 16


def batch_size(episodes: int, workers: int) -> int:
    """Episodes per pool message: about four batches per worker, at most :data:`MAX_BATCH`.

    One message per episode costs a round trip per (often millisecond-long) code-agent
    episode; a few batches per worker keep the load balanced and records flowing.
    """
    return max(1, min(MAX_BATCH, episodes // (4 * workers)))


#: default episodes in flight for the asyncio executor
DEFAULT_CONCURRENCY = 8


@dataclass(frozen=True)
class ExecutorChoice:
    """A parsed ``--executor`` value: ``kind`` and, for Ray, the cluster ``address``."""

    kind: str
    address: str | None = None
    #: CPUs Ray reserves per task (``?cpus=F``); ``None``: the default, 1
    cpus: float | None = None
    #: episodes per Ray task (``?chunk=N``); ``None``: adaptive (``?chunk=auto``)
    chunk: int | None = None

    def __str__(self) -> str:
        out = self.kind
        if self.kind == "ray" and self.address:
            out = self.address if "://" in self.address else f"ray:{self.address}"
        options = ([] if self.cpus is None else [f"cpus={self.cpus:g}"]) + (
            [] if self.chunk is None else [f"chunk={self.chunk}"])
        return f"{out}?{'&'.join(options)}" if options else out


_RAY_OPTIONS = ("the options are ?cpus=F with F > 0 (CPUs per Ray task) and ?chunk=N with "
                "N >= 1 or ?chunk=auto (episodes per task), joined by &, e.g. "
                "ray?cpus=0.5&chunk=32")


def _ray_options(text: str, query: str) -> tuple[float | None, int | None]:
    """``(cpus, chunk)`` from the text after ``?`` of a Ray executor."""
    cpus: float | None = None
    chunk: int | None = None
    for item in query.split("&"):
        key, eq, value = item.partition("=")
        if key == "cpus" and eq:
            try:
                cpus = float(value)
            except ValueError:
                cpus = float("nan")
            if not cpus > 0 or cpus == float("inf"):
                raise ValueError(f"executor {text!r}: ?cpus=F with F > 0, e.g. ray?cpus=0.25")
        elif key == "chunk" and eq:
            if value == "auto":
                chunk = None
                continue
            if not value.isdigit() or int(value) < 1:
                raise ValueError(f"executor {text!r}: ?chunk=N with N >= 1 episodes per task, "
                                 "or ?chunk=auto")
            chunk = int(value)
        else:
            raise ValueError(f"executor {text!r}: {_RAY_OPTIONS}")
    return cpus, chunk


def parse_executor(text: str) -> ExecutorChoice:
    """Parse ``local``, ``process``, ``ray``, ``ray:ADDRESS`` or ``ray://HOST:PORT``, the
    Ray forms optionally with options ``?cpus=F`` (CPUs reserved per task, > 0) and
    ``?chunk=N`` (episodes per task, or ``auto``), joined by ``&``."""
    t = text.strip()
    if t.startswith("ray") and "?" in t:
        base, _, query = t.partition("?")
        cpus, chunk = _ray_options(text, query)
        choice = parse_executor(base)
        if choice.kind != "ray":
            raise ValueError(f"unknown executor {text!r}; ?cpus= and ?chunk= are for ray "
                             "executors")
        return ExecutorChoice("ray", choice.address, cpus, chunk)
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
    #: the store's encoding, where the executor's workers pack records for it (see
    #: :meth:`encode_for`)
    encoder: Any = None

    def encode_for(self, spec: Any) -> None:
        """Have the workers pack each record for the store whose encoding ``spec`` is (an
        :class:`~accord.bench.rows.EncoderSpec`), where they run apart from the driver:
        the driver then only executes the inserts. Executors whose workers share the
        driver's process or run on other machines ignore it (the driver encodes)."""
        return None

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
    """One pool of worker processes per run; batches of episodes go to free workers.

    The pool has :func:`pool_size` workers (``concurrency`` capped by the CPUs and the
    number of episodes); each runs its batch of :func:`batch_size` episodes with at most
    ``ceil(concurrency / workers)`` in flight. Where the platform has a fork server, the
    workers are forked from it after it imported, once, the driver's main module, the
    worker code and the run's domain modules, so no worker re-imports anything; else
    they are spawned and import those modules in their initializer.
    """

    name = "process"

    def __init__(self, concurrency: int | None = None) -> None:
        self.concurrency = concurrency or available_cpus()
        #: worker processes of the last run (``None`` before any run)
        self.workers: int | None = None

    def encode_for(self, spec: Any) -> None:
        """Pool workers pack each record for the store (redaction, JSON, zstd)."""
        self.encoder = spec

    def _pool(self, workers: int, modules: tuple[str, ...]) -> ProcessPoolExecutor:
        if "forkserver" in multiprocessing.get_all_start_methods():
            ctx: Any = multiprocessing.get_context("forkserver")
            # takes effect when the fork server starts (the first pool of this process);
            # '__main__' first, so forked workers do not each re-run the main script
            ctx.set_forkserver_preload(["__main__", __name__, *(
                m for m in modules if m.startswith("accord."))])
        else:
            ctx = multiprocessing.get_context("spawn")
        return ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                                   initializer=init_worker,
                                   initargs=(os.getpid(), modules, self.encoder))

    async def run(self, tasks: Iterable[EpisodeTask]) -> AsyncIterator[EpisodeRecord]:
        """Keep every worker busy with a short queue of batches; a dead worker fails its
        batch only."""
        items = tasks if isinstance(tasks, Sequence) else list(tasks)
        if not items:
            return
        loop = asyncio.get_running_loop()
        workers = self.workers = pool_size(self.concurrency, len(items))
        in_flight = -(-self.concurrency // workers)
        size = batch_size(len(items), workers)
        batches = (items[i:i + size] for i in range(0, len(items), size))
        modules = worker_modules(items)
        pool = self._pool(workers, modules)
        pending: dict[asyncio.Future[list[EpisodeRecord]],
                      tuple[Sequence[EpisodeTask], ProcessPoolExecutor]] = {}

        def fill() -> None:
            nonlocal pool
            while len(pending) < 2 * workers:
                batch = next(batches, None)
                if batch is None:
                    return
                try:
                    fut = loop.run_in_executor(pool, execute_batch, batch, in_flight)
                except BrokenProcessPool:  # a worker died before we heard of it: new pool
                    pool.shutdown(wait=False, cancel_futures=True)
                    pool = self._pool(workers, modules)
                    fut = loop.run_in_executor(pool, execute_batch, batch, in_flight)
                pending[fut] = (batch, pool)

        try:
            fill()
            while pending:
                done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for fut in done:
                    batch, owner = pending.pop(fut)
                    try:
                        records = fut.result()
                    except BrokenProcessPool:
                        records = [failed_record(t, "BrokenProcessPool: a worker process died "
                                                 "(out of memory, a crash in native code or "
                                                 "a kill) while this episode was running or "
                                                 "queued") for t in batch]
                        if owner is pool:  # replace the broken pool once
                            pool.shutdown(wait=False, cancel_futures=True)
                            pool = self._pool(workers, modules)
                    except Exception as exc:
                        records = [failed_record(t, f"{type(exc).__name__}: {exc}")
                                   for t in batch]
                    for rec in records:
                        yield rec
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

    return RayExecutor(choice.address, concurrency, choice.cpus or 1.0, choice.chunk)
