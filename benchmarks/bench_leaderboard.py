"""Issue 27 benchmark: ``accord leaderboard`` over a synthetic store of 10^5 episodes.

A Bradley–Terry tournament of ``--agents`` agents with known strengths (see
:mod:`accord.testing.ratings`) is written to a temporary store; then ``accord leaderboard
STORE --json`` runs in a child process per rating method with the default 200 bootstrap
resamples, and its wall time, CPU time and peak memory (the child's own rusage) are
printed with the load average, then an in-process breakdown (reading + scoring with the
row reader and with the column scan the command uses, the pair outcomes, then each
method's rating + bootstrap, with the ranks recovered against the truth). Goal: under
10 s and 500 MB on this machine; on a loaded machine compare CPU times.

    python benchmarks/bench_leaderboard.py [--episodes 100000] [--agents 12] [--bootstrap 200]
        [--methods bt,elo,glicko2,trueskill] [--store PATH] [--safety]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _util import machine

from accord.bench.leaderboard import collect, leaderboard, pair_outcomes
from accord.bench.leaderboard_scan import store_matches
from accord.bench.store import Store

SRC = Path(__file__).parents[1] / "src"


def child(store: Path, *extra: str) -> tuple[float, float, float, dict]:
    """Wall seconds, CPU seconds (user + system), peak RSS (MB) and the JSON document of
    one leaderboard child (``os.wait4``: the rusage of that child alone)."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, "-m", "accord", "leaderboard", str(store),
                                 "--json", *extra], stdout=out, stderr=err,
                                env={**os.environ, "PYTHONPATH": str(SRC)})
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            err.seek(0)
            raise SystemExit(f"accord leaderboard {' '.join(extra)} failed: "
                             f"{err.read().decode()}")
        out.seek(0)
        doc = json.loads(out.read())
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, doc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=100_000)
    ap.add_argument("--agents", type=int, default=12)
    ap.add_argument("--bootstrap", type=int, default=200)
    ap.add_argument("--methods", default="bt,elo", help="comma-separated rating methods "
                    "to time in a child process (bt, elo, glicko2, trueskill)")
    ap.add_argument("--store", type=Path, help="use (or first write) the synthetic store "
                    "at this path instead of a temporary one")
    ap.add_argument("--safety", action="store_true", help="also time --safety (reads every "
                    "episode's summary)")
    args = ap.parse_args()
    methods = [m for m in args.methods.split(",") if m]
    strengths = {f"agent{k:02d}": (k - args.agents / 2) / (args.agents / 2)
                 for k in range(args.agents)}
    print(machine(), "load average", " ".join(f"{x:.1f}" for x in os.getloadavg()))
    with tempfile.TemporaryDirectory() as d:
        store = args.store or Path(d) / "synthetic.db"
        if store.exists():
            print(f"using {store} as written before ({store.stat().st_size / 1e6:.1f} MB)")
        else:  # in a child, so that this process stays small for the children below
            t0 = time.perf_counter()
            code = ("import sys; from accord.testing.ratings import synthetic_tournament; "
                    "synthetic_tournament(sys.argv[1], eval(sys.argv[2]), int(sys.argv[3]), "
                    "seed=0, draw=0.1, bulk=True)")
            subprocess.run([sys.executable, "-c", code, str(store), repr(strengths),
                            str(args.episodes)], check=True,
                           env={**os.environ, "PYTHONPATH": str(SRC)})
            print(f"wrote {args.episodes} episodes ({args.agents} agents, 10% draws) in "
                  f"{time.perf_counter() - t0:.1f} s; store "
                  f"{store.stat().st_size / 1e6:.1f} MB")
        # children first: a child's peak RSS counts what it inherits from this process
        runs: list[tuple[str, tuple[str, ...]]] = [(m, ()) for m in methods]
        if args.safety:
            runs.append(("bt", ("--safety",)))
        for method, extra in runs:
            wall, cpu, rss, doc = child(store, "--method", method, "--bootstrap",
                                        str(args.bootstrap), *extra)
            ok = "meets" if wall < 10 and rss < 500 else "MISSES"
            print(f"accord leaderboard --method {method} --bootstrap {args.bootstrap}"
                  f"{' ' + ' '.join(extra) if extra else ''}: {wall:.2f} s wall, "
                  f"{cpu:.2f} s CPU, peak {rss:.0f} MB RSS ({ok} the 10 s / 500 MB goal); "
                  f"{doc['episodes']} episodes rated; load average "
                  f"{os.getloadavg()[0]:.1f}")
        with Store.open_readonly(store) as st:
            t0, c0 = time.perf_counter(), time.process_time()
            rows = collect(st.iter_episodes(summaries=False))
            print(f"in process: read + score, row reader {time.perf_counter() - t0:.2f} s "
                  f"wall, {time.process_time() - c0:.2f} s CPU")
            t0, c0 = time.perf_counter(), time.process_time()
            matches, domains, skipped = store_matches(st)
            print(f"in process: read + score, column scan (what the command uses) "
                  f"{time.perf_counter() - t0:.2f} s wall, {time.process_time() - c0:.2f} s "
                  f"CPU; the same matches: {(matches, domains, skipped) == rows}")
            del rows
            t0, c0 = time.perf_counter(), time.process_time()
            pair_outcomes(matches)
            print(f"in process: pair outcomes {time.perf_counter() - t0:.2f} s wall, "
                  f"{time.process_time() - c0:.2f} s CPU")
        truth = sorted(strengths, key=lambda n: -strengths[n])
        for method in methods:
            t0, c0 = time.perf_counter(), time.process_time()
            board = leaderboard(matches, method, bootstrap=args.bootstrap, domains=domains)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            order = [r.player for r in board.ratings]
            swaps = sum(1 for a, b in zip(order, truth, strict=True) if a != b)
            width = sum(r.high - r.low for r in board.ratings) / len(truth)
            print(f"  {method} + {args.bootstrap} resamples: {wall:.2f} s wall, {cpu:.2f} s CPU;"
                  f" {swaps} of {len(truth)} ranks differ from the truth; mean 95% interval"
                  f" {width:.0f} points")

if __name__ == "__main__":
    main()
