"""Issue 15 benchmark: server time of ``accord serve`` pages (goal: p95 under 100 ms).

Builds, in a temporary folder: a real gated bench run (8 bargaining episodes), a run of
10^5 episodes grown from it (:func:`accord.testing.stores.grow_store`, one executemany),
a run of 10 episodes grown the same way (the baseline: a 10^5 run should open as fast),
and one 200-round bargaining episode (boulware against boulware, stagnation rule off).
Then times each page in process through the ASGI app (Starlette TestClient: routing,
SQLite reads, templates; no network), ``--repeat`` requests after warm-up, and prints
median, p95 and max per page, and the 10^5 / 10 ratio of the run page.

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


def _time(client: Any, url: str, repeat: int) -> list[float]:
    for _ in range(3):
        r = client.get(url)
        assert r.status_code == 200, (url, r.status_code, r.text[:300])
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = client.get(url)
        out.append(time.perf_counter() - t0)
        assert r.status_code == 200
    return out


def _line(name: str, times: list[float]) -> str:
    ms = sorted(t * 1e3 for t in times)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    return (f"{name:48s} median {statistics.median(ms):7.2f} ms  p95 {p95:7.2f} ms  "
            f"max {ms[-1]:7.2f} ms  (n={len(ms)})")


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
        base = statistics.median(results["run page, 10 episodes (baseline)"])
        first = statistics.median(results[f"run page, {args.episodes} episodes, page 1"])
        print(f"run page 10^5 / 10 episodes: {first / base:.2f}x (median)")
        print(f"aggregate of the {args.episodes}-episode run, first computation "
              f"(loaded after the page by app.js, then cached): {cold * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
