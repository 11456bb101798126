"""Issue 6 benchmark: self-play of the code Bayesian workflow on Deal or No Deal.

Runs ``workflow`` vs ``workflow`` on every unique test datapoint (545 dialogues) and prints
episodes per second (median and spread over repeats, after one warm-up pass that fills the
belief-table caches; the cold first pass is printed too) and the outcome figures: agreement,
Pareto-optimal and envy-free rates, mean total against the mean best total, and the
valuation-estimation figures of Tables 14 and 16.

    python benchmarks/bench_dond.py [--data PATH] [--repeat 5] [--agents workflow,workflow]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from pathlib import Path
from typing import Any

from _util import machine, summary

from accord.agents.spec import parse_agent_list
from accord.domains.deal_or_no_deal import load_datapoints, play_datapoint
from accord.domains.deal_or_no_deal.load import Datapoint
from accord.domains.deal_or_no_deal.metrics import episode_metrics, summarize
from accord.domains.deal_or_no_deal.rules import hardest
from accord.solvers.bayes import belief_model

REPO = Path(__file__).resolve().parents[1]


def default_data() -> str | None:
    """The first data location that holds the test split.

    ``ACCORD_DATA``; ``../shared/data`` beside the repository, then beside its parent (a git
    worktree or clone one level down); accord's per-user data folder. ``None`` if none does.
    """
    from accord.domains.deal_or_no_deal.location import data_root, split_file

    places = [os.environ.get("ACCORD_DATA"), str(REPO.parent / "shared" / "data"),
              str(REPO.parent.parent / "shared" / "data"), str(data_root(None))]
    for place in places:
        if place and split_file(place, "test").exists():
            return place
    return None


async def run_all(points: list[Datapoint], agents: list[str], seed: int) -> list[dict[str, Any]]:
    """One episode per datapoint, sequentially (code agents are CPU-bound)."""
    rows = []
    for dp in points:
        res = await play_datapoint(dp, agents, seed=seed)
        rows.append(episode_metrics(res.record, res.rounds))
    return rows


def timed(points: list[Datapoint], agents: list[str], seed: int
          ) -> tuple[float, list[dict[str, Any]]]:
    """CPU time of one pass (the pass is single-threaded) and its metric rows."""
    t0 = time.process_time()
    rows = asyncio.run(run_all(points, agents, seed))
    return time.process_time() - t0, rows


def report(label: str, rows: list[dict[str, Any]]) -> None:
    """Outcome and estimation figures of one pass."""
    s = summarize(rows)
    with_best = [r for r in rows if r["best_total"] is not None]
    ratio = statistics.fmean(r["total"] / r["best_total"] for r in with_best)
    print(f"  {label}: {s['episodes']} episodes, rounds {s['rounds']:.2f}, "
          f"agreement {s['agreement']:.4f}, Pareto-optimal {s['pareto_optimal']:.4f}, "
          f"envy-free {s['envy_free']:.4f}")
    print(f"  {'':{len(label)}}  mean total {s['total']:.3f} vs best {s['best_total']:.3f} "
          f"(over the {len(with_best)} with an envy-free allocation: total/best "
          f"{ratio:.4f}, mean total there "
          f"{statistics.fmean(r['total'] for r in with_best):.3f})")
    e = s["estimation"]
    if e:
        print(f"  {'':{len(label)}}  estimation (both sides): precision {e['precision']:.4f}, "
              f"recall {e['recall']:.4f}, reduction {e['reduction']:.4f}, "
              f"precision w.r.t. I(v) {e['precision_indist']:.4f}, "
              f"recall w.r.t. I(v) {e['recall_indist']:.4f}")


def main() -> None:
    """Parse arguments, run the passes, print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=None, help="data root, folder or test.txt (default: "
                    "ACCORD_DATA, ../shared/data, accord's data folder)")
    ap.add_argument("--repeat", type=int, default=5, help="timed passes after the warm-up")
    ap.add_argument("--agents", default="workflow,workflow", help="alice,bob agent specs")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    agents = [str(a) for a in parse_agent_list(args.agents)]
    args.data = args.data or default_data()
    if args.data is None:
        raise SystemExit("no Deal-or-No-Deal data found: pass --data PATH, set ACCORD_DATA, or "
                         "run `accord dond download`")
    points = load_datapoints(args.data, "test")
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f}; times are CPU")
    print(f"agents: {' vs '.join(agents)}; {len(points)} unique test datapoints")

    belief_model.cache_clear()
    cold, rows = timed(points, agents, args.seed)
    times = [timed(points, agents, args.seed)[0] for _ in range(args.repeat)]
    rates = [len(points) / t for t in times]
    print(f"cold first pass: {cold:.3f} s ({len(points) / cold:.1f} episodes/s)")
    print(f"warm pass:       {summary(times, 1.0, 's')}")
    print(f"episodes/s:      median {statistics.median(rates):.1f} "
          f"(min {min(rates):.1f}, max {max(rates):.1f}, n={len(rates)})")
    report("all", rows)
    top = {d.id for d in hardest(points, 44)}
    report("hardest 44", [r for r, d in zip(rows, points, strict=True) if d.id in top])


if __name__ == "__main__":
    main()
