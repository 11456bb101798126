"""The driver of a bench run: plan, skip what is finished, execute, store, report.

The driver expands the config, inserts the plan into the store as ``pending`` rows,
queues every episode that is not finished (``failed`` ones only with ``retry_failed``;
``done`` ones whose outcome is ``error`` only with ``retry_errors``), hands the queue to
an executor and commits each record as it arrives. It is the only writer.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from array import array
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

from accord.bench import approvals
from accord.bench.aggregate import error_line
from accord.bench.config import ExperimentConfig
from accord.bench.executors import Executor, make_executor, parse_executor
from accord.bench.expand import Plan, PlannedEpisode, episode_ids_of, expand, subset
from accord.bench.progress import BenchProgress
from accord.bench.provenance import provenance
from accord.bench.seeds import plan_warnings
from accord.bench.store import Store
from accord.bench.worker import EpisodeRecord, EpisodeTask

#: at most this many finished episodes are committed in one transaction
MAX_BATCH = 64


@dataclass
class BenchOptions:
    """Run-time settings; ``None`` means: take the config's value, else the default."""

    store: str | Path | None = None
    executor: str | None = None
    concurrency: int | None = None
    retry_failed: bool = False
    retry_errors: bool = False
    quiet: bool = False
    llm: dict[str, Any] = field(default_factory=dict)
    data: str | None = None
    limit: int | None = None


@dataclass
class BenchReport:
    """What a bench invocation did."""

    run: str
    store: Path
    planned: int
    already_done: int
    skipped_failed: int
    queued: int
    done: int = 0
    failed: int = 0
    duplicates: int = 0
    seconds: float = 0.0
    run_seconds: float = 0.0
    interrupted: bool = False
    stale: int = 0
    first_error: tuple[str, str] | None = None
    #: sentences about the plan (e.g. cells of deterministic agents run with several seeds)
    warnings: tuple[str, ...] = ()

    @property
    def remaining(self) -> int:
        """Episodes of the plan that are still not ``done``."""
        return self.planned - self.already_done - self.done


def store_path(config: ExperimentConfig, options: BenchOptions) -> Path:
    """The store file: ``--store``, else the config's ``store``, else ``runs/<name>.db``."""
    if options.store is not None:
        return Path(options.store)
    if config.store is not None:
        return Path(config.store)
    return Path("runs") / f"{config.name}.db"


def select(plan: Plan, statuses: dict[str, tuple[str, str | None]], retry_failed: bool,
           retry_errors: bool) -> tuple[Sequence[PlannedEpisode], int, int]:
    """The episodes to run now (a view of the plan: specs are built as they are read),
    and how many are skipped as done / as failed."""
    queue = array("q")
    done = failed = 0
    for k, eid in enumerate(episode_ids_of(plan.episodes)):
        status, outcome = statuses.get(eid, ("pending", None))
        if status == "done" and not (retry_errors and outcome == "error"):
            done += 1
        elif status == "failed" and not retry_failed:
            failed += 1
        else:
            queue.append(k)
    return subset(plan.episodes, queue), done, failed


def resolved_config(config: ExperimentConfig, plan: Plan, executor: Executor,
                    llm: dict[str, Any], data: str | None) -> dict[str, Any]:
    """The config as run: every sweep fully expanded, run settings filled in."""
    sweeps = []
    for sw in config.sweeps:
        scen = list(sw.scenarios)
        if scen == ["all"] and sw.domain in plan.domains:
            scen = plan.domains[sw.domain].scenarios()
        sweeps.append({
            "domain": sw.domain, "scenarios": scen,
            "agents": [{"name": lu.name, "agents": [a.to_dict() for a in lu.agents],
                        "labels": lu.agent_labels()} for lu in sw.lineups],
            "params": list(sw.params), "seeds": list(sw.seeds), "repeat": sw.repeat})
    return {"name": config.name, "description": config.description, "source": config.source,
            "plugins": list(config.plugins), "sweeps": sweeps, "executor": executor.name,
            "concurrency": executor.concurrency, "timeout": config.timeout, "llm": llm,
            "data": data, "require_approval": config.require_approval,
            "episodes": len(plan.episodes), "as_written": config.raw}


class TaskView(Sequence[EpisodeTask]):
    """The executor's tasks, each built when read (a sequence, not a generator: the
    process executor sizes its pool by the episode count); executors keep a bounded
    window in flight, so the driver never holds every spec or record at once."""

    def __init__(self, queue: Sequence[PlannedEpisode], config: ExperimentConfig,
                 llm: dict[str, Any], data: str | None) -> None:
        self._queue, self._config, self._llm, self._data = queue, config, llm, data

    def __len__(self) -> int:
        return len(self._queue)

    def _task(self, ep: PlannedEpisode) -> EpisodeTask:
        c = self._config
        return EpisodeTask(ep.id, ep.spec, ep.repeat, c.name, self._llm, self._data,
                           c.plugins, c.timeout, ep.fork)

    @overload
    def __getitem__(self, i: int) -> EpisodeTask: ...

    @overload
    def __getitem__(self, i: slice) -> list[EpisodeTask]: ...

    def __getitem__(self, i: int | slice) -> EpisodeTask | list[EpisodeTask]:
        if isinstance(i, slice):
            return [self._task(ep) for ep in self._queue[i]]
        return self._task(self._queue[i])

    def __iter__(self) -> Iterator[EpisodeTask]:
        return (self._task(ep) for ep in self._queue)


def _tasks(queue: Sequence[PlannedEpisode], config: ExperimentConfig, llm: dict[str, Any],
           data: str | None) -> TaskView:
    return TaskView(queue, config, llm, data)


async def finished_batches(records: AsyncIterator[EpisodeRecord], limit: int = MAX_BATCH
                           ) -> AsyncGenerator[list[EpisodeRecord], None]:
    """The records of ``records`` in batches: each batch is the next record and every one
    that finished while the driver was busy (up to ``limit``), so the driver commits them
    in one transaction when they pile up and one by one when it keeps up (no record waits
    for a later one). An error of ``records`` is raised after the batch before it."""
    queue: asyncio.Queue[EpisodeRecord | BaseException | None] = asyncio.Queue()

    async def pump() -> None:
        try:
            async for rec in records:
                queue.put_nowait(rec)
        except BaseException as exc:  # handed over to the driver, raised there
            queue.put_nowait(exc)
        else:
            queue.put_nowait(None)

    task = asyncio.ensure_future(pump())
    try:
        while True:
            batch: list[EpisodeRecord] = []
            item = await queue.get()
            while isinstance(item, EpisodeRecord):
                batch.append(item)
                if len(batch) >= limit or queue.empty():
                    break
                item = queue.get_nowait()
            else:  # the end: None, or the error of ``records``
                if batch:
                    yield batch
                if item is not None:
                    raise item
                return
            yield batch
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _drive(executor: Executor, tasks: Sequence[EpisodeTask], store: Store | None,
                 run: str, session: int | None, report: BenchReport,
                 progress: BenchProgress, gate: bool = False) -> None:
    async with contextlib.aclosing(finished_batches(executor.run(tasks))) as batches:
        async for batch in batches:
            if store is not None:  # one transaction: the batch is done once committed
                store.write_many(run, batch, session)
                if gate:
                    agreed = [r.id for r in batch
                              if r.status == "done" and r.outcome == "agreement"]
                    if agreed:
                        approvals.mark_pending(store.conn, run, agreed)
            for rec in batch:
                if rec.status == "failed":
                    report.failed += 1
                    if report.first_error is None:
                        report.first_error = (rec.id, (rec.error or "").splitlines()[0])
                else:
                    report.done += 1
                    if rec.outcome == "error" and report.first_error is None:
                        # an agent or endpoint failure is a finished episode with its reason
                        # in the summary's detail (a context overflow, a timeout)
                        report.first_error = (rec.id, error_line(rec.summary))
                progress.update(rec.status)


async def _drive_cancellable(*args: Any) -> None:
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(signal.SIGTERM, task.cancel)
    try:
        await _drive(*args)
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.remove_signal_handler(signal.SIGTERM)


def run_bench(config: ExperimentConfig, options: BenchOptions | None = None,
              plan: Plan | None = None) -> BenchReport:
    """Run (or resume) the experiment described by ``config``; returns what happened.

    Ctrl-C or SIGTERM stop the run cleanly (``interrupted``); finished episodes are
    already committed and the rest stay ``pending`` for the next invocation.
    """
    options = options or BenchOptions()
    plan = plan or expand(config)
    choice = parse_executor(options.executor or config.executor or "local")
    executor = make_executor(choice, options.concurrency or config.concurrency)
    llm = {**config.llm, **options.llm}
    data = options.data or config.data
    path = store_path(config, options)
    t0 = time.perf_counter()
    with Store.open(path) as store:
        store.lock()
        executor.prepare()
        executor.encode_for(store.encoder_spec())  # pool workers encode, the driver inserts
        session = store.begin_session(config.name, resolved_config(config, plan, executor, llm,
                                                                   data),
                                      config.source, provenance(), str(choice),
                                      executor.concurrency)
        store.add_planned(config.name, plan.episodes)
        if config.require_approval:
            approvals.gate_agreements(store.conn, config.name)
        statuses = store.statuses(config.name)
        queue, done, skipped = select(plan, statuses, options.retry_failed,
                                      options.retry_errors)
        if options.limit is not None:
            queue = queue[:options.limit]
        report = BenchReport(config.name, path, len(plan.episodes), done, skipped, len(queue),
                             duplicates=plan.duplicates,
                             stale=len(statuses.keys() - set(episode_ids_of(plan.episodes))),
                             warnings=tuple(plan_warnings(config)))
        state = "interrupted"
        t1 = time.perf_counter()
        try:
            with BenchProgress(len(queue), config.name, options.quiet) as progress:
                asyncio.run(_drive_cancellable(executor, _tasks(queue, config, llm, data),
                                               store, config.name, session, report, progress,
                                               config.require_approval))
            state = "finished"
        except (KeyboardInterrupt, asyncio.CancelledError):
            report.interrupted = True
        finally:
            report.run_seconds = time.perf_counter() - t1
            report.seconds = time.perf_counter() - t0
            store.end_session(session, state, {"planned": report.planned,
                                               "queued": report.queued, "done": report.done,
                                               "failed": report.failed})
    return report
