"""Issue 15 benchmark: server time of ``accord serve`` pages (goal: p95 under 100 ms).

Builds, in a temporary folder: a real gated bench run (8 bargaining episodes), a run of
10^5 episodes grown from it (:func:`accord.testing.stores.grow_store`, one executemany),
a run of 10 episodes grown the same way (the baseline: a 10^5 run should open as fast),
and one 200-round bargaining episode (boulware against boulware, stagnation rule off).
Then times each page in process through the ASGI app (Starlette TestClient: routing,
SQLite reads, templates; no network), ``--repeat`` requests after warm-up, and prints
median, p95 and max per page (wall time, and the process's CPU time, which load from
other processes on the machine does not inflate), and the 10^5 / 10 ratio of the run
page. The first request of a filtered or sorted view scans the run once (JSON fields
have no index); the figures are for the views as a person pages through them.

    python benchmarks/bench_serve.py [--repeat 60] [--episodes 100000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _util import machine


def _build(tmp: Path, n: int) -> dict[str, Any]:
    from accord.bench import BenchOptions, parse_config, run_bench
    from accord.bench.single import store_episode
    from accord.domains import EpisodeSpec, get_domain
    from accord.domains.bargaining import resolve_scenario, run_negotiation
    from accord.testing.stores import grow_store

    src = tmp / "gated.db"
    cfg = parse_config({"name": "gated", "domain": "bargaining",
                        "scenarios": ["buyer-seller", "procurement"],
                        "agents": [["boulware", "conceder"], ["linear", "linear"]],
                        "seeds": 2, "require_approval": True}, "<bench>")
    run_bench(cfg, BenchOptions(store=str(src), quiet=True))
    t0 = time.perf_counter()
    big_ids = grow_store(src, "gated", tmp / "big.db", "big", n, with_trajectories=20)
    build = time.perf_counter() - t0
    small_ids = grow_store(src, "gated", tmp / "small.db", "small", 10, with_trajectories=10)
    params = {"max_rounds": 200, "stagnation_rounds": 0}
    spec = EpisodeSpec("bargaining", "buyer-seller", ("boulware", "boulware"), params, 0)
    from accord.agents.spec import parse_agent_list

    result = asyncio.run(run_negotiation(resolve_scenario("buyer-seller"),
                                         parse_agent_list("boulware,boulware"), params=params,
                                         seed=0))
    long_id = store_episode(tmp / "long.db", spec, result,
                            get_domain("bargaining").metrics(spec, result))
    return {"big": big_ids, "small": small_ids, "long": long_id, "build": build,
            "rounds": result.summary()["rounds"], "events": len(result.trajectory)}


def _time(client: Any, url: str, repeat: int) -> tuple[list[float], list[float]]:
    """Wall and process-CPU seconds of ``repeat`` requests (after 3 warm-up requests)."""
    for _ in range(3):
        r = client.get(url)
        assert r.status_code == 200, (url, r.status_code, r.text[:300])
    wall, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        r = client.get(url)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        assert r.status_code == 200
    return wall, cpu


def _p95(ms: list[float]) -> float:
    ms = sorted(ms)
    return ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]


def _line(name: str, times: tuple[list[float], list[float]]) -> str:
    wall = [t * 1e3 for t in times[0]]
    cpu = [t * 1e3 for t in times[1]]
    return (f"{name:48s} wall median {statistics.median(wall):7.2f} ms  p95 {_p95(wall):7.2f}"
            f" ms  max {max(wall):7.2f} ms | CPU median {statistics.median(cpu):6.2f} ms  "
            f"p95 {_p95(cpu):6.2f} ms  (n={len(wall)})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=60)
    ap.add_argument("--episodes", type=int, default=100_000)
    args = ap.parse_args()
    from starlette.testclient import TestClient

    from accord.serve.app import create_app

    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        built = _build(tmp, args.episodes)
        print(f"built a {args.episodes}-episode store in {built['build']:.1f} s; 200-round "
              f"episode: {built['rounds']} rounds, {built['events']} events")
        app = create_app([tmp / "big.db", tmp / "small.db", tmp / "long.db"])
        c = TestClient(app, base_url="http://127.0.0.1")
        t0 = time.perf_counter()
        c.get("/stores/0/runs/big/aggregate")
        cold = time.perf_counter() - t0
        big, small = built["big"], built["small"]
        firsts = {}
        for what, url in (("scenario filter", "/stores/0/runs/big?scenario=buyer-seller"),
                          ("sort by wall time", "/stores/0/runs/big?sort=wall_time")):
            t0 = time.perf_counter()
            assert c.get(url).status_code == 200
            firsts[what] = time.perf_counter() - t0
        pages = {
            "run page, 10 episodes (baseline)": "/stores/1/runs/small",
            f"run page, {args.episodes} episodes, page 1": "/stores/0/runs/big",
            f"run page, {args.episodes} episodes, middle page":
                f"/stores/0/runs/big?page={args.episodes // 100}",
            f"run page, {args.episodes} episodes, last page":
                f"/stores/0/runs/big?page={args.episodes // 50}",
            f"run page, {args.episodes} ep., sorted by rounds": "/stores/0/runs/big?sort=rounds",
            f"run page, {args.episodes} ep., scenario filter":
                "/stores/0/runs/big?scenario=procurement&page=100",
            "run API twin, page 1": "/api/stores/0/runs/big/episodes",
            f"episode page in the {args.episodes} store (8-char id)":
                f"/episodes/{big[3][:8]}",
            "episode page in the 10 store (8-char id)": f"/episodes/{small[3][:8]}",
            "episode page, 200-round transcript": f"/episodes/{built['long'][:8]}",
            "episode API twin, 200-round transcript": f"/api/episodes/{built['long'][:8]}",
            "index (3 stores)": "/",
        }
        results = {name: _time(c, url, args.repeat) for name, url in pages.items()}
        for name, times in results.items():
            print(_line(name, times))
        for k, what in ((0, "wall"), (1, "CPU")):
            base = statistics.median(results["run page, 10 episodes (baseline)"][k])
            first = statistics.median(results[f"run page, {args.episodes} episodes, page 1"][k])
            print(f"run page {args.episodes} / 10 episodes: {first / base:.2f}x ({what}, "
                  "median)")
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        for what, sec in firsts.items():
            print(f"first request of a new view ({what}) on {args.episodes} episodes: "
                  f"{sec * 1e3:.0f} ms (the scan; later pages use the cached order)")
        print(f"aggregate of the {args.episodes}-episode run, first computation "
              f"(loaded after the page by app.js, then cached): {cold * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
