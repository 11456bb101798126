"""A real open model against accord's prompts: parse rate with structured output off and on.

SmolLM2-135M-Instruct (``python -m accord.testing.models fetch``) served by llama.cpp in
process (``accord[local]``) plays short episodes of each domain against a code agent,
once with free-form tag replies and once with the turn's reply schema enforced
(``structured=grammar`` / ``json_schema``). Per domain and mode it prints the LLM calls,
the share of calls that gave a legal move (parse rate), invalid attempts, episodes that
ended in error, and median latency, prompt and completion tokens per call. CPU time of the
whole run is printed too (the machine's load changes wall times a lot).

    python benchmarks/bench_real_model.py [--episodes 2] [--max-rounds 2] [--domain bargaining]

Structured output covers the bargaining negotiator and the classic games so far; for the
other domains only the free-form row is run (the "on" row says n/a).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import resource
import statistics
import time
from typing import Any

from accord.agents.spec import parse_agent_spec
from accord.domains import EpisodeSpec, RunContext, get_domain
from accord.testing.models import model_file

#: domain -> (scenario, the code opponent, parameters, whether structured output applies)
DOMAINS: dict[str, tuple[str, str, dict[str, Any], bool]] = {
    "bargaining": ("buyer-seller", "boulware", {}, True),
    "games": ("prisoners-dilemma", "rational", {"negotiation_rounds": 1}, True),
    "task-exchange": ("cooperative", "utility-aware", {}, False),
}


def _cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


async def episode(domain: str, llm: str, seed: int, max_rounds: int) -> dict[str, Any]:
    """One episode; the LLM party's calls, moves and invalid attempts."""
    scenario, other, params, _ = DOMAINS[domain]
    params = dict(params)
    if domain == "bargaining":
        params["max_rounds"] = max_rounds
    dom = get_domain(domain)
    spec = EpisodeSpec(domain, scenario, (parse_agent_spec(llm), parse_agent_spec(other)),
                       params, seed)
    res = await dom.run_episode(spec, RunContext(llm={"timeout": 1800.0}))
    me = dom.party_names(spec)[0] if hasattr(dom, "party_names") else None
    events = list(res.trajectory)
    calls = [e for e in events if e.kind == "note" and e.reason == "llm_call"
             and (me is None or e.party == me)]
    invalid = [e for e in events if e.kind == "invalid" and (me is None or e.party == me)]
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
    ap.add_argument("--max-tokens", type=int, default=160)
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
    for domain in args.domain or ["bargaining"]:
        applies = DOMAINS[domain][3]
        for mode in ("off", args.structured):
            if mode != "off" and not applies:
                print(f"| {domain} | {mode} | n/a (no reply schema yet) | | | | | | | |")
                continue
            llm = (f"llm:llamacpp/{gguf}?structured={mode}&max_tokens={args.max_tokens}"
                   "&temperature=0.7")
            runs = [asyncio.run(episode(domain, llm, seed, args.max_rounds))
                    for seed in range(args.episodes)]
            print(row(domain, mode, runs), flush=True)
    print(f"# wall {time.perf_counter() - t0:.0f} s, CPU {_cpu() - c0:.0f} s "
          f"(llama.cpp threads included), load now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
