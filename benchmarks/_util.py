"""Shared helpers for accord's benchmarks: repeat, time and summarise."""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable
from typing import Any


def measure(fn: Callable[[], Any], repeat: int = 5, warmup: int = 1) -> list[float]:
    """Wall times (seconds) of ``repeat`` calls after ``warmup`` untimed calls."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def summary(times: list[float], scale: float = 1e3, unit: str = "ms") -> str:
    """``median (min-max) unit`` over the samples."""
    med = statistics.median(times) * scale
    lo, hi = min(times) * scale, max(times) * scale
    return f"{med:9.3f} {unit} (min {lo:.3f}, max {hi:.3f}, n={len(times)})"


def machine() -> str:
    """One line describing the machine."""
    import os

    return (f"{platform.machine()} {platform.processor() or ''} {os.cpu_count()} cpus, "
            f"Python {platform.python_version()}").replace("  ", " ")
