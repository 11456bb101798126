"""Size budgets of a Deal-or-No-Deal datapoint, checked before anything is enumerated.

Everything downstream of the loader enumerates: every allocation of the items (the
product of ``count + 1`` over the items: counts of 100,000 give 10^15), and the belief
tables of :func:`accord.solvers.bayes.belief_model` (allocations x partner valuations,
where enumerating the valuations walks the product of ``total // count + 1`` over all
items but the last). Python loops over them cost ~60 us per allocation and the cached
tuples ~100 bytes each, so a 432-byte file could ask for terabytes. The loader refuses a
line (and a file) beyond these budgets with a message that names the figure and the cap.

The caps leave wide headroom over the real data (test.txt and val.txt: at most 36
allocations and 2,420 belief cells per dialogue, ~24,000 allocations per file), and they
are fixed rather than raisable: past them the exact enumerations the metrics need (Pareto
frontier, envy-free sets, beliefs) cannot stay within a bounded memory and time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: allocations of one datapoint's items (the product of count + 1)
MAX_ALLOCATIONS = 10_000
#: cells of one belief table: allocations x the valuation enumeration's steps
MAX_BELIEF_CELLS = 100_000
#: allocations summed over the dialogues of one file (bounds a file's work and caches)
MAX_FILE_ALLOCATIONS = 250_000


def allocation_count(counts: Sequence[int]) -> int:
    """How many shares one player can receive: the product of ``count + 1``."""
    return math.prod(int(c) + 1 for c in counts)


def valuation_steps(counts: Sequence[int], total: int) -> int:
    """Steps of :func:`accord.solvers.bayes.valuation_space` (an upper bound on its size):
    the product of ``total // count + 1`` over every item but the last."""
    return math.prod(total // int(c) + 1 for c in counts[:-1]) if total >= 0 else 0


def space_problem(counts: Sequence[int], total: int) -> str | None:
    """Why a datapoint with item ``counts`` and common ``total`` value is too large to
    enumerate, or ``None`` when it is within the budgets."""
    n = allocation_count(counts)
    if n > MAX_ALLOCATIONS:
        return (f"item counts {tuple(counts)} give {_figure(n)} allocations (the product of "
                f"count + 1); at most {MAX_ALLOCATIONS:,} can be enumerated (real dialogues "
                "have at most 36)")
    cells = n * valuation_steps(counts, total)
    if cells > MAX_BELIEF_CELLS:
        return (f"item counts {tuple(counts)} with total value {total:,} give belief tables of "
                f"{_figure(cells)} cells (allocations x partner valuations); at most "
                f"{MAX_BELIEF_CELLS:,} fit the budget (real dialogues have at most 2,420)")
    return None


def _figure(n: int) -> str:
    """``123,456`` up to a billion, ``1.2e+15`` beyond (never thousands of digits)."""
    return f"{n:,}" if n < 10**9 else f"{n:.2g}" if n < 10**300 else "more than 1e300"
