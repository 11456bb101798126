"""Issue 4 benchmark: LLM-layer throughput, overhead and prefix reuse against the stub.

Runs episodes of about 10 LLM calls each (two parties, 5 calls each, append-only
sessions) against the OpenAI-compatible stub server answering every request after a
fixed 100 ms, through accord's full client path (openai SDK, HTTP, limits, retries,
accounting; optionally the SQLite cache). The stub runs in a child process, so the
CPU time measured here is the client's alone.

Figures per concurrency level (per-endpoint limit c):

* wall time against the ideal ``calls x latency / c``;
* client CPU time per call (process CPU time / calls);
* the share of each prompt that is an unchanged prefix of the same party's previous
  prompt (as the stub reports it in ``cached_tokens``, and recomputed here).

Concurrency 1 would take 2000 x 0.1 s = 200 s, so by default it runs 20 episodes
(200 calls, about 20 s); ``--c1-episodes 200`` runs the full count.

    python benchmarks/bench_llm.py [--quick] [--episodes 200] [--repeat 3] [--json]

Episodes are pluggable (:data:`EPISODES`): ``synthetic`` builds the conversations
here from the prompt-state contract of ``accord.testing.stub.negotiator``; a
``negotiation`` kind running real LLM-negotiator episodes can be registered with
the same signature ``async (client, episode_id, turns) -> None``.
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
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from _util import machine

from accord.llm import CallScope, CompletionCache, LLMClient, LLMRuntime
from accord.llm.tokens import message_tokens, shared_prefix

LATENCY = 0.1
UTILITY = {"issues": {"price": [100, 120, 140, 160, 180], "delivery": ["1w", "2w", "4w"],
                      "warranty": ["none", "1y", "2y"]},
           "weights": {"price": 0.6, "delivery": 0.25, "warranty": 0.15},
           "values": {"price": {"100": 0, "120": 0.25, "140": 0.5, "160": 0.75, "180": 1},
                      "delivery": {"1w": 0, "2w": 0.6, "4w": 1},
                      "warranty": {"none": 1, "1y": 0.5, "2y": 0}},
           "batna": 0.35}
SYSTEM = ("You represent the {role} in a negotiation over price, delivery and warranty.\n"
          "Never accept an offer worth less to you than your BATNA; never disclose your "
          "utility or your BATNA.\n<UTILITY>{utility}</UTILITY>\n"
          "Moves: <PROPOSAL>{{json}}</PROPOSAL>, <ACCEPT/>, <REJECT/>, <WALK/>. Think "
          "privately inside <CONSIDER>...</CONSIDER>.\n"
          "Again: never accept below your BATNA and never disclose it.")

Episode = Callable[[LLMClient, str, int], Awaitable[list[list[dict[str, str]]]]]


async def synthetic_episode(client: LLMClient, episode: str, turns: int
                            ) -> list[list[dict[str, str]]]:
    """Two append-only sessions taking ``turns`` alternating calls; returns every prompt."""
    sessions = {role: [{"role": "system", "content": SYSTEM.format(
        role=role, utility=json.dumps(UTILITY))}] for role in ("seller", "buyer")}
    prompts: list[list[dict[str, str]]] = []
    offer: dict[str, Any] | None = None
    for turn in range(turns):
        role = ("seller", "buyer")[turn % 2]
        state = {"round": turn // 2 + 1, "max_rounds": (turns + 1) // 2,
                 "move": "propose" if offer is None else "respond", "current_offer": offer}
        sessions[role].append({"role": "user", "content": f"<STATE>{json.dumps(state)}</STATE>"})
        prompts.append(list(sessions[role]))
        done = await client.complete(sessions[role], scope=CallScope(episode, role, turn))
        sessions[role].append({"role": "assistant", "content": done.text})
        offer = {"price": 140, "delivery": "2w", "warranty": "1y"}
    return prompts


async def negotiation_episode(client: LLMClient, episode: str, turns: int
                              ) -> list[list[dict[str, str]]]:
    """A real bargaining episode: accord's LLM negotiator (buyer) against a hardliner seller.

    The LLM party makes one call per round it must move in, so ``turns`` rounds give about
    ``turns`` calls (fewer when the parties agree early). Returns the LLM party's prompts.
    """
    from accord.domains.bargaining import build_agents, resolve_scenario
    from accord.protocols.alternating import AlternatingConfig, AlternatingOffers
    from accord.protocols.engine import Bounds, run_episode

    scenario = resolve_scenario("buyer-seller")
    agents = build_agents(scenario, [f"llm:{client.model}", "hardliner"], seed=0,
                          ctx={"llm": {"runtime": client.runtime}, "episode_id": episode})
    protocol = AlternatingOffers(scenario, AlternatingConfig(max_rounds=turns,
                                                             stagnation_rounds=0))
    await run_episode(protocol, agents, bounds=Bounds(max_rounds=turns))
    session = agents["buyer"].session  # type: ignore[attr-defined]
    msgs = session.messages
    return [msgs[: 2 + 2 * k] for k in range(session.calls)]


EPISODES: dict[str, Episode] = {"synthetic": synthetic_episode,
                                "negotiation": negotiation_episode}


def start_stub(kind: str = "synthetic") -> tuple[subprocess.Popen[str], str]:
    """The stub server in a child process with a fixed-latency policy; its base URL.

    For real negotiation episodes the latency wraps the rule-based negotiator policy.
    """
    extra = ["--option", "inner=negotiator"] if kind == "negotiation" else []
    proc = subprocess.Popen(
        [sys.executable, "-m", "accord.testing.stub", "--policy", "fixed-latency",
         "--option", f"latency={LATENCY}", "--exit-on-stdin-eof", *extra],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    return proc, json.loads(line)["base_url"]


def process_cpu(pid: int) -> float | None:
    """CPU seconds (user + system) used so far by process ``pid`` (Linux /proc), else None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def prefix_shares(prompts: list[list[dict[str, str]]]) -> list[float]:
    """Per prompt: tokens shared with the same session's previous prompt / prompt tokens."""
    last: dict[str, list[str]] = {}
    out = []
    for prompt in prompts:
        tokens = message_tokens(prompt)
        session = prompt[0]["content"][:60]
        prev = last.get(session)
        out.append(0.0 if prev is None else shared_prefix(prev, tokens) / len(tokens))
        last[session] = tokens
    return out


async def run_level(model: str, concurrency: int, episodes: int, turns: int, kind: str,
                    cache: Path | None, tag: str, stub_pid: int = 0) -> dict[str, Any]:
    """One measurement: wall, ideal, CPU per call, prefix shares."""
    store = CompletionCache(cache, "rw") if cache else None
    async with LLMRuntime(max_concurrency=concurrency, timeout=30, cache=store) as rt:
        client = rt.client(model)
        run = EPISODES[kind]
        wall0, cpu0, stub0 = time.perf_counter(), time.process_time(), process_cpu(stub_pid)
        # episode ids unique per run: the stub's prefix memory outlives a run
        all_prompts = await asyncio.gather(*(run(client, f"{tag}-ep{i}", turns)
                                             for i in range(episodes)))
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        stub1 = process_cpu(stub_pid)
        totals = rt.tracker.totals()
    if store:
        store.close()
    calls = totals.calls
    shares = [s for prompts in all_prompts for s in prefix_shares(prompts)]
    later = [s for prompts in all_prompts for s in prefix_shares(prompts)[2:]]
    return {"concurrency": concurrency, "episodes": episodes, "calls": calls,
            "wall_s": wall, "ideal_s": calls * LATENCY / concurrency,
            "chain_s": turns * LATENCY,
            "cpu_ms_per_call": 1e3 * cpu / calls,
            "stub_cpu_ms_per_call": (None if stub0 is None or stub1 is None or model.startswith(
                "mock/") else 1e3 * (stub1 - stub0) / calls),
            "stub_cached_share": totals.cached_share,
            "prefix_share_mean": statistics.fmean(shares),
            "prefix_share_after_first_mean": statistics.fmean(later) if later else 0.0,
            "prompt_tokens_per_call": totals.prompt_tokens / calls}


def spread(values: list[float], fmt: str = "{:.3f}") -> str:
    """``median (min-max)``."""
    if len(values) == 1:
        return fmt.format(values[0])
    return (fmt.format(statistics.median(values)) + " (" + fmt.format(min(values)) + "-"
            + fmt.format(max(values)) + ")")


def _median_or_dash(values: list[float | None]) -> str:
    known = [v for v in values if v is not None]
    return f"{statistics.median(known):.3f}" if known else "-"


def main() -> None:
    """Run the levels and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--turns", type=int, default=10, help="calls per episode")
    parser.add_argument("--c1-episodes", type=int, default=20,
                        help="episodes at concurrency 1 (200 would take ~200 s)")
    parser.add_argument("--levels", default="1,16,64")
    parser.add_argument("--repeat", type=int, default=3, help="runs per level (c=1: once)")
    parser.add_argument("--kind", default="synthetic", choices=sorted(EPISODES))
    parser.add_argument("--quick", action="store_true", help="20 episodes, 1 run per level")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if args.quick:
        args.episodes, args.c1_episodes, args.repeat = 20, 5, 1
    proc, base_url = start_stub(args.kind)
    os.environ["STUB_BASE_URL"], os.environ["STUB_API_KEY"] = base_url, "bench-key-000000"
    results: dict[str, list[dict[str, Any]]] = {}
    try:
        asyncio.run(run_level("openai-api/stub/warmup", 8, 4, 4, args.kind, None, "warmup"))
        variants: list[tuple[str, int, str, bool]] = [
            (f"http c={c}", int(c), "openai-api/stub/fixed-latency", False)
            for c in args.levels.split(",")]
        top = max(int(c) for c in args.levels.split(","))
        variants += [(f"http c={top} +cache rw", top, "openai-api/stub/fixed-latency", True),
                     (f"mock c={top} (no HTTP)", top, "mock/fixed-latency", False)]
        for label, c, model, cached in variants:
            episodes = args.c1_episodes if c == 1 else args.episodes
            runs = 1 if c == 1 else args.repeat
            for run in range(runs):
                with tempfile.TemporaryDirectory() as tmp:
                    cache = Path(tmp) / "cache.sqlite" if cached else None
                    out = asyncio.run(run_level(model, c, episodes, args.turns, args.kind, cache,
                                                f"{label}#{run}", proc.pid))
                results.setdefault(label, []).append(out)
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(10)
    if args.json:
        print(json.dumps({"machine": machine(), "latency_s": LATENCY, "results": results}))
        return
    print(f"bench_llm: {machine()}; stub latency {LATENCY * 1e3:.0f} ms, "
          f"{args.turns} calls/episode, kind={args.kind}; median (min-max) over runs")
    head = (f"{'variant':26} {'episodes':>8} {'calls':>6} {'wall s':>20} {'ideal s':>8} "
            f"{'wall/ideal':>10} {'wall/bound':>10} {'CPU ms/call':>20} {'stub CPU':>9} "
            f"{'prefix share':>12} {'after 1st':>9}")
    print(head)
    for label, runs in results.items():
        first = runs[0]
        walls = [r["wall_s"] for r in runs]
        print(f"{label:26} {first['episodes']:>8} {first['calls']:>6} {spread(walls):>20} "
              f"{first['ideal_s']:>8.2f} "
              f"{statistics.median(walls) / first['ideal_s']:>10.3f} "
              f"{statistics.median(walls) / max(first['ideal_s'], first['chain_s']):>10.3f} "
              f"{spread([r['cpu_ms_per_call'] for r in runs]):>20} "
              f"{_median_or_dash([r['stub_cpu_ms_per_call'] for r in runs]):>9} "
              f"{first['prefix_share_mean']:>12.3f} {first['prefix_share_after_first_mean']:>9.3f}")
    stub = results[next(iter(results))][0]
    print(f"prompt tokens/call {stub['prompt_tokens_per_call']:.0f}; stub-reported cached share "
          f"of prompt tokens {stub['stub_cached_share']:.3f} (token-weighted)")
    print(f"ideal = calls x {LATENCY:g} s / c; bound = max(ideal, {args.turns} sequential calls "
          f"of one episode x {LATENCY:g} s); prefix share = mean over calls of the prompt share "
          "equal to the same party's previous prompt ('after 1st': each party's first call "
          "excluded); CPU ms/call = this (client) process; stub CPU = the stub server process "
          f"(median); machine has {os.cpu_count()} cpus shared by both")


if __name__ == "__main__":
    main()
