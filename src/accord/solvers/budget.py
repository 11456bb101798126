"""A time budget that long-running solvers check cooperatively (issue 24: "a time budget on
every solver, partial answers marked as such").

A solver given a :class:`TimeBudget` looks at :meth:`TimeBudget.exhausted` between units
of work (a batch of bases, a few hundred pivots) and, once it is exhausted, stops and
returns what it has found, marked incomplete. The clock is an explicit input (default
``time.monotonic``) so a test can drive it; a budget of ``0`` seconds is exhausted at the
first check, which makes "the time limit was hit" deterministic to test.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field


class BudgetExhausted(Exception):
    """A solver that cannot give a meaningful partial answer stopped at its time budget."""


@dataclass
class TimeBudget:
    """``seconds`` of ``clock`` from construction (``None``: unlimited)."""

    seconds: float | None
    clock: Callable[[], float] = time.monotonic
    start: float = field(default=0.0)

    def __post_init__(self) -> None:
        if self.seconds is not None and self.seconds < 0:
            raise ValueError(f"a time budget cannot be negative, got {self.seconds}")
        self.start = self.clock()

    def remaining(self) -> float | None:
        """Seconds left (``None`` when unlimited; never below 0)."""
        if self.seconds is None:
            return None
        return max(0.0, self.seconds - (self.clock() - self.start))

    def exhausted(self) -> bool:
        """Whether the time is up (never, when unlimited)."""
        left = self.remaining()
        return left is not None and left <= 0.0

    def check(self, what: str) -> None:
        """Raise :class:`BudgetExhausted` (naming ``what`` was cut short) once exhausted."""
        if self.exhausted():
            raise BudgetExhausted(f"{what}: time limit of {self.seconds:g} s reached")

    def share(self, fraction: float) -> TimeBudget:
        """A budget of ``fraction`` of the time left now, on the same clock (for a step
        that must leave time to the steps after it)."""
        left = self.remaining()
        return TimeBudget(None if left is None else left * fraction, self.clock)


def unlimited() -> TimeBudget:
    """A budget that is never exhausted."""
    return TimeBudget(None)
