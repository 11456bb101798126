"""Issue 11 benchmark: ``accord bench`` with the process executor against the local one.

Runs the real command line, ``accord bench CONFIG --executor E --concurrency C`` into a
fresh store, for ``local`` and ``process`` in the same session, interleaved per repeat,
and prints for each: wall time, episodes per second, and the CPU time of the whole
process tree (driver, fork server, workers). The CPU figure is exact on Linux: this
script makes itself the child subreaper, so every process the command starts is
eventually reaped into its ``RUSAGE_CHILDREN``; elsewhere it is left out.

    python benchmarks/bench_process.py [--config configs/demo.yaml] [--concurrency 32]
                                       [--repeat 3]
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _util import machine

from accord.bench import expand, load_config

ROOT = Path(__file__).resolve().parents[1]
PR_SET_CHILD_SUBREAPER = 36


def _subreaper() -> bool:
    """Adopt orphaned descendants (Linux), so their CPU time reaches RUSAGE_CHILDREN."""
    if not sys.platform.startswith("linux"):
        return False
    with contextlib.suppress(OSError, AttributeError):
        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    return False


def _children_cpu() -> float:
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def _reap_all(deadline: float) -> None:
    """Wait for every remaining descendant (adopted orphans included)."""
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.01)
    raise RuntimeError("descendants still running 30 s after the command ended")


def run_once(argv: list[str], cwd: Path) -> tuple[float, float]:
    """Wall seconds and CPU seconds of the whole process tree of one command."""
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stderr}")
    _reap_all(time.monotonic() + 30)
    return wall, _children_cpu() - cpu0


def fmt(values: list[float], unit: str) -> str:
    """``median (min-max) unit`` over the samples."""
    return (f"{statistics.median(values):8.2f} {unit} "
            f"(min {min(values):.2f}, max {max(values):.2f}, n={len(values)})")


def main() -> None:
    """Time both executors and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=str(ROOT / "configs" / "demo.yaml"))
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    exact = _subreaper()
    config = Path(args.config).resolve()
    plan = expand(load_config(config))
    n = len(plan.episodes)
    domains = ", ".join(sorted(plan.domains))
    accord = shutil.which("accord", path=str(Path(sys.executable).parent)) or "accord"
    print(f"accord bench {config.name} ({n} episodes, {domains}), "
          f"--concurrency {args.concurrency}; {machine()}")
    walls: dict[str, list[float]] = {"local": [], "process": []}
    cpus: dict[str, list[float]] = {"local": [], "process": []}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for r in range(args.repeat):
            order = ["local", "process"] if r % 2 == 0 else ["process", "local"]
            for ex in order:
                store = work / f"{ex}-{r}.db"
                wall, cpu = run_once([accord, "bench", str(config), "--executor", ex,
                                      "--concurrency", str(args.concurrency), "--store",
                                      str(store), "--quiet"], work)
                walls[ex].append(wall)
                cpus[ex].append(cpu)
            print(f"  repeat {r + 1}/{args.repeat} done (load average "
                  f"{os.getloadavg()[0]:.1f})", flush=True)
    print("\nwhole command, fresh store each time (median, min-max over repeats):")
    for ex in ("local", "process"):
        print(f"  {ex:<8} wall: {fmt(walls[ex], 's')}   {fmt([n / w for w in walls[ex]], 'ep/s')}")
        if exact:
            print(f"  {ex:<8} CPU : {fmt(cpus[ex], 's')}   (driver, fork server and workers)")
    ratio = statistics.median(walls["process"]) / statistics.median(walls["local"])
    print(f"\nprocess / local wall-time ratio: {ratio:.2f}")


if __name__ == "__main__":
    main()
