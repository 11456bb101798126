"""Running one episode in a worker: the task going in, the record coming out.

Workers (the asyncio loop, a pool process or a Ray task) run :func:`execute` and return
an :class:`EpisodeRecord`; they never touch the store. Any exception raised while
building or running the episode, or computing its metrics, becomes a ``failed`` record
with the error text, so one bad episode never stops a run.
"""

from __future__ import annotations

import asyncio
import math
import os
import socket
import time
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from accord.domains import EpisodeSpec, RunContext, get_domain

if TYPE_CHECKING:
    from accord.domains.base import Domain
    from accord.protocols.engine import EpisodeResult

#: error texts longer than this keep their head and tail
MAX_ERROR_CHARS = 20_000


@dataclass(frozen=True)
class EpisodeTask:
    """Everything a worker needs to run one episode (picklable)."""

    id: str
    spec: EpisodeSpec
    repeat: int = 0
    run: str = ""
    llm: Mapping[str, Any] = field(default_factory=dict)
    data: str | None = None
    plugins: tuple[str, ...] = ()
    timeout: float | None = None
    #: a fork of a stored episode: the parent's turns the engine replays first
    fork: Any = None


@dataclass
class EpisodeRecord:
    """What a worker hands back: outcome, metrics, trajectory, timings or the error.

    ``status`` is ``done`` or ``failed``; ``outcome`` is the episode's own status
    (``agreement``, ``completed``, ``no_deal``, ``error``) when it ran to an end.
    """

    id: str
    status: str
    outcome: str | None = None
    summary: dict[str, Any] | None = None
    metrics: dict[str, Any] | None = None
    trajectory: str | None = None
    usage: dict[str, Any] | None = None
    error: str | None = None
    wall_time: float = 0.0
    started: float = 0.0
    finished: float = 0.0
    worker: str = ""
    #: ``(encoding key, stored values)`` when a worker already encoded the record for the
    #: store (:meth:`accord.bench.rows.RowEncoder.pack`); the store checks the key
    packed: tuple[Any, Any] | None = None
    #: ``summary``, ``metrics`` and ``usage`` are what :func:`jsonable` made (:meth:`finish`):
    #: only JSON's types, so the store writes them without checking their types again
    made_jsonable: bool = field(default=False, repr=False, compare=False)

    def finish(self, result: EpisodeResult, domain: Domain, spec: EpisodeSpec) -> None:
        """Fill in a finished episode: outcome, summary, usage, trajectory, then the domain's
        metrics (``status`` becomes ``done`` when they are computed; if they raise, the rest
        is kept and the caller records the error)."""
        self.outcome = result.status
        self.summary = jsonable(result.summary())
        self.usage = jsonable(result.usage) or None
        self.trajectory = result.trajectory.to_jsonl()
        self.metrics = jsonable(domain.metrics(spec, result))
        self.made_jsonable = True
        self.status = "done"


def jsonable(value: Any) -> Any:
    """A JSON-safe copy: numpy scalars to Python, Fractions to float, NaN/inf to None."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, (float, Fraction)):
        f = float(value)
        return f if math.isfinite(f) else None
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    item = getattr(value, "item", None)  # numpy scalar
    if callable(item):
        try:
            return jsonable(item())
        except (TypeError, ValueError):
            pass
    return str(value)


def format_error(exc: BaseException) -> str:
    """The exception's type, message and traceback, capped at :data:`MAX_ERROR_CHARS`."""
    text = "".join(traceback.format_exception(exc)).rstrip()
    head = f"{type(exc).__name__}: {exc}"
    text = f"{head}\n\n{text}"
    if len(text) > MAX_ERROR_CHARS:
        half = MAX_ERROR_CHARS // 2
        text = text[:half] + "\n...\n" + text[-half:]
    return text


_plugins_done: set[str] = set()


def _ensure_plugins(plugins: tuple[str, ...]) -> None:
    from accord.bench.expand import import_plugins

    todo = [p for p in plugins if p not in _plugins_done]
    if todo:
        import_plugins(todo)
        _plugins_done.update(todo)


def _worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


async def execute(task: EpisodeTask) -> EpisodeRecord:
    """Run one episode and its metrics; never raises (except cancellation)."""
    started = time.time()
    t0 = time.perf_counter()
    rec = EpisodeRecord(task.id, "failed", started=started, worker=_worker_name())
    try:
        _ensure_plugins(task.plugins)
        domain = get_domain(task.spec.domain)
        ctx = RunContext(episode_id=task.id, llm=dict(task.llm), data=task.data,
                         extra={"run": task.run, "repeat": task.repeat})
        if task.fork is not None:  # the engine picks the plan up from the context
            from accord.protocols.fork import forking

            with forking(task.fork):
                result = await _run(domain, task, ctx)
        else:
            result = await _run(domain, task, ctx)
        rec.finish(result, domain, task.spec)
    except Exception as exc:  # an episode's failure is data, not a crash of the run
        rec.error = format_error(exc)
    rec.wall_time = time.perf_counter() - t0
    rec.finished = time.time()
    return rec


async def _run(domain: Domain, task: EpisodeTask, ctx: RunContext) -> EpisodeResult:
    """The episode, within the task's timeout."""
    coro = domain.run_episode(task.spec, ctx)
    if task.timeout is None:
        return await coro
    try:
        return await asyncio.wait_for(coro, task.timeout)
    except TimeoutError:
        raise TimeoutError(f"episode exceeded the timeout of {task.timeout:g} s "
                           "(config key 'timeout')") from None


def execute_sync(task: EpisodeTask) -> EpisodeRecord:
    """:func:`execute` on a fresh event loop (for process pools and Ray tasks)."""
    return asyncio.run(execute(task))


async def execute_many(tasks: Sequence[EpisodeTask], concurrency: int = 1
                       ) -> list[EpisodeRecord]:
    """:func:`execute` for each task, at most ``concurrency`` at once; records in task order."""
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(task: EpisodeTask) -> EpisodeRecord:
        async with gate:
            return await execute(task)

    return list(await asyncio.gather(*(one(t) for t in tasks)))


def execute_batch(tasks: Sequence[EpisodeTask], concurrency: int = 1) -> list[EpisodeRecord]:
    """:func:`execute_many` on a fresh event loop: one pool message carries several episodes.

    In a pool worker given the store's encoding (:func:`encode_here`), each record comes
    back packed for the store (:attr:`EpisodeRecord.packed`): the redaction, JSON and
    compression run here, in parallel, and the driver only executes the inserts."""
    records = asyncio.run(execute_many(tasks, concurrency))
    if _packer is not None:
        for rec in records:
            rec.packed = (_packer.key, _packer.pack(rec))
    return records


#: this process's encoder of the store's rows (a pool worker of a run with a store)
_packer: Any = None


def encode_here(spec: Any) -> None:
    """Pack every record :func:`execute_batch` returns with ``spec``'s encoding
    (an :class:`~accord.bench.rows.EncoderSpec`; ``None``: stop packing)."""
    global _packer
    if spec is None:
        _packer = None
        return
    from accord.bench.rows import RowEncoder

    _packer = RowEncoder.from_spec(spec)


def failed_record(task: EpisodeTask, message: str) -> EpisodeRecord:
    """A ``failed`` record for an episode whose worker could not report (pool died ...)."""
    now = time.time()
    return EpisodeRecord(task.id, "failed", error=message, started=now, finished=now)
