"""Notices of slow LLM calls, for a person waiting at a terminal.

A model on a CPU can take minutes per call (issue 25: 28-170 s per call for a 135M model
on two loaded cores); a command that says nothing for that long looks hung. While a
reporter is installed (:func:`set_wait_reporter`; the ``accord`` command installs one
that writes to stderr when it is a terminal or ``--verbose`` is given), every call attempt
that has waited longer than :func:`slow_after` seconds reports a :class:`WaitNotice`
again every :data:`REPEAT` seconds until it is answered. Rate limiting across concurrent
calls and the choice of stream belong to the reporter; with none installed nothing is
watched (no task, no cost).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath

from accord import _notices

#: seconds a call attempt waits before its first notice (``ACCORD_SLOW_CALL_SECONDS``)
SLOW_AFTER = 10.0
#: seconds between two notices of the same attempt
REPEAT = 10.0
#: the environment variable that changes :data:`SLOW_AFTER`
SLOW_ENV = "ACCORD_SLOW_CALL_SECONDS"
#: characters of a model name a notice shows
MODEL_CHARS = 40


@dataclass(frozen=True)
class WaitNotice:
    """A call that is still waiting: which model, how long so far, which attempt of how many."""

    model: str
    waited: float
    attempt: int
    attempts: int

    def text(self) -> str:
        """One line for a person, e.g. ``waiting for llamacpp/SmolLM2… (32 s, attempt 1 of
        4)``."""
        return (f"waiting for {short_model(self.model)} ({self.waited:.0f} s, attempt "
                f"{self.attempt} of {self.attempts})")


WaitReporter = Callable[[WaitNotice], None]


def short_model(model: str) -> str:
    """``model`` for a one-line notice: a GGUF path shortened to its file name, the whole
    cut to :data:`MODEL_CHARS` characters with an ellipsis."""
    provider, sep, rest = model.partition("/")
    if sep and rest.lower().endswith(".gguf"):
        model = f"{provider}/{PurePath(rest).name}"
    return model if len(model) <= MODEL_CHARS else model[:MODEL_CHARS - 1] + "…"


def set_wait_reporter(reporter: WaitReporter | None) -> WaitReporter | None:
    """Install ``reporter`` for slow-call notices (``None``: none); returns the previous
    (one slot per process, :mod:`accord._notices`, which the command line fills too)."""
    previous: WaitReporter | None = _notices.set_reporter(reporter)
    return previous


def slow_after() -> float:
    """Seconds before a call's first notice: ``ACCORD_SLOW_CALL_SECONDS`` or
    :data:`SLOW_AFTER` (a value that is not a positive number is ignored)."""
    raw = os.environ.get(SLOW_ENV, "").strip()
    try:
        value = float(raw) if raw else SLOW_AFTER
    except ValueError:
        return SLOW_AFTER
    return value if 0 < value < float("inf") else SLOW_AFTER


async def _tick(reporter: WaitReporter, model: str, attempt: int, attempts: int,
                started: float) -> None:
    first = slow_after()
    await asyncio.sleep(first)
    while True:
        with contextlib.suppress(Exception):  # a notice must never fail the call
            reporter(WaitNotice(model, time.monotonic() - started, attempt, attempts))
        await asyncio.sleep(min(REPEAT, first))


class watch:  # lower case: used as ``async with watch(...)``, like the function it was
    """Report the enclosed call attempt while it waits longer than :func:`slow_after`.

    ``async with watch(model, attempt, attempts):`` around one attempt. A plain class, not
    a generator context manager: with no reporter installed it creates nothing per call
    (it wraps every LLM call attempt)."""

    __slots__ = ("_attempt", "_attempts", "_model", "_task")

    def __init__(self, model: str, attempt: int, attempts: int) -> None:
        self._model, self._attempt, self._attempts = model, attempt, attempts
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> None:
        reporter: WaitReporter | None = _notices.get_reporter()
        if reporter is not None:
            self._task = asyncio.create_task(_tick(reporter, self._model, self._attempt,
                                                   self._attempts, time.monotonic()))

    async def __aexit__(self, *exc: object) -> None:
        # not awaited: awaiting it here would swallow a cancellation of the caller that
        # arrives meanwhile; a cancelled watcher never reports again
        if self._task is not None:
            self._task.cancel()


__all__ = ["REPEAT", "SLOW_AFTER", "SLOW_ENV", "WaitNotice", "WaitReporter",
           "set_wait_reporter", "short_model", "slow_after", "watch"]
