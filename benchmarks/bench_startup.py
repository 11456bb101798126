"""Start-up cost of commands: CPU time of ``accord scenarios``, ``accord deliberation
list``, one ``accord run`` of two code agents and friends, each in a fresh interpreter,
beside the floors measured in the same run.

A listing should not import the domains' agents, LLM sessions, solvers or numpy (issue 23
set the goal of under 0.3 s of CPU for ``accord scenarios`` and ``accord deliberation
list``); ``accord run bargaining/buyer-seller --agents boulware,conceder --json`` should
import only what the domain needs (issue 30: <= 0.3 s CPU; no pydantic, no bench, serve
or LLM machinery). The floors are what no change to accord can remove: the interpreter
(``python -c pass``), numpy (the outcome tables), numpy + asyncio (the engine), and numpy +
asyncio + PyYAML + typer (the scenario file and the command line).

Each command runs ``--repeat`` times as a subprocess, the commands and trees interleaved
round by round so all see the same load; the figure is the child's user + system CPU time
(``RUSAGE_CHILDREN``), which a loaded machine inflates far less than wall time, as the
median with min and max. Bytecode is cached (a per-tree ``PYTHONPYCACHEPREFIX``, warmed
once), as for an installed package, even when ``PYTHONDONTWRITEBYTECODE`` is set.
``--compare SRC`` runs the same commands against another source tree (``PYTHONPATH=SRC``;
e.g. a checkout before a change).

    python benchmarks/bench_startup.py [--repeat 7] [--compare ../main/src] [--only run]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _util import machine

ROOT = Path(__file__).resolve().parents[1]

RUN = ["-m", "accord", "run", "bargaining/buyer-seller", "--agents", "boulware,conceder",
       "--json"]

COMMANDS: dict[str, list[str]] = {
    "python -c pass (floor)": ["-c", "pass"],
    "import numpy (floor)": ["-c", "import numpy"],
    "+ asyncio (floor)": ["-c", "import numpy, asyncio"],
    "+ yaml, typer (floor)": ["-c", "import numpy, asyncio, yaml, typer"],
    "accord run ... --json": RUN,
    "accord --version": ["-m", "accord", "--version"],
    "accord --help": ["-m", "accord", "--help"],
    "accord scenarios": ["-m", "accord", "scenarios"],
    "accord scenarios --json": ["-m", "accord", "scenarios", "--json"],
    "accord deliberation list": ["-m", "accord", "deliberation", "list"],
}


def _cpu_of(args: list[str], src: Path, pycache: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one ``python ARGS`` run with ``src`` first on the path
    and its bytecode cached under ``pycache``."""
    env = {**os.environ, "PYTHONPATH": str(src), "COLUMNS": "120",
           "PYTHONPYCACHEPREFIX": str(pycache)}
    env.pop("ACCORD_DATA", None)  # the listing without the DoND data, as on a fresh install
    env.pop("PYTHONDONTWRITEBYTECODE", None)
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
    ap.add_argument("--only", default=None, metavar="TEXT",
                    help="only the commands whose label contains TEXT (floors always run)")
    args = ap.parse_args()
    trees = {"this tree": ROOT / "src"}
    if args.compare is not None:
        trees["compare"] = args.compare.resolve()
    commands = {label: argv for label, argv in COMMANDS.items()
                if "(floor)" in label or args.only is None or args.only in label}
    print(f"start-up CPU (user + system) per command, {machine()}")
    print("  each in a fresh interpreter, bytecode cached; commands and trees alternated "
          f"round by round, {args.repeat} rounds")
    print(f"  load average at start {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="accord-pyc-") as tmp:
        caches = {tree: Path(tmp) / str(i) for i, tree in enumerate(trees)}
        got: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for argv in commands.values():  # warm the bytecode caches, untimed
            for tree, src in trees.items():
                _cpu_of(argv, src, caches[tree])
        for _ in range(args.repeat):  # interleaved, so every figure sees the same load
            for label, argv in commands.items():
                for tree, src in trees.items():
                    if "(floor)" in label and tree != "this tree":
                        continue  # a floor does not depend on the tree
                    got.setdefault((label, tree), []).append(
                        _cpu_of(argv, src, caches[tree]))
    for (label, tree), runs in got.items():
        cpu = [r[0] for r in runs]
        wall = [r[1] for r in runs]
        print(f"  {label:28} {'' if '(floor)' in label else tree:9}  CPU {_fmt(cpu)}   "
              f"wall median {statistics.median(wall):.3f} s")
    print(f"  load average at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
