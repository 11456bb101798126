"""Progress display for a bench run: a rich bar with done, failed, rate and ETA."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class _RateColumn(ProgressColumn):
    """Episodes per second over rich's recent window."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("-- ep/s" if speed is None else f"{speed:.1f} ep/s", style="cyan")


class _FailedColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        failed = int(task.fields.get("failed", 0))
        return Text(f"{failed} failed", style="red" if failed else "dim")


class BenchProgress:
    """Counts finished episodes; shows a live bar unless ``quiet``.

    Use as a context manager; call :meth:`update` with each record's status.
    """

    def __init__(self, total: int, description: str = "episodes", quiet: bool = False,
                 console: Console | None = None) -> None:
        self.total = total
        self.done = 0
        self.failed = 0
        self.quiet = quiet
        self._progress: Progress | None = None
        self._task: Any = None
        if not quiet:
            self._progress = Progress(
                TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                _FailedColumn(), _RateColumn(), TimeElapsedColumn(), TextColumn("ETA"),
                TimeRemainingColumn(), console=console or Console(stderr=True),
                transient=False, refresh_per_second=5)
            self._task = self._progress.add_task(description, total=total, failed=0)

    def __enter__(self) -> BenchProgress:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()

    def update(self, status: str) -> None:
        """Count one finished episode (``done`` or ``failed``)."""
        if status == "failed":
            self.failed += 1
        else:
            self.done += 1
        if self._progress is not None:
            self._progress.update(self._task, advance=1, failed=self.failed)
