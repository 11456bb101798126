"""Start-up cost of commands: CPU time of ``accord scenarios``, ``accord deliberation
list``, one ``accord run`` of two code agents and friends, each in a fresh interpreter,
beside the floors measured in the same run.

A listing should not import the domains' agents, LLM sessions, solvers or numpy (issue 23
set the goal of under 0.3 s of CPU for ``accord scenarios`` and ``accord deliberation
list``); ``accord run bargaining/buyer-seller --agents boulware,conceder --json`` should
import only what the domain needs (issue 30: <= 0.3 s CPU; no pydantic, no bench, serve
or LLM machinery). The floors are what no change to accord can remove: the interpreter
(``python -c pass``), numpy (the outcome tables), numpy + asyncio (the engine), numpy +
asyncio + PyYAML + typer (the scenario file and the command line), and the single run's own
floor: numpy with ``numpy.random`` (the agents' generators) and typer, without PyYAML (a
built-in scenario is read from its JSON twin since issue 30's round 3) or asyncio (code
agents run without an event loop), also with the garbage collector paused as the
``accord`` command starts (issue 30's round 4); and ``accord --help``'s floor, typer and
``importlib.metadata`` (the plug-in command groups' entry points).

Each floor is measured both ways: as Python starts by default, and with
``OPENBLAS_NUM_THREADS=1``, which the ``accord`` command itself sets before numpy's first
import (unless the user chose a count): OpenBLAS otherwise starts a worker thread per core
at import, whose spinning is CPU time. The commands run with none of OpenBLAS's thread
variables in their environment, so the ``accord`` rows pay what a user's shell would; the
single run is measured once more with ``OPENBLAS_NUM_THREADS=1`` set outside, so a tree
without the setting (``--compare``) can be compared like for like.

Each command runs ``--repeat`` times as a subprocess, the commands and trees interleaved
round by round so all see the same load; the figure is the child's user + system CPU time
(``RUSAGE_CHILDREN``), which a loaded machine inflates far less than wall time, as the
median with min and max. Bytecode is cached (a per-tree ``PYTHONPYCACHEPREFIX``, warmed
once), as for an installed package, even when ``PYTHONDONTWRITEBYTECODE`` is set.
``--compare SRC`` runs the same commands against another source tree (``PYTHONPATH=SRC``;
e.g. a checkout before a change).

    python benchmarks/bench_startup.py [--repeat 7] [--compare ../main/src] [--only run]

(``--only`` picks the ``accord`` rows whose label contains the text; the floors always run.)
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

#: issue 30's goal for the single run, seconds of CPU
GOAL = 0.3
#: OpenBLAS's thread variables, in its order of precedence; none is passed on by default
BLAS_VARS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
ONE = {"OPENBLAS_NUM_THREADS": "1"}
#: label -> (arguments of python, extra environment)
COMMANDS: dict[str, tuple[list[str], dict[str, str]]] = {
    "python -c pass (floor)": (["-c", "pass"], {}),
    "import numpy (floor)": (["-c", "import numpy"], {}),
    "import numpy, 1 BLAS thread (floor)": (["-c", "import numpy"], ONE),
    "+ asyncio (floor)": (["-c", "import numpy, asyncio"], {}),
    "+ asyncio, 1 BLAS thread (floor)": (["-c", "import numpy, asyncio"], ONE),
    "+ yaml, typer (floor)": (["-c", "import numpy, asyncio, yaml, typer"], {}),
    "+ yaml, typer, 1 BLAS thread (floor)": (["-c", "import numpy, asyncio, yaml, typer"],
                                             ONE),
    # numpy, numpy.random, typer: what the single run needs now (PyYAML is not read for a
    # built-in scenario, its JSON twin is; numpy.random makes the agents' generators; code
    # agents run without an event loop, so no asyncio)
    "run's floor, 1 BLAS thread (floor)": (
        ["-c", "import numpy, numpy.random, typer"], ONE),
    # the same with the garbage collector paused, as the accord command starts since issue
    # 30's round 4 (the collector otherwise traverses the imported objects every 700
    # allocations)
    "run's floor, 1 BLAS, gc paused (floor)": (
        ["-c", "import gc; gc.disable(); import numpy, numpy.random, typer"], ONE),
    # what accord --help needs: typer and the entry-point scan for plug-in command groups
    "typer, importlib.metadata (floor)": (
        ["-c", "import gc; gc.disable(); import typer, importlib.metadata"], {}),
    "accord run ... --json": (RUN, {}),
    "accord run ... --json, 1 BLAS thread": (RUN, ONE),
    "accord --version": (["-m", "accord", "--version"], {}),
    "accord --help": (["-m", "accord", "--help"], {}),
    "accord scenarios": (["-m", "accord", "scenarios"], {}),
    "accord scenarios --json": (["-m", "accord", "scenarios", "--json"], {}),
    "accord deliberation list": (["-m", "accord", "deliberation", "list"], {}),
}


def _cpu_of(args: list[str], extra: dict[str, str], src: Path,
            pycache: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one ``python ARGS`` run with ``src`` first on the path,
    its bytecode cached under ``pycache`` and ``extra`` added to the environment (which has
    none of :data:`BLAS_VARS` otherwise)."""
    env = {**os.environ, "PYTHONPATH": str(src), "COLUMNS": "120",
           "PYTHONPYCACHEPREFIX": str(pycache)}
    env.pop("ACCORD_DATA", None)  # the listing without the DoND data, as on a fresh install
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    for name in BLAS_VARS:
        env.pop(name, None)
    env.update(extra)
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
        for argv, extra in commands.values():  # warm the bytecode caches, untimed
            for tree, src in trees.items():
                _cpu_of(argv, extra, src, caches[tree])
        loads: list[float] = []
        for _ in range(args.repeat):  # interleaved, so every figure sees the same load
            loads.append(os.getloadavg()[0])
            for label, (argv, extra) in commands.items():
                for tree, src in trees.items():
                    if "(floor)" in label and tree != "this tree":
                        continue  # a floor does not depend on the tree
                    got.setdefault((label, tree), []).append(
                        _cpu_of(argv, extra, src, caches[tree]))
    for (label, tree), runs in got.items():
        cpu = [r[0] for r in runs]
        wall = [r[1] for r in runs]
        print(f"  {label:40} {'' if '(floor)' in label else tree:9}  CPU {_fmt(cpu)}   "
              f"wall median {statistics.median(wall):.3f} s")
    print(f"  load average at end {os.getloadavg()[0]:.1f} (per round: median "
          f"{statistics.median(loads):.1f}, min {min(loads):.1f}, max {max(loads):.1f})")
    run = got.get(("accord run ... --json", "this tree"))
    if run is not None:
        median = statistics.median(r[0] for r in run)
        print(f"  issue 30's goal for accord run ... --json: <= {GOAL:.1f} s CPU; this tree's "
              f"median {median:.3f} s: {'met' if median <= GOAL else 'not met'}")
    # what each tree's run and help cost above the floor they start from (the accord command
    # sets one BLAS thread and pauses the collector itself; the older tree may not)
    for label, floor_label in (("accord run ... --json, 1 BLAS thread",
                                "run's floor, 1 BLAS, gc paused (floor)"),
                               ("accord --help", "typer, importlib.metadata (floor)")):
        floor = got.get((floor_label, "this tree"))
        for tree in trees:
            runs = got.get((label, tree))
            if runs is None or floor is None:
                continue
            above = statistics.median(r[0] for r in runs) - statistics.median(
                r[0] for r in floor)
            print(f"  {label} above {floor_label.removesuffix(' (floor)')}, {tree}: "
                  f"{above:+.3f} s (medians)")


if __name__ == "__main__":
    main()
