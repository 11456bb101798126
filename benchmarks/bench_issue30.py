"""Issue 30's table, before and after, on one machine in one command.

Runs, one after another, the benchmarks behind each row of the issue's table, each with its
own way of measuring another accord tree beside this one (so every row is a before/after
pair taken in the same session), and prints their outputs under one heading per row:

* per offer, cold and steady, 10^3-10^5 outcomes, and per round at 2, 3 and 5 parties:
  ``bench_offer.py --against BEFORE`` (NegMAS beside both when it is installed);
* the Pareto frontier against NegMAS and the numpy baselines: ``bench_core.py
  --frontier-only --before REV`` (a git revision of this repository);
* ``accord run ... --json`` start-up: ``bench_startup.py --only "accord run" --compare``;
* the store's write path against raw sqlite3: ``bench_store.py --floor-only --process``
  (its "before" rows are the previous encoder, kept in the benchmark);
* the LLM client at c=64 over HTTP: ``bench_llm.py`` run twice, this tree's and the
  ``BEFORE`` tree's own (its benchmark on its sources: what it printed before);
* mixed equilibria against nashpy: ``bench_equilibria.py --quick`` (where nashpy is
  installed), both trees' own, likewise.

    python benchmarks/bench_issue30.py --before TREE [--rev REV] [--quick] [--only ROWS]

``TREE`` is a checkout of the "before" accord (``git worktree add --detach /tmp/before REV``
makes one) and ``REV`` its revision (for the frontier's ``--before``; default: ``TREE``'s
``HEAD``). Every figure is CPU time unless a line says otherwise; the load average is
printed at the start and end of every row. ``--only`` takes a comma-separated subset of
``offer, frontier, startup, store, llm, equilibria``. A row whose benchmark fails prints
the failure and the others still run; the command exits non-zero at the end.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROWS = ("offer", "frontier", "startup", "store", "llm", "equilibria")


def _load() -> str:
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:  # pragma: no cover (no load average on this platform)
        return "n/a"


def _rev_of(tree: Path) -> str:
    got = subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True,
                         text=True, check=True)
    return got.stdout.strip()


def _run(title: str, argv: list[str], tree: Path | None = None) -> bool:
    """Run one benchmark, its output passed through; whether it succeeded. ``argv[0]`` is
    the benchmark's file name; with ``tree`` it is that tree's own benchmark on that tree's
    sources (what it printed before), else this tree's."""
    env = dict(os.environ)
    label = "after: this tree"
    root = ROOT
    if tree is not None:
        env["PYTHONPATH"] = str(tree / "src")
        label = f"before: {tree}"
        root = tree
    argv = [str(root / "benchmarks" / argv[0]), *argv[1:]]
    print(f"\n### {title} ({label}; load {_load()})\n$ {' '.join(argv)}", flush=True)
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, *argv], cwd=root, env=env)
    print(f"--- {title}: exit {done.returncode}, {time.monotonic() - t0:.0f} s wall, load "
          f"{_load()}", flush=True)
    return done.returncode == 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, type=Path,
                    help="a checkout of the accord to compare with (TREE/src)")
    ap.add_argument("--rev", help="the git revision of --before (default: its HEAD)")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions everywhere")
    ap.add_argument("--only", default=",".join(ROWS), help="rows to run: " + ", ".join(ROWS))
    args = ap.parse_args()
    before = args.before.resolve()
    if not (before / "src" / "accord").is_dir():
        ap.error(f"--before {before}: no accord sources at {before / 'src' / 'accord'}")
    rows = [r.strip() for r in args.only.split(",") if r.strip()]
    unknown = [r for r in rows if r not in ROWS]
    if unknown:
        ap.error(f"--only: unknown row(s) {unknown}; the rows are {', '.join(ROWS)}")
    rev = args.rev or _rev_of(before)
    quick = args.quick
    print(f"# issue 30, before ({before}, {rev[:12]}) and after ({ROOT}); "
          f"{os.cpu_count()} cpus, load {_load()}", flush=True)
    ok = True
    if "offer" in rows:
        ok &= _run("per offer and per round, beside NegMAS and the bare loop",
                   ["bench_offer.py", "--sizes", "3,4" if quick else "3,4,5",
                    "--repeat", "5" if quick else "11", "--parties", "2,3,5",
                    "--against", str(before)])
    if "frontier" in rows:
        ok &= _run("Pareto frontier beside NegMAS and the numpy baselines",
                   ["bench_core.py", "--frontier-only", "--before", rev]
                   + (["--quick"] if quick else []))
    if "startup" in rows:
        ok &= _run("accord run ... --json start-up",
                   ["bench_startup.py", "--only", "accord run", "--repeat",
                    "5" if quick else "9", "--compare", str(before / "src")])
    if "store" in rows:
        ok &= _run("the store's write path beside raw sqlite3",
                   ["bench_store.py", "--floor-only", "--episodes",
                    "300" if quick else "1000", "--repeat", "3" if quick else "5",
                    "--process"])
    if "llm" in rows:
        llm = ["bench_llm.py", "--levels", "64", "--baseline-levels", "",
               "--repeat", "1" if quick else "3", "--long-episodes", "0"]
        ok &= _run("the LLM client at c=64 over HTTP", llm)
        ok &= _run("the LLM client at c=64 over HTTP", llm, before)
    if "equilibria" in rows:
        eq = ["bench_equilibria.py", "--quick"]
        ok &= _run("mixed equilibria beside nashpy", eq)
        ok &= _run("mixed equilibria beside nashpy", eq, before)
    print(f"\n# done; load {_load()}", flush=True)
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
