"""Issue 26 benchmark: the seed-001 authors' games and NegotiationArena logs.

    python benchmarks/bench_field_games.py --seed001 deliberative-collaboration-agents/data
    python benchmarks/bench_field_games.py --negotiationarena NegotiationArena/example_logs

For the authors' game pickles: the time to read each one safely (``accord.core.safepickle``)
and convert it, the time of accord's exact ILP on it, and the largest difference between
that optimum and the ``max_reward`` the authors stored. For NegotiationArena logs: the time
to read, check and replay each log through the alternating-offers protocol, and whether
the surplus accord computes equals the log's own ``player_outcome``. Neither data set ships
with accord; point the script at a clone of their repositories.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from _util import machine

from accord.domains.deliberation.ilp import optimum
from accord.domains.deliberation.load import parse_instance
from accord.formats import FormatError
from accord.formats.negotiationarena_log import log_files, prepare_log
from accord.formats.seed001 import game_files, read_games


def seed001(root: Path) -> None:
    reads, solves, worst, n, skipped = [], [], 0.0, 0, 0
    for f in game_files(root):
        t0 = time.perf_counter()
        try:
            found = read_games(f)
        except FormatError:
            skipped += 1
            continue
        reads.append(time.perf_counter() - t0)
        for data in found:
            inst = parse_instance(data, str(f))
            t1 = time.perf_counter()
            best = optimum(inst)
            solves.append(time.perf_counter() - t1)
            worst = max(worst, abs(best.reward - data["x-seed001"]["max_reward"]))
            n += 1
    print(f"seed-001 games: {len(reads)} files read ({skipped} skipped), {n} instances")
    print(f"  safe read + convert: median {statistics.median(reads) * 1e3:.1f} ms, "
          f"max {max(reads) * 1e3:.1f} ms per file")
    print(f"  exact ILP optimum:   median {statistics.median(solves) * 1e3:.1f} ms, "
          f"max {max(solves) * 1e3:.1f} ms per instance")
    print(f"  largest |optimum - stored max_reward|: {worst:.3g}")


def negotiationarena(root: Path) -> None:
    times, agree = [], 0
    files = log_files(root)
    for f in files:
        t0 = time.perf_counter()
        prep = prepare_log(f)
        times.append(time.perf_counter() - t0)
        m = prep.metrics
        if "surplus_RED" in m and "na_outcome_RED" in m:
            agree += int(m["surplus_RED"] == m["na_outcome_RED"]
                         and m["surplus_BLUE"] == m["na_outcome_BLUE"])
    print(f"NegotiationArena logs: {len(files)} replayed; surplus = the log's outcome in "
          f"{agree} of those with a deal")
    print(f"  read + check + replay + metrics: median {statistics.median(times):.2f} s, "
          f"max {max(times):.2f} s per log")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed001", type=Path, help="the authors' data/ folder (or any folder "
                    "of their game pickles)")
    ap.add_argument("--negotiationarena", type=Path, help="a folder of game_state.json logs")
    args = ap.parse_args()
    print(machine())
    if args.seed001:
        seed001(args.seed001)
    if args.negotiationarena:
        negotiationarena(args.negotiationarena)
    if not (args.seed001 or args.negotiationarena):
        ap.error("give --seed001 DIR and/or --negotiationarena DIR")


if __name__ == "__main__":
    main()
