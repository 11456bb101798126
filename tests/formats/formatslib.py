"""Helpers of the importer tests: the fixture folders and a brute-force analysis that does
not use accord's utility or frontier code."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"

Utility = Callable[[Mapping[str, Any]], float]


def brute_force(issues: Mapping[str, Sequence[Any]], utilities: Sequence[Utility],
                batnas: Sequence[float]) -> tuple[set[tuple[str, ...]], float]:
    """(Pareto-optimal outcomes as value-text tuples, the largest Nash product over
    individually rational outcomes) by enumerating every outcome."""
    names = list(issues)
    rows = []
    for combo in itertools.product(*(issues[n] for n in names)):
        outcome = dict(zip(names, combo, strict=True))
        rows.append((tuple(str(v) for v in combo),
                     tuple(round(u(outcome), 9) for u in utilities)))
    pareto = {key for key, us in rows
              if not any(all(b >= a for a, b in zip(us, vs, strict=True)) and vs != us
                         for _, vs in rows)}
    nash = max((math.prod(u - d for u, d in zip(us, batnas, strict=True))
                for _, us in rows if all(u >= d for u, d in zip(us, batnas, strict=True))),
               default=-1.0)
    return pareto, nash
