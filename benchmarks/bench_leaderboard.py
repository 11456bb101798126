"""Issue 27 benchmark: ``accord leaderboard`` over a synthetic store of 10^5 episodes.

A Bradley–Terry tournament of ``--agents`` agents with known strengths (see
:mod:`accord.testing.ratings`) is written to a temporary store; then ``accord leaderboard
STORE --json`` runs in a child process with the default 200 bootstrap resamples (and
``--method elo``), and its wall time and peak memory (max RSS of the child) are printed,
with an in-process breakdown (reading + scoring, rating + bootstrap) and the rank
correlation with the truth. Goal: under 10 s and 500 MB on this machine.

    python benchmarks/bench_leaderboard.py [--episodes 100000] [--agents 12] [--bootstrap 200]
        [--methods bt,elo,glicko2,trueskill] [--safety]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _util import machine

from accord.bench.leaderboard import collect, leaderboard
from accord.bench.store import Store
from accord.testing.ratings import synthetic_tournament


def child(store: Path, *extra: str) -> tuple[float, float, float, dict]:
    """Wall seconds, CPU seconds (user + system), max RSS (MB) and the JSON document of
    one leaderboard child."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    before, cpu0 = usage.ru_maxrss, usage.ru_utime + usage.ru_stime
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "accord", "leaderboard", str(store), "--json",
                           *extra], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")})
    wall = time.perf_counter() - t0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    rss, cpu = usage.ru_maxrss, usage.ru_utime + usage.ru_stime - cpu0
    if rss <= before:  # ru_maxrss is the max over children: report it anyway
        rss = before
    return wall, cpu, rss / 1024, json.loads(proc.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=100_000)
    ap.add_argument("--agents", type=int, default=12)
    ap.add_argument("--bootstrap", type=int, default=200)
    ap.add_argument("--methods", default="bt,elo", help="comma-separated rating methods "
                    "to time in a child process (bt, elo, glicko2, trueskill)")
    ap.add_argument("--safety", action="store_true", help="also time --safety (reads every "
                    "episode's summary)")
    args = ap.parse_args()
    strengths = {f"agent{k:02d}": (k - args.agents / 2) / (args.agents / 2)
                 for k in range(args.agents)}
    print(machine(), "load average", " ".join(f"{x:.1f}" for x in os.getloadavg()))
    with tempfile.TemporaryDirectory() as d:
        store = Path(d) / "synthetic.db"
        t0 = time.perf_counter()
        synthetic_tournament(store, strengths, args.episodes, seed=0, draw=0.1, bulk=True)
        print(f"wrote {args.episodes} episodes ({args.agents} agents, 10% draws) in "
              f"{time.perf_counter() - t0:.1f} s; store {store.stat().st_size / 1e6:.1f} MB")
        t0 = time.perf_counter()
        with Store.open_readonly(store) as st:
            matches, domains, _ = collect(st.iter_episodes(summaries=False))
        t1 = time.perf_counter()
        board = leaderboard(matches, bootstrap=args.bootstrap, domains=domains)
        t2 = time.perf_counter()
        print(f"in process: read + score {t1 - t0:.2f} s, Bradley–Terry + "
              f"{args.bootstrap} resamples {t2 - t1:.2f} s")
        order = [r.player for r in board.ratings]
        truth = sorted(strengths, key=lambda n: -strengths[n])
        swaps = sum(1 for a, b in zip(order, truth, strict=True) if a != b)
        print(f"ranking vs truth: {swaps} of {len(truth)} positions differ; mean 95% interval "
              f"width {sum(r.high - r.low for r in board.ratings) / len(truth):.0f} points")
        runs = [(m, ()) for m in args.methods.split(",") if m]
        if args.safety:
            runs.append(("bt", ("--safety",)))
        for method, extra in runs:
            wall, cpu, rss, doc = child(store, "--method", method, "--bootstrap",
                                   str(args.bootstrap), *extra)
            ok = "meets" if wall < 10 and rss < 500 else "MISSES"
            print(f"accord leaderboard --method {method} --bootstrap {args.bootstrap}"
                  f"{' ' + ' '.join(extra) if extra else ''}: "
                  f"{wall:.2f} s wall, {cpu:.2f} s CPU, peak {rss:.0f} MB RSS ({ok} the 10 s / 500 MB goal); "
                  f"{doc['episodes']} episodes rated; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
