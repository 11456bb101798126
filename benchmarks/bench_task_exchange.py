"""Issue 7 benchmark: task-exchange episodes per second, code agents and LLM agents.

Modes (each runs the same cells: both scenarios x both strategies, seeds 0, 1, ...):

* ``code``: ``utility-aware`` vs ``utility-aware`` (code agents, no LLM layer);
* ``mock``: the LLM agent on both sides against the rule-based ``task-exchange`` stub
  policy in process (``llm:mock/task-exchange``): prompts, parsing, sessions, accounting,
  no HTTP;
* ``http``: the same over real HTTP (``llm:openai-api/stub/task-exchange``) with the stub
  server in a child process, so its CPU time is not counted here;
* ``replay``: the ``http`` episodes again from an SQLite cache in replay-only mode (no
  request reaches the server).

Each mode runs ``--episodes`` episodes per repeat (``--concurrency`` in flight) and prints
episodes per second as median and spread (min-max) over ``--repeat`` repeats after one
warm-up, plus LLM calls per episode and the episodes' outcomes.

    python benchmarks/bench_task_exchange.py [--episodes 40] [--repeat 5] [--concurrency 1]
        [--modes code,mock,http,replay] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from _util import machine

from accord.agents.spec import parse_agent_spec
from accord.domains.base import EpisodeSpec, RunContext
from accord.domains.task_exchange import DOMAIN

CELLS = [(sc, st) for sc in ("cooperative", "competitive") for st in ("utility-aware", "baseline")]
AGENTS = {"code": "utility-aware", "mock": "llm:mock/task-exchange?temperature=0",
          "http": "llm:openai-api/stub/task-exchange?temperature=0",
          "replay": "llm:openai-api/stub/task-exchange?temperature=0"}


def specs(mode: str, n: int) -> list[EpisodeSpec]:
    """``n`` episodes cycling over the four cells, seed = index."""
    agent = parse_agent_spec(AGENTS[mode])
    return [EpisodeSpec("task-exchange", CELLS[i % 4][0], (agent, agent),
                        {"strategy": CELLS[i % 4][1]}, i) for i in range(n)]


async def run_batch(batch: list[EpisodeSpec], concurrency: int, llm: dict[str, Any],
                    tag: str) -> list[Any]:
    """Run ``batch`` with at most ``concurrency`` episodes in flight."""
    gate = asyncio.Semaphore(concurrency)

    async def one(spec: EpisodeSpec) -> Any:
        async with gate:
            ctx = RunContext(episode_id=f"{tag}-{spec.seed}", llm=llm)
            return await DOMAIN.run_episode(spec, ctx)

    return list(await asyncio.gather(*(one(s) for s in batch)))


def timed(batch: list[EpisodeSpec], concurrency: int, llm: dict[str, Any], tag: str
          ) -> tuple[float, list[Any]]:
    """Wall time of one batch and its results."""
    t0 = time.perf_counter()
    results = asyncio.run(run_batch(batch, concurrency, llm, tag))
    return time.perf_counter() - t0, results


def start_stub() -> tuple[subprocess.Popen[str], str]:
    """The stub server (policy ``task-exchange``) in a child process; its base URL."""
    proc = subprocess.Popen([sys.executable, "-m", "accord.testing.stub", "--policy",
                             "task-exchange", "--exit-on-stdin-eof"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    return proc, json.loads(proc.stdout.readline())["base_url"]


def measure(mode: str, args: argparse.Namespace, cache_dir: Path) -> dict[str, Any]:
    """Warm-up plus ``args.repeat`` timed batches of one mode."""
    batch = specs(mode, args.episodes)
    llm: dict[str, Any] = {}
    if mode == "replay":  # record once (untimed), then every timed batch replays it
        path = str(cache_dir / "replay.sqlite")
        timed(batch, args.concurrency, {"cache": path, "cache_mode": "rw"}, "replay")
        llm = {"cache": path, "cache_mode": "replay"}
    # fresh episode ids per batch (no cache is shared), the recorded ids for replay
    def tag(k: int | str) -> str:
        return "replay" if mode == "replay" else f"{mode}-{k}"

    timed(batch, args.concurrency, llm, tag("warm"))
    rates: list[float] = []
    results: list[Any] = []
    for k in range(args.repeat):
        wall, results = timed(batch, args.concurrency, llm, tag(k))
        rates.append(len(batch) / wall)
    calls = [sum(e.reason == "llm_call" for e in r.trajectory.of_kind("note")) for r in results]
    status = Counter(r.status for r in results)
    return {"mode": mode, "episodes": len(batch), "concurrency": args.concurrency,
            "eps_per_s": {"median": statistics.median(rates), "min": min(rates),
                          "max": max(rates), "n": len(rates)},
            "calls_per_episode": statistics.fmean(calls) if calls else 0.0,
            "status": dict(status)}


def main() -> None:
    """Parse arguments, run the modes, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--modes", default="code,mock,http,replay")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = [m for m in modes if m not in AGENTS]
    if unknown:
        parser.error(f"unknown mode(s) {unknown}; use {', '.join(AGENTS)}")
    proc = None
    if {"http", "replay"} & set(modes):
        proc, base_url = start_stub()
        os.environ["STUB_BASE_URL"], os.environ["STUB_API_KEY"] = base_url, "bench-key"
    out = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for mode in modes:
                out.append(measure(mode, args, Path(tmp)))
    finally:
        if proc is not None:
            assert proc.stdin is not None
            proc.stdin.close()
            proc.wait(timeout=10)
    if args.json:
        print(json.dumps({"machine": machine(), "results": out}))
        return
    print(f"task-exchange episodes per second ({machine()})")
    print(f"{args.episodes} episodes per batch over {len(CELLS)} cells, concurrency "
          f"{args.concurrency}, {args.repeat} repeats after a warm-up")
    for r in out:
        e = r["eps_per_s"]
        print(f"  {r['mode']:7s} {e['median']:9.1f} ep/s (min {e['min']:.1f}, max "
              f"{e['max']:.1f}, n={e['n']}); {r['calls_per_episode']:.1f} LLM calls/episode; "
              f"{r['status']}")


if __name__ == "__main__":
    main()
