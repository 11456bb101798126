"""Issue 13 item 1: what reading episode parameters through a domain's pydantic model costs.

Every bargaining episode reads its params through :class:`BargainingParams` (checked, with
defaults from ``AlternatingConfig``), and the games / DoND agents are built through an
``AgentRegistry``. This prints, as median (min-max) CPU time per call over repeats:

* ``check_params`` on an empty dict, on a typical bench line and on a full one;
* the protocol config and bounds built from the model;
* games ``make_agent`` (registry lookup + typed context) for a code agent;
* one whole bargaining episode (boulware vs conceder on buyer-seller): the baseline
  the params cost is set against, as a share of it, in the same run.

    python benchmarks/bench_params.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections.abc import Callable
from typing import Any

from _util import machine, summary

from accord.agents.spec import parse_agent_spec
from accord.domains.bargaining import resolve_scenario, run_negotiation
from accord.domains.bargaining.runner import check_params
from accord.domains.games.agents import make_agent
from accord.domains.games.catalog import resolve_game

TYPICAL = {"max_rounds": 30, "mediator": "pareto", "stagnation_rounds": 2}
FULL = {"max_rounds": 30, "acceptance": 2, "turn_order": ["seller", "buyer"],
        "stagnation_rounds": 2, "stagnation_epsilon": 0.01, "stagnation_measure": "issues",
        "stagnation_order": "mediator-first", "stagnation": "code",
        "max_messages_per_turn": 1, "mediator": "pareto", "judge": "rules", "max_offers": 40,
        "wall_clock": 30.0, "max_retries": 3, "max_outcomes": 10_000}


def cpu_per_call(fn: Callable[[], Any], repeat: int, inner: int) -> list[float]:
    """CPU seconds per call, ``inner`` calls per sample, ``repeat`` samples."""
    fn()
    out = []
    for _ in range(repeat):
        t0 = time.process_time()
        for _ in range(inner):
            fn()
        out.append((time.process_time() - t0) / inner)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f}")
    scenario = resolve_scenario("buyer-seller")
    game = resolve_game("prisoners-dilemma")
    rational = parse_agent_spec("rational")
    full = check_params(FULL)
    rows = {
        "check_params({})": (lambda: check_params({}), 2000),
        "check_params(typical: 3 keys)": (lambda: check_params(TYPICAL), 2000),
        "check_params(full: 15 keys)": (lambda: check_params(FULL), 2000),
        "protocol_config() + bounds()": (lambda: (full.protocol_config(), full.bounds()), 2000),
        "games make_agent(rational)": (lambda: make_agent(rational, game, 0), 2000),
        "bargaining episode (baseline)": (lambda: asyncio.run(run_negotiation(
            scenario, ["boulware", "conceder"], params=TYPICAL, seed=1)), 20),
    }
    times = {name: cpu_per_call(fn, args.repeat, inner) for name, (fn, inner) in rows.items()}
    base = sorted(times["bargaining episode (baseline)"])[len(times["bargaining episode "
                                                                   "(baseline)"]) // 2]
    print("CPU time per call:")
    for name, samples in times.items():
        med = sorted(samples)[len(samples) // 2]
        print(f"  {name:32s} {summary(samples, 1e6, 'µs')}  = {med / base:6.2%} of an episode")
    print(f"load average now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
