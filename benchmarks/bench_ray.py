"""Issue 16 goal 5 benchmark: the cluster path, measured on one machine.

Prints, in one run:

1. **Plan memory** (no Ray): bytes the driver holds per planned episode for an
   N-episode sweep (default 10^5) with the lazy plan (ids and small integers; specs
   and tasks built on access), and what materialising every spec and task costs (the
   plan of accord before it), by ``tracemalloc``.
2. **Driver peak RSS at N queued episodes**, of a real ``accord bench`` process
   (``--executor local`` and ``ray``) stopped by SIGTERM after a few hundred episodes:
   this branch against ``--before SRC`` (e.g. the main checkout's ``src``) when given.
3. **Per-episode overhead** of the Ray executor on a local Ray instance with 2 worker
   CPUs against the in-process executors, for code episodes (bargaining concession
   agents, ~ms each) and stub-LLM episodes (an LLM negotiator against the stub server
   in a child process answering after ``--latency`` seconds): wall time and the
   driver's CPU per episode, median and spread over ``--repeat``. ``ray`` is the
   chunked executor (adaptive chunks, the default); ``ray-before`` is the executor as it
   was before chunking (one plain Ray task per episode, ``concurrency`` tasks in
   flight; its loop is copied below), in the same run and on the same Ray instance.
4. **Chunk size sweep** (``--chunks``): code episodes through ``ray?chunk=N`` at
   concurrency 2 for fixed N against ``auto``: where the overhead flattens out.

    python benchmarks/bench_ray.py [--plan 100000] [--code 300] [--llm 24] [--repeat 3]
                                   [--before /work/main/src] [--chunks 1,4,16,64,256]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import AsyncIterator, Iterable, Iterator
from pathlib import Path
from typing import Any

import yaml
from _util import machine

from accord.bench import BenchOptions, expand, parse_config, run_bench, select
from accord.bench import runner as bench_runner
from accord.bench.executors import Executor, ExecutorChoice
from accord.bench.ray_executor import RayExecutor, import_ray
from accord.bench.runner import TaskView
from accord.bench.worker import EpisodeRecord, EpisodeTask, execute_sync, failed_record


def nap_config(n: int) -> dict[str, Any]:
    """``n`` testing-sleep episodes that finish at once (pure driver cost)."""
    return {"name": "nap", "plugins": ["accord.testing.sleep_domain"],
            "domain": "testing-sleep", "scenarios": ["nap"],
            "agents": [["sleeper", "sleeper"]], "params": {"delay": 0.0}, "seeds": n}


def plan_memory(n: int) -> None:
    """tracemalloc bytes per episode: lazy plan + queue + tasks, then materialised."""
    cfg = parse_config(nap_config(n))
    expand(parse_config(nap_config(10)))  # imports (plugins, domains) outside the trace
    gc.collect()
    tracemalloc.start()
    t0 = time.perf_counter()
    plan = expand(cfg)
    queue, _, _ = select(plan, {}, False, False)
    tasks = TaskView(queue, cfg, {}, None)
    t_plan = time.perf_counter() - t0
    lazy, peak = tracemalloc.get_traced_memory()
    specs = list(plan.episodes)
    task_list = list(tasks)
    full, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(specs) == len(task_list) == n
    print(f"  plan of {n} episodes: expand + select + tasks {t_plan:.1f} s")
    print(f"  held by the lazy plan, queue and tasks: {lazy / n:6.0f} B per episode "
          f"({lazy / 2**20:.1f} MiB; peak while planning {peak / 2**20:.1f} MiB)")
    print(f"  with every spec and task materialised (as before): {full / n:6.0f} B per "
          f"episode ({full / 2**20:.1f} MiB), {full / max(lazy, 1):.1f}x")


def _done(db: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return int(conn.execute("SELECT count(*) FROM episodes WHERE status='done'"
                                    ).fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def driver_rss(n: int, executor: str, src: str | None, work: Path, tag: str,
               stop_after: int = 300) -> tuple[float, int, float]:
    """Peak RSS (MiB) of an ``accord bench`` over ``n`` queued episodes stopped by SIGTERM
    once ``stop_after`` are done; also episodes done and seconds to the first one."""
    cfg = work / f"{tag}.yaml"
    cfg.write_text(yaml.safe_dump(nap_config(n)), encoding="utf-8")
    db = work / f"{tag}.db"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if src:
        env["PYTHONPATH"] = src
    argv = [sys.executable, "-m", "accord", "bench", str(cfg), "--store", str(db),
            "--executor", executor, "--quiet"]
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=work, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    first = float("nan")
    deadline = time.monotonic() + 900
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)  # keeps the child's rusage
        if pid:
            break
        done = _done(db)
        if done and first != first:
            first = time.perf_counter() - t0
        if done >= stop_after or time.monotonic() > deadline:
            proc.send_signal(signal.SIGTERM)
            _, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.2)
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) not in (0, 130, -signal.SIGTERM, 143):
        print(f"    ({tag}: exit {os.waitstatus_to_exitcode(status)}: {err[-400:]})")
    return usage.ru_maxrss / 1024, _done(db), first


def start_stub(latency: float) -> tuple[subprocess.Popen[str], str]:
    """The stub server (negotiator replies after ``latency`` s) in a child process."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "accord.testing.stub", "--policy", "fixed-latency",
         "--option", f"latency={latency}", "--option", "inner=negotiator",
         "--exit-on-stdin-eof"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    return proc, json.loads(line)["base_url"]


def code_config(n: int) -> dict[str, Any]:
    """``n`` bargaining episodes between concession agents."""
    pool = ["boulware", "linear", "conceder", "tit-for-tat"]
    return {"name": "code", "domain": "bargaining", "scenarios": ["buyer-seller", "procurement"],
            "agents": {"product": [pool, pool]}, "seeds": -(-n // 32)}


def llm_config(n: int) -> dict[str, Any]:
    """``n`` episodes of an LLM negotiator (stub) against a Boulware agent."""
    return {"name": "llm", "domain": "bargaining", "scenarios": ["buyer-seller"],
            "agents": [["llm:openai-api/stub/negotiator", "boulware"]], "seeds": n,
            "concurrency": 8}


class PerEpisodeRayExecutor(RayExecutor):
    """The Ray executor before chunking (the baseline): one plain Ray task per episode,
    at most ``concurrency`` in flight (the main branch's loop, copied)."""

    async def run(self, tasks: Iterable[EpisodeTask]) -> AsyncIterator[EpisodeRecord]:
        ray = import_ray()
        remote = ray.remote(num_cpus=self.num_cpus, max_retries=0)(execute_sync)
        it: Iterator[EpisodeTask] = iter(tasks)
        pending: dict[asyncio.Future[Any], tuple[EpisodeTask, Any]] = {}

        def fill() -> None:
            while len(pending) < self.concurrency:
                task = next(it, None)
                if task is None:
                    return
                ref = remote.remote(task)
                pending[asyncio.wrap_future(ref.future())] = (task, ref)

        fill()
        while pending:
            done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for fut in done:
                task, _ref = pending.pop(fut)
                try:
                    yield fut.result()
                except Exception as exc:
                    yield failed_record(task, f"ray: {type(exc).__name__}: {exc}")
            fill()


#: the executor of the last ``timed`` run (to read the chunk sizer's measured rate)
LAST: list[Executor] = []


@contextlib.contextmanager
def executors() -> Iterator[None]:
    """Let ``run_bench`` build ``ray-before`` (the baseline) and remember each executor."""
    original = bench_runner.make_executor

    def make(choice: ExecutorChoice | str, concurrency: int | None = None) -> Executor:
        ex = original(choice, concurrency)
        LAST[:] = [ex]
        return ex

    bench_runner.make_executor = make
    try:
        yield
    finally:
        bench_runner.make_executor = original


def timed(cfg_dict: dict[str, Any], n: int, executor: str, concurrency: int, work: Path,
          tag: str) -> tuple[float, float]:
    """(wall, driver CPU) seconds per episode of one ``run_bench`` into a fresh store."""
    cfg = parse_config(cfg_dict)
    plan = expand(cfg)
    plan.episodes = plan.episodes[:n]
    before = executor.startswith("ray-before")
    name = executor.replace("ray-before", "ray")
    w0, c0 = time.perf_counter(), time.process_time()
    with executors():
        if before:
            orig = bench_runner.make_executor

            def make_before(choice: ExecutorChoice | str,
                            concurrency: int | None = None) -> Executor:
                ex = orig(choice, concurrency)
                assert isinstance(ex, RayExecutor)
                out = PerEpisodeRayExecutor(ex.address, concurrency, ex.num_cpus)
                LAST[:] = [out]
                return out

            bench_runner.make_executor = make_before
        rep = run_bench(cfg, BenchOptions(store=work / f"{tag}.db", executor=name,
                                          concurrency=concurrency, quiet=True), plan)
    w, c = time.perf_counter() - w0, time.process_time() - c0
    assert rep.done == n and rep.failed == 0, (rep, rep.first_error)
    return w / n, c / n


def chunk_reached() -> str:
    """The adaptive chunk size the last Ray run ended with (its measured rate)."""
    ex = LAST[0] if LAST else None
    if isinstance(ex, RayExecutor) and not isinstance(ex, PerEpisodeRayExecutor) and ex.sizer:
        rate = ex.sizer.rate or 0.0
        return f"{ex.sizer.size()} episodes/task ({rate:.0f} episodes/s per task)"
    return "-"


def fmt(values: list[float], scale: float = 1e3, unit: str = "ms") -> str:
    """``median (min-max)`` of the samples."""
    v = [x * scale for x in values]
    return f"{statistics.median(v):8.2f} {unit} (min {min(v):.2f}, max {max(v):.2f}, n={len(v)})"


def overhead(args: argparse.Namespace, work: Path) -> None:
    """Ray against the in-process executors, code and stub-LLM episodes."""
    import ray

    stub, base_url = start_stub(args.latency)
    os.environ["STUB_BASE_URL"] = base_url  # before ray.init: workers inherit it
    os.environ["STUB_API_KEY"] = "sk-stub"
    try:
        t0 = time.perf_counter()
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                 logging_level="warning")
        print(f"  ray.init (local instance, 2 CPUs): {time.perf_counter() - t0:.1f} s")
        timed(code_config(32), 32, "ray", 2, work, "warm-ray")  # workers up, imports done
        timed(code_config(32), 32, "ray-before", 2, work, "warm-ray-before")
        timed(llm_config(4), 4, "ray", 2, work, "warm-ray-llm")  # LLM SDKs imported
        variants = [
            ("code", "local", 1), ("code", "ray-before", 1), ("code", "ray", 1),
            ("code", "process", 2), ("code", "ray-before", 2), ("code", "ray", 2),
            ("llm", "local", 2), ("llm", "ray-before", 2), ("llm", "ray", 2),
            ("llm", "local", 8), ("llm", "ray-before?cpus=0.25", 8), ("llm", "ray", 8),
        ]
        variants = [v for v in variants if v[0] in args.kinds.split(",")]
        res: dict[tuple[str, str, int], list[tuple[float, float]]] = {v: [] for v in variants}
        reached: dict[tuple[str, str, int], str] = {}
        for r in range(args.repeat):
            for kind, ex, conc in (variants if r % 2 == 0 else variants[::-1]):
                n = args.code if kind == "code" else args.llm
                cfg = code_config(n) if kind == "code" else llm_config(n)
                res[(kind, ex, conc)].append(
                    timed(cfg, n, ex, conc, work, f"{kind}-{ex}-{conc}-{r}"))
                reached[(kind, ex, conc)] = chunk_reached()
            print(f"  repeat {r + 1}/{args.repeat} (load {os.getloadavg()[0]:.1f})", flush=True)
        print(f"\n  per episode (code: {args.code} bargaining episodes, concession agents; llm: "
              f"{args.llm} episodes, stub latency {args.latency * 1e3:.0f} ms per call):")
        for (kind, ex, conc), vals in res.items():
            print(f"    {kind:4s} {ex:20s} concurrency {conc}: wall "
                  f"{fmt([v[0] for v in vals])}; driver CPU {fmt([v[1] for v in vals])}; "
                  f"last chunk {reached[(kind, ex, conc)]}")
        print("\n  Ray overhead per episode (ray - local at the same concurrency, paired by "
              "repeat):")
        pairs = [(("code", "local", 1), ("code", ex, 1)) for ex in ("ray-before", "ray")] + [
            (("llm", "local", c), ("llm", ex, c)) for c, exs in
            ((2, ("ray-before", "ray")), (8, ("ray-before?cpus=0.25", "ray"))) for ex in exs]
        for a, b in pairs:
            if a in res and b in res:
                wall = [y[0] - x[0] for x, y in zip(res[a], res[b], strict=True)]
                cpu = [y[1] - x[1] for x, y in zip(res[a], res[b], strict=True)]
                print(f"    {b[0]:4s} {b[1]:20s} concurrency {b[2]}: wall {fmt(wall)}; "
                      f"driver CPU {fmt(cpu)}")
        if args.chunks:
            chunk_sweep(args, work)
        ray.shutdown()
    finally:
        if stub.stdin:
            stub.stdin.close()
        stub.wait(10)


def chunk_sweep(args: argparse.Namespace, work: Path) -> None:
    """Code episodes through fixed chunk sizes and ``auto`` at concurrency 2."""
    sizes = [f"ray?chunk={c}" for c in args.chunks.split(",")] + ["ray"]
    res: dict[str, list[tuple[float, float]]] = {s: [] for s in ["local", *sizes]}
    reached = ""
    for r in range(args.repeat):
        order = ["local", *sizes]
        for ex in (order if r % 2 == 0 else order[::-1]):
            conc = 1 if ex == "local" else 2
            res[ex].append(timed(code_config(args.code), args.code, ex, conc, work,
                                 f"sweep-{ex}-{r}"))
            if ex == "ray":
                reached = chunk_reached()
    print(f"\n4. chunk size sweep, {args.code} code episodes, ray at concurrency 2 (2 slots) "
          f"against local at concurrency 1 (load {os.getloadavg()[0]:.1f}):")
    for ex, vals in res.items():
        note = f"; adaptive, last chunk {reached}" if ex == "ray" else ""
        print(f"    {ex:16s} wall {fmt([v[0] for v in vals])}; driver CPU "
              f"{fmt([v[1] for v in vals])}{note}")


def main() -> None:
    """Run the measurements and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plan", type=int, default=100_000, help="episodes planned/queued")
    ap.add_argument("--code", type=int, default=300, help="code episodes per timing")
    ap.add_argument("--llm", type=int, default=24, help="stub-LLM episodes per timing")
    ap.add_argument("--latency", type=float, default=0.05, help="stub seconds per call")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--before", default=None, metavar="SRC",
                    help="another accord source tree (PYTHONPATH) for the driver RSS")
    ap.add_argument("--kinds", default="code,llm", help="episode kinds for part 3")
    ap.add_argument("--chunks", default="1,4,16,64,256",
                    help="fixed chunk sizes for the sweep (part 4; empty: skip)")
    ap.add_argument("--skip", default="", help="comma list of parts to skip: plan,rss,overhead")
    ap.add_argument("--rss", default="this:local,this:ray,before:local,before:ray",
                    help="driver RSS variants (tree:executor)")
    args = ap.parse_args()
    skip = set(args.skip.split(","))
    print(f"accord Ray benchmark; {machine()}; load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if "plan" not in skip:
            print("\n1. driver memory of the plan (tracemalloc):")
            plan_memory(args.plan)
        if "rss" not in skip:
            print(f"\n2. driver peak RSS, accord bench with {args.plan} queued episodes "
                  "(stopped by SIGTERM after 300 done):")
            trees = {"this": ("this branch", None), "before": ("before", args.before)}
            for variant in args.rss.split(","):
                tree, _, ex = variant.partition(":")
                label, src = trees[tree]
                if tree == "before" and not src:
                    continue
                rss, done, first = driver_rss(args.plan, ex, src, work,
                                              f"rss-{ex}-{label[:4]}")
                print(f"  {label:12s} --executor {ex:6s}: peak RSS {rss:7.0f} MiB "
                      f"({done} done; first episode after {first:.1f} s; load "
                      f"{os.getloadavg()[0]:.1f})", flush=True)
        if "overhead" not in skip:
            print("\n3. Ray executor overhead (local Ray instance, 2 CPUs):")
            overhead(args, work)
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
