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


def alternate_cpu(fns: dict[str, Callable[[], Any]], repeat: int = 5) -> dict[str, list[float]]:
    """CPU seconds (``time.process_time``) of ``repeat`` calls of each function, after one
    untimed call each, the functions alternated (a rotating order each pass) so that all
    see the same machine load."""
    names = list(fns)
    for name in names:
        fns[name]()
    out: dict[str, list[float]] = {name: [] for name in names}
    for i in range(repeat):
        for name in names[i % len(names):] + names[:i % len(names)]:
            c0 = time.process_time()
            fns[name]()
            out[name].append(time.process_time() - c0)
    return out


def load() -> str:
    """The 1-minute load average and the CPU count, for a figure's line."""
    import os

    return f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cpus"


def module_at(rev: str, path: str, name: str, replace: tuple[tuple[str, str], ...] = ()
              ) -> Any:
    """The module in ``path`` (relative to the repository root) as it was at git revision
    ``rev``, imported under ``name`` (``replace``: text substitutions first, e.g. to point
    its imports at other such modules): to measure before and after in one process."""
    import subprocess
    import sys
    import types
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    src = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=root, check=True,
                         capture_output=True, text=True).stdout
    for old, new in replace:
        src = src.replace(old, new)
    module = types.ModuleType(name)
    module.__file__ = f"{rev}:{path}"
    sys.modules[name] = module
    exec(compile(src, module.__file__, "exec"), module.__dict__)
    return module
