"""Bounds on instance generation: option ranges and a clock-time budget for the search.

``accord deliberation generate`` draws random candidates and solves an ILP for each
(~80 ms a menu candidate), so ``--candidates 1000000000`` would take years and a negative
``--keep`` silently dropped instances. :func:`check_generate_options` refuses options
outside :data:`MAX_CANDIDATES` / :data:`MAX_KEEP` with a clear message, and a
:class:`SearchBudget` stops drawing when its seconds are spent, recording how far the
search got so the caller can say the result is partial. The clock is injected, so tests
drive it deterministically.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

#: most candidates one run may draw (the shipped menu settings draw 10,000, ~15 min)
MAX_CANDIDATES = 100_000
#: most instances one run may keep (the shipped settings keep 60)
MAX_KEEP = 1_000
#: largest generator seed (numpy takes any non-negative integer; beyond 128 bits is a typo)
MAX_SEED = 2**128 - 1


def check_generate_options(candidates: int | None, keep: int | None, seed: int | None,
                           time_limit: float | None) -> None:
    """``ValueError`` naming the first option outside its range (``None``: the default)."""
    if candidates is not None and not 1 <= candidates <= MAX_CANDIDATES:
        raise ValueError(f"--candidates must be 1..{MAX_CANDIDATES:,} (each one is solved "
                         f"as an ILP, ~0.1 s), got {candidates:,}")
    if keep is not None and not 1 <= keep <= MAX_KEEP:
        raise ValueError(f"--keep must be 1..{MAX_KEEP:,}, got {keep:,}")
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise ValueError(f"--seed must be a non-negative integer below 2^128, got "
                         f"{seed if abs(seed) < 10**40 else 'a larger number'}")
    if time_limit is not None and not 0 < time_limit < math.inf:
        raise ValueError(f"--time-limit must be a positive number of seconds, got {time_limit}")


@dataclass
class SearchBudget:
    """Clock time a candidate search may spend, and a record of how far it got.

    ``seconds`` ``None`` means no limit. A search calls :meth:`start` once, then
    :meth:`allows` before each candidate (``share`` < 1 for one of several consecutive
    searches under one budget: the task setting splits it over its sub-domains), and
    :meth:`drew` after it; ``planned`` counts the candidates it meant to draw.
    """

    seconds: float | None = None
    clock: Callable[[], float] = time.monotonic
    planned: int = 0
    drawn: int = 0
    _start: float | None = field(default=None, init=False, repr=False)

    def start(self) -> None:
        """Start the clock (a second call keeps the first start)."""
        if self._start is None:
            self._start = self.clock()

    def allows(self, share: float = 1.0) -> bool:
        """True while less than ``share`` x ``seconds`` has passed since :meth:`start`."""
        if self.seconds is None:
            return True
        self.start()
        assert self._start is not None
        return self.clock() - self._start < self.seconds * share

    def plan(self, n: int) -> None:
        """Add ``n`` candidates to what the search means to draw."""
        self.planned += n

    def drew(self) -> None:
        """Count one candidate drawn."""
        self.drawn += 1

    @property
    def stopped(self) -> bool:
        """True when the budget ran out before every planned candidate was drawn."""
        return self.drawn < self.planned

    def sentence(self) -> str:
        """What a person reads: the run was cut short, and what that means."""
        return (f"time limit of {self.seconds:g} s reached after {self.drawn:,} of "
                f"{self.planned:,} candidates; the instances were selected from those, so "
                "this set is partial and a rerun may differ")
