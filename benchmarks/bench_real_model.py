"""A real open model against accord's prompts: parse rate with structured output off and on.

SmolLM2-135M-Instruct (``python -m accord.testing.models fetch``) served by llama.cpp in
process (``accord[local]``) plays short episodes of each domain against a code agent,
once with free-form tag replies and once with the turn's reply schema enforced
(``structured=grammar`` / ``json_schema``). Per domain and mode it prints the LLM calls,
the share of calls that gave a legal move (parse rate), invalid attempts, episodes that
ended in error, and median latency, prompt and completion tokens per call. CPU time of the
whole run is printed too (the machine's load changes wall times a lot).

    python benchmarks/bench_real_model.py [--episodes 2] [--max-rounds 2] [--domain dond]

Domains: ``bargaining`` (buyer-seller), ``games`` (prisoner's dilemma, one talk round),
``dond`` (a four-item datapoint), ``task-exchange`` and ``deliberation`` (the tiny
scenarios of ``tests/real_model/data``: three tasks; three dishes, one round). Every
domain's LLM party has a reply schema, so every domain has an "on" row.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import resource
import statistics
import time
from pathlib import Path
from typing import Any

from accord.agents.spec import parse_agent_spec
from accord.domains import EpisodeSpec, RunContext, get_domain
from accord.domains.deal_or_no_deal import Datapoint, Outcome, play_datapoint
from accord.protocols.engine import EpisodeResult
from accord.testing.models import model_file

DATA = Path(__file__).resolve().parents[1] / "tests" / "real_model" / "data"
#: the Deal-or-No-Deal datapoint: 1 book, 2 hats, 1 ball (values 4,2,2 and 2,3,2)
POINT = Datapoint("tiny/0", (1, 2, 1), (4, 2, 2), (2, 3, 2), (), Outcome("no_agreement"),
                  "tiny", (1,))
#: domain -> (registered domain, scenario, the code opponent, parameters, the LLM's party)
DOMAINS: dict[str, tuple[str, str, str, dict[str, Any], str]] = {
    "bargaining": ("bargaining", "buyer-seller", "boulware", {}, "buyer"),
    "games": ("games", "prisoners-dilemma", "rational", {"negotiation_rounds": 1}, "Alice"),
    "dond": ("deal-or-no-deal", "tiny/0", "greedy", {}, "alice"),
    "task-exchange": ("task-exchange", str(DATA / "tiny-errands.yaml"), "utility-aware",
                      {"strategy": "utility-aware"}, "Alice"),
    "deliberation": ("deliberation", "menu-numeric", "share",
                     {"instance_file": str(DATA / "tiny-menu.json"), "max_chars": 200},
                     "agent_0"),
}


def _cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


async def run(domain: str, llm: str, seed: int, max_rounds: int) -> EpisodeResult:
    """One episode of ``domain`` with the LLM as its first party."""
    name, scenario, other, params, _ = DOMAINS[domain]
    ctx = {"llm": {"timeout": 1800.0}}
    if domain == "dond":
        return await play_datapoint(POINT, [llm, other], rounds=max_rounds, seed=seed, ctx=ctx)
    params = dict(params)
    if domain == "bargaining":
        params["max_rounds"] = max_rounds
    elif domain == "deliberation":
        params["max_rounds"] = max(1, max_rounds // 2)
    spec = EpisodeSpec(name, scenario, (parse_agent_spec(llm), parse_agent_spec(other)),
                       params, seed)
    return await get_domain(name).run_episode(spec, RunContext(llm=ctx["llm"]))


async def episode(domain: str, llm: str, seed: int, max_rounds: int) -> dict[str, Any]:
    """One episode; the LLM party's calls, moves and invalid attempts."""
    res = await run(domain, llm, seed, max_rounds)
    me = DOMAINS[domain][4]
    events = list(res.trajectory)
    calls = [e for e in events if e.kind == "note" and e.reason == "llm_call" and e.party == me]
    # an invalid attempt, or an unusable estimate the deliberation scaffold re-asked for
    # itself and then replaced (a note, not an engine retry)
    invalid = [e for e in events if e.party == me and (
        e.kind == "invalid" or (e.kind == "note" and e.reason == "estimate_fallback"))]
    return {"status": res.status, "calls": [c.data for c in calls], "invalid": len(invalid),
            "reasons": [e.reason for e in invalid]}


def row(domain: str, mode: str, runs: list[dict[str, Any]]) -> str:
    calls = [c for r in runs for c in r["calls"]]
    invalid = sum(r["invalid"] for r in runs)
    legal = max(len(calls) - invalid, 0)
    errors = sum(r["status"] == "error" for r in runs)

    def med(key: str) -> str:
        vals = [float(c.get(key) or 0) for c in calls]
        return f"{statistics.median(vals):.1f}" if vals else "-"

    rate = f"{legal / len(calls):.0%}" if calls else "-"
    reasons = sorted({x for r in runs for x in r["reasons"]})
    return (f"| {domain} | {mode} | {len(calls)} | {rate} | {invalid} | {errors}/{len(runs)} | "
            f"{med('latency')} | {med('prompt_tokens')} | {med('completion_tokens')} | "
            f"{', '.join(reasons) or '-'} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=2)
    ap.add_argument("--max-rounds", type=int, default=2)
    ap.add_argument("--max-tokens", type=int, default=256)
    ap.add_argument("--domain", action="append", choices=sorted(DOMAINS))
    ap.add_argument("--structured", default="grammar", choices=["grammar", "json_schema"])
    args = ap.parse_args()
    gguf = model_file()
    if not gguf.is_file():
        raise SystemExit(f"no model at {gguf}: run python -m accord.testing.models fetch")
    print(f"# bench_real_model: SmolLM2-135M-Instruct Q4_1 on llama.cpp (xllamacpp), "
          f"{platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    print("| domain | structured | calls | parse rate | invalid | errors | latency s "
          "(median) | prompt tok | completion tok | invalid reasons |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    t0, c0 = time.perf_counter(), _cpu()
    for domain in args.domain or list(DOMAINS):
        for mode in ("off", args.structured):
            llm = (f"llm:llamacpp/{gguf}?structured={mode}&max_tokens={args.max_tokens}"
                   "&temperature=0.7")
            runs = [asyncio.run(episode(domain, llm, seed, args.max_rounds))
                    for seed in range(args.episodes)]
            print(row(domain, mode, runs), flush=True)
    print(f"# wall {time.perf_counter() - t0:.0f} s, CPU {_cpu() - c0:.0f} s "
          f"(llama.cpp threads included), load now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
