"""Start-up cost of listing commands: CPU time of ``accord scenarios``, ``accord
deliberation list`` and friends, each in a fresh interpreter.

A listing should not import the domains' agents, LLM sessions, solvers or numpy (issue 23
set the goal of under 0.3 s of CPU for ``accord scenarios`` and ``accord deliberation
list``). Each command runs ``--repeat`` times as a subprocess; the figure is the child's
user + system CPU time (``RUSAGE_CHILDREN``), which a loaded machine inflates far less
than wall time. ``--compare SRC`` runs the same commands against another source tree
(``PYTHONPATH=SRC``; e.g. a checkout before a change), interleaved with this one, so both
see the same load.

    python benchmarks/bench_startup.py [--repeat 7] [--compare ../main/src]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _util import machine

ROOT = Path(__file__).resolve().parents[1]

COMMANDS: dict[str, list[str]] = {
    "python -c pass (floor)": ["-c", "pass"],
    "accord --version": ["-m", "accord", "--version"],
    "accord --help": ["-m", "accord", "--help"],
    "accord scenarios": ["-m", "accord", "scenarios"],
    "accord scenarios --json": ["-m", "accord", "scenarios", "--json"],
    "accord deliberation list": ["-m", "accord", "deliberation", "list"],
}


def _cpu_of(args: list[str], src: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one ``python ARGS`` run with ``src`` first on the path."""
    env = {**os.environ, "PYTHONPATH": str(src), "COLUMNS": "120"}
    env.pop("ACCORD_DATA", None)  # the listing without the DoND data, as on a fresh install
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, *args], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def _fmt(xs: list[float]) -> str:
    return (f"{statistics.median(xs):6.3f} s (min {min(xs):.3f}, max {max(xs):.3f}, "
            f"n={len(xs)})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--compare", type=Path, default=None, metavar="SRC",
                    help="another source tree to measure in the same session")
    args = ap.parse_args()
    trees = {"this tree": ROOT / "src"}
    if args.compare is not None:
        trees["compare"] = args.compare.resolve()
    print(f"start-up CPU (user + system) per command, {machine()}")
    print(f"  load average at start {os.getloadavg()[0]:.1f}")
    for label, argv in COMMANDS.items():
        got: dict[str, list[tuple[float, float]]] = {t: [] for t in trees}
        for _ in range(args.repeat):  # interleaved, so both trees see the same load
            for tree, src in trees.items():
                got[tree].append(_cpu_of(argv, src))
        for tree, runs in got.items():
            cpu = [r[0] for r in runs]
            wall = [r[1] for r in runs]
            print(f"  {label:28} {tree:9}  CPU {_fmt(cpu)}   wall median "
                  f"{statistics.median(wall):.3f} s")
    print(f"  load average at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
