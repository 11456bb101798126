"""Deliberation benchmark: ILP optimum time and offline episode time per setting.

Run ``.venv/bin/python benchmarks/bench_deliberation.py [N]``: for the first N shipped
instances (default 60) of every setting it times the HiGHS optimum and one episode of two
(three) ``share`` code agents, and prints the median and the 10th-90th percentile spread.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time

import numpy as np

from accord.agents.spec import parse_agent_list
from accord.domains.base import EpisodeSpec, RunContext
from accord.domains.deliberation import DOMAIN, SETTINGS, optimum, shipped_instance


def _fmt(name: str, samples: list[float]) -> str:
    ms = np.array(samples) * 1000
    lo, hi = np.percentile(ms, [10, 90])
    return (f"{name:34} median {statistics.median(ms):8.2f} ms   p10-p90 {lo:7.2f}-{hi:7.2f} ms"
            f"   (n={len(ms)})")


def main() -> None:
    """Print the figures."""
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    for setting in SETTINGS:
        solve, episode, nrs = [], [], []
        agents = "share,share,share" if setting == "task-allocation" else "share,share"
        for i in range(n):
            inst = shipped_instance(setting, i)
            t0 = time.perf_counter()
            optimum(inst)
            solve.append(time.perf_counter() - t0)
            spec = EpisodeSpec("deliberation", f"{setting}/{i}",
                               tuple(parse_agent_list(agents)), {}, seed=0)
            t0 = time.perf_counter()
            res = asyncio.run(DOMAIN.run_episode(spec, RunContext()))
            episode.append(time.perf_counter() - t0)
            nrs.append(DOMAIN.metrics(spec, res)["nr"])
        print(_fmt(f"{setting}: ILP optimum", solve))
        print(_fmt(f"{setting}: share-agent episode", episode))
        print(f"{setting:34} mean NR of share agents {statistics.mean(nrs):.2f}")


if __name__ == "__main__":
    main()
