"""The Ray executor (optional extra ``accord[ray]``): episodes as Ray tasks.

``ray`` starts (or joins, when ``RAY_ADDRESS`` is set) a local Ray instance;
``ray:auto`` / ``ray:HOST:PORT`` joins a running cluster from one of its nodes and
``ray://HOST:PORT`` connects through Ray Client. Each task runs one episode with
:func:`~accord.bench.worker.execute_sync` and returns its record to the driver, which
alone writes the store. Worker nodes need accord (and any config ``plugins``) installed.
If this executor started Ray, it shuts it down at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

from accord.bench.executors import Executor
from accord.bench.worker import EpisodeRecord, EpisodeTask, execute_sync, failed_record


def import_ray() -> Any:
    """Import ray or explain how to get it."""
    try:
        import ray
    except ImportError:
        raise RuntimeError("the ray executor needs Ray: pip install 'accord[ray]' "
                           "(or pip install ray)") from None
    return ray


class RayExecutor(Executor):
    """Ray tasks, at most ``concurrency`` in flight (default: the cluster's CPU count)."""

    name = "ray"

    def __init__(self, address: str | None = None, concurrency: int | None = None,
                 num_cpus_per_episode: float = 1.0) -> None:
        self.address = address
        self.requested = concurrency
        self.concurrency = concurrency or 1
        self.num_cpus = num_cpus_per_episode
        self._started = False

    def prepare(self) -> None:
        """Start or join Ray (once) and size ``concurrency`` to the cluster's CPUs."""
        ray = import_ray()
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"ignore_reinit_error": True, "log_to_driver": False,
                                      "logging_level": "warning"}
            if self.address is None:
                kwargs["include_dashboard"] = False
            ray.init(address=self.address, **kwargs)
            self._started = True
        if self.requested is None:
            cpus = ray.cluster_resources().get("CPU", 1)
            self.concurrency = max(1, int(cpus // self.num_cpus))

    async def run(self, tasks: Iterable[EpisodeTask]) -> AsyncIterator[EpisodeRecord]:
        """Submit tasks as slots free up and yield each record as its task completes."""
        ray = import_ray()
        if not ray.is_initialized():
            await asyncio.to_thread(self.prepare)
        started, self._started = self._started, False
        remote = ray.remote(num_cpus=self.num_cpus, max_retries=0)(execute_sync)
        it: Iterator[EpisodeTask] = iter(tasks)
        pending: dict[asyncio.Future[Any], tuple[EpisodeTask, Any]] = {}

        def fill() -> None:
            while len(pending) < self.concurrency:
                task = next(it, None)
                if task is None:
                    return
                ref = remote.remote(task)
                pending[asyncio.wrap_future(ref.future())] = (task, ref)

        try:
            fill()
            while pending:
                done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for fut in done:
                    task, _ref = pending.pop(fut)
                    try:
                        yield fut.result()
                    except Exception as exc:  # worker died, task lost, serialization ...
                        yield failed_record(task, f"ray: {type(exc).__name__}: {exc}")
                fill()
        finally:
            for _fut, (_task, ref) in pending.items():
                with contextlib.suppress(Exception):  # best effort on the way out
                    ray.cancel(ref, force=True)
            if started:
                await asyncio.to_thread(ray.shutdown)
