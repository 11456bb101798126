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
   driver's CPU per episode, median and spread over ``--repeat``.

    python benchmarks/bench_ray.py [--plan 100000] [--code 300] [--llm 24] [--repeat 3]
                                   [--before /work/main/src]
"""

from __future__ import annotations

import argparse
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
from pathlib import Path
from typing import Any

import yaml
from _util import machine

from accord.bench import BenchOptions, expand, parse_config, run_bench, select
from accord.bench.runner import TaskView


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


def timed(cfg_dict: dict[str, Any], n: int, executor: str, concurrency: int, work: Path,
          tag: str) -> tuple[float, float]:
    """(wall, driver CPU) seconds per episode of one ``run_bench`` into a fresh store."""
    cfg = parse_config(cfg_dict)
    plan = expand(cfg)
    plan.episodes = plan.episodes[:n]
    w0, c0 = time.perf_counter(), time.process_time()
    rep = run_bench(cfg, BenchOptions(store=work / f"{tag}.db", executor=executor,
                                      concurrency=concurrency, quiet=True), plan)
    w, c = time.perf_counter() - w0, time.process_time() - c0
    assert rep.done == n and rep.failed == 0, (rep, rep.first_error)
    return w / n, c / n


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
        variants = [
            ("code", "local", 1), ("code", "ray", 1), ("code", "process", 2),
            ("code", "ray", 2),
            ("llm", "local", 2), ("llm", "ray", 2), ("llm", "local", 8),
            ("llm", "ray?cpus=0.25", 8),
        ]
        res: dict[tuple[str, str, int], list[tuple[float, float]]] = {v: [] for v in variants}
        for r in range(args.repeat):
            for kind, ex, conc in (variants if r % 2 == 0 else variants[::-1]):
                n = args.code if kind == "code" else args.llm
                cfg = code_config(n) if kind == "code" else llm_config(n)
                res[(kind, ex, conc)].append(
                    timed(cfg, n, ex, conc, work, f"{kind}-{ex}-{conc}-{r}"))
            print(f"  repeat {r + 1}/{args.repeat} (load {os.getloadavg()[0]:.1f})", flush=True)
        print(f"\n  per episode (code: {args.code} bargaining episodes, concession agents; llm: "
              f"{args.llm} episodes, stub latency {args.latency * 1e3:.0f} ms per call):")
        for (kind, ex, conc), vals in res.items():
            print(f"    {kind:4s} {ex:14s} concurrency {conc}: wall "
                  f"{fmt([v[0] for v in vals])}; driver CPU {fmt([v[1] for v in vals])}")
        for kind, a, b in (("code", ("code", "local", 1), ("code", "ray", 1)),
                           ("llm", ("llm", "local", 2), ("llm", "ray", 2))):
            diff = [y[0] - x[0] for x, y in zip(res[a], res[b], strict=True)]
            print(f"  Ray overhead per {kind} episode, wall (ray - local, same concurrency, "
                  f"paired): {fmt(diff)}")
        ray.shutdown()
    finally:
        if stub.stdin:
            stub.stdin.close()
        stub.wait(10)


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
