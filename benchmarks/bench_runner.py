"""Issue 3 benchmark: the experiment runner on 10,000 bargaining episodes.

Concession agents (boulware, linear, conceder, tit-for-tat, every ordered pair) on the
buyer-seller and procurement scenarios. For concurrency 1 and 32 (asyncio executor) it
measures, in the same process and interleaved per repeat:

* ``executor``: episodes per second running the episodes and their metrics, records
  consumed and dropped (no store);
* ``bench``: episodes per second of the full ``run_bench`` into a fresh SQLite store
  (plan insert, one transaction per episode, redaction, progress counting);
* the store's cost per episode: (bench time - executor time) / N, and separately the
  time of ``Store.write`` alone over N precomputed records, plus bytes per episode.

Wall-clock figures suffer when other processes share the cores, so every step also
records the process's CPU time (user + system, single-threaded driver): the CPU cost
per episode and the store's CPU cost are the figures to compare across machines.

Optionally (``--process``) the same N episodes on the process-pool executor at the
highest concurrency, printed with its throughput relative to the asyncio executor
(``benchmarks/bench_process.py`` times the whole ``accord bench`` command instead).

    python benchmarks/bench_runner.py [--episodes 10000] [--repeat 3] [--process]
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

from accord.bench import (
    BenchOptions,
    EpisodeRecord,
    EpisodeTask,
    LocalExecutor,
    Plan,
    ProcessExecutor,
    Store,
    expand,
    parse_config,
    run_bench,
)
from accord.bench.executors import Executor
from accord.bench.provenance import provenance

POOL = ["boulware", "linear", "conceder", "tit-for-tat"]


def make_plan(n: int) -> tuple[Plan, Any]:
    """The first ``n`` episodes of a 2-scenario x 16-line-up sweep."""
    seeds = -(-n // 32)
    cfg = parse_config({"name": "bench", "domain": "bargaining",
                        "scenarios": ["buyer-seller", "procurement"],
                        "agents": {"product": [POOL, POOL]}, "seeds": seeds})
    plan = expand(cfg)
    plan.episodes = plan.episodes[:n]
    return plan, cfg


def tasks(plan: Plan) -> list[EpisodeTask]:
    """Executor tasks for the plan."""
    return [EpisodeTask(e.id, e.spec, e.repeat, "bench") for e in plan.episodes]


async def _consume(executor: Executor, items: list[EpisodeTask]) -> list[EpisodeRecord]:
    return [rec async for rec in executor.run(items)]


Timing = tuple[float, float]  # (wall seconds, CPU seconds)


def _clock() -> Timing:
    return time.perf_counter(), time.process_time()


def _since(t0: Timing) -> Timing:
    w, c = _clock()
    return w - t0[0], c - t0[1]


def time_executor(executor: Executor, items: list[EpisodeTask]
                  ) -> tuple[Timing, list[EpisodeRecord]]:
    """Time to run every task through the executor, records kept in memory."""
    t0 = _clock()
    recs = asyncio.run(_consume(executor, items))
    return _since(t0), recs


def time_bench(cfg: Any, plan: Plan, concurrency: int, workdir: Path, tag: str) -> Timing:
    """Time of a full ``run_bench`` into a fresh store."""
    store = workdir / f"{tag}.db"
    t0 = _clock()
    rep = run_bench(cfg, BenchOptions(store=store, concurrency=concurrency, quiet=True), plan)
    elapsed = _since(t0)
    assert rep.done == len(plan.episodes) and rep.failed == 0, rep
    return elapsed


def time_store_writes(plan: Plan, recs: list[EpisodeRecord], workdir: Path, tag: str
                      ) -> tuple[Timing, int]:
    """Time of ``Store.write`` for every record (own transaction each), and file bytes."""
    path = workdir / f"{tag}.db"
    st = Store.open(path)
    sid = st.begin_session("w", {}, None, provenance(), "local", 1)
    st.add_planned("w", plan.episodes)
    t0 = _clock()
    for rec in recs:
        st.write("w", rec, sid)
    elapsed = _since(t0)
    st.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    st.close()
    return elapsed, path.stat().st_size


def fmt(values: list[float], unit: str, scale: float = 1.0) -> str:
    """``median (min-max)`` of the samples."""
    v = [x * scale for x in values]
    return f"{statistics.median(v):10.1f} {unit} (min {min(v):.1f}, max {max(v):.1f}, n={len(v)})"


def main() -> None:
    """Run the measurements and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--concurrency", default="1,32")
    ap.add_argument("--process", action="store_true", help="also time the process pool")
    args = ap.parse_args()
    plan, cfg = make_plan(args.episodes)
    items = tasks(plan)
    n = len(items)
    levels = [int(c) for c in args.concurrency.split(",")]
    print(f"accord bench runner: {n} bargaining episodes, concession agents; {machine()}")
    asyncio.run(_consume(LocalExecutor(8), items[:200]))  # warm caches and imports
    ex_t: dict[int, list[Timing]] = {c: [] for c in levels}
    bench_t: dict[int, list[Timing]] = {c: [] for c in levels}
    write_t: list[Timing] = []
    sizes: list[int] = []
    proc_t: list[Timing] = []
    workers: int | None = None
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for r in range(args.repeat):
            order = levels if r % 2 == 0 else levels[::-1]  # interleave against drift
            for c in order:
                t, recs = time_executor(LocalExecutor(c), items)
                ex_t[c].append(t)
                bench_t[c].append(time_bench(cfg, plan, c, work, f"b{r}-{c}"))
            wt, size = time_store_writes(plan, recs, work, f"w{r}")
            write_t.append(wt)
            sizes.append(size)
            if args.process:
                pool = ProcessExecutor(max(levels))
                t, _ = time_executor(pool, items)
                proc_t.append(t)
                workers = pool.workers
            print(f"  repeat {r + 1}/{args.repeat} done (load average "
                  f"{os.getloadavg()[0]:.1f})", flush=True)
    print("\nepisodes per second, wall clock (median, min-max over repeats):")
    for c in levels:
        for label, ts in (("executor only", ex_t[c]), ("with store   ", bench_t[c])):
            print(f"  concurrency {c:>3}  {label}: "
                  f"{fmt([n / t[0] for t in ts], 'ep/s')}")
    if proc_t:
        top = max(levels)
        print(f"  process pool, {workers} workers, concurrency {top}, executor only: "
              f"{fmt([n / t[0] for t in proc_t], 'ep/s')}")
        ratio = statistics.median(t[0] for t in ex_t[top]) / statistics.median(
            t[0] for t in proc_t)
        print(f"  process vs local throughput at concurrency {top}: {ratio:.2f}x "
              "(pool start-up included)")
    print("\ndriver CPU time per episode (user + system):")
    for c in levels:
        for label, ts in (("executor only", ex_t[c]), ("with store   ", bench_t[c])):
            print(f"  concurrency {c:>3}  {label}: "
                  f"{fmt([t[1] / n for t in ts], 'µs', 1e6)}")
    print("\nstore cost per episode, CPU (run_bench - executor, paired: same process, same "
          "repeat; wall-clock differences go negative under load and are not printed):")
    for c in levels:
        pairs = list(zip(bench_t[c], ex_t[c], strict=True))
        cpu = [(b[1] - e[1]) / n for b, e in pairs]
        print(f"  concurrency {c:>3}: {fmt(cpu, 'µs', 1e6)}")
    print(f"  load average now {os.getloadavg()[0]:.1f}")
    print(f"  Store.write alone, wall (1 txn/episode): "
          f"{fmt([w[0] / n for w in write_t], 'µs', 1e6)}")
    print(f"  Store.write alone, CPU                 : "
          f"{fmt([w[1] / n for w in write_t], 'µs', 1e6)}")
    print(f"  store size: {statistics.median(sizes) / n / 1024:.2f} KiB per episode "
          f"({statistics.median(sizes) / 2**20:.1f} MiB for {n})")


if __name__ == "__main__":
    main()
