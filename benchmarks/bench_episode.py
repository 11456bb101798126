"""Issue 17 items 3 and 4: per-episode work that belongs per scenario, and event serialisation.

Prints, as median (min-max) CPU time over repeats, with the machine's load average:

* per-episode agent setup (``NegotiatorAgent.prepare``: utilities, the sorted table) for
  10^2 .. 10^6 outcomes, cold (fresh utility objects: what every episode paid before the
  sort was cached per scenario) and warm (the cached per-scenario ranking);
* ``resolve_scenario`` per call and ``bargaining_metrics`` per agreed episode, cold (a fresh
  scenario: frontier and Nash point computed) and warm (cached on the scenario);
* ``Event.to_dict`` per event against the ``dataclasses.asdict`` version it replaced, and
  per bench episode (all its events).

    python benchmarks/bench_episode.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections.abc import Callable
from dataclasses import asdict
from importlib import resources
from typing import Any

import numpy as np
from _util import machine, summary
from bench_core import random_problem

from accord.agents.concession import TimeBasedAgent
from accord.core import LinearAdditiveUtility, OutcomeSpace, Party, Scenario
from accord.core.trajectory import Event
from accord.domains.bargaining import bargaining_metrics, resolve_scenario, run_negotiation
from accord.protocols.negotiation import NegotiationObservation


def cpu_times(fn: Callable[[], Any], repeat: int, inner: int = 1) -> list[float]:
    """CPU seconds per call (``inner`` calls per sample) over ``repeat`` samples."""
    fn()
    out = []
    for _ in range(repeat):
        t0 = time.process_time()
        for _ in range(inner):
            fn()
        out.append((time.process_time() - t0) / inner)
    return out


def scenario(n_issues: int, fresh: bool = True) -> Scenario:
    """A 2-party linear additive scenario with 10^n_issues outcomes (new objects each call)."""
    names, nv, parties = random_problem(n_issues, 10, 2, 1)
    space = OutcomeSpace.from_mapping({n: list(range(nv)) for n in names})
    return Scenario(f"s{n_issues}", space, tuple(
        Party(p, LinearAdditiveUtility(w, s), 0.0) for p, (w, s) in zip("ab", parties,
                                                                         strict=True)))


def _obs(sc: Scenario) -> NegotiationObservation:
    return NegotiationObservation(role="a", parties=("a", "b"), round=0, max_rounds=100,
                                  phase="propose", space=sc.space,
                                  utility=sc.parties[0].utility, batna=0.0)


def _setup_case(k: int, repeat: int) -> None:
    warm_sc = scenario(k)
    warm_obs = _obs(warm_sc)

    def cold() -> None:
        sc = scenario(k)  # fresh utility: values and sort computed again
        sc.parties[0].utility.values(sc.space)  # the values were cached before too
        TimeBasedAgent(0.2).prepare(_obs(sc))

    def values_only() -> None:
        sc = scenario(k)
        sc.parties[0].utility.values(sc.space)

    rep = 3 if k == 6 else repeat
    t_cold = cpu_times(cold, rep)
    t_values = cpu_times(values_only, rep)
    t_warm = cpu_times(lambda: TimeBasedAgent(0.2).prepare(warm_obs), rep,
                       inner=20 if k < 6 else 5)
    cold_sort = [max(0.0, c - v) for c, v in zip(t_cold, t_values, strict=True)]
    print(f"10^{k} outcomes: sort per episode before {summary(cold_sort)}; "
          f"now (cached per scenario) {summary(t_warm)}")


def bench_setup(repeat: int) -> None:
    print("\n## per-episode agent setup (prepare: the sorted utility table), CPU")
    for k in range(2, 7):
        _setup_case(k, repeat)


def bench_metrics(repeat: int) -> None:
    print("\n## scenario lookup and bargaining_metrics per agreed episode, CPU")
    t = cpu_times(lambda: resolve_scenario("buyer-seller"), repeat, inner=2000)
    root = resources.files("accord.domains.bargaining").joinpath("data")
    t_list = cpu_times(lambda: sorted(p.name for p in root.iterdir()), repeat, inner=200)
    print(f"resolve_scenario('buyer-seller'): {summary(t, 1e6, 'µs')}; before, each call "
          f"also listed the package folder: {summary(t_list, 1e6, 'µs')}")
    sc = scenario(4)
    res = asyncio.run(run_negotiation(sc, ["linear", "linear"], params={"max_rounds": 50}))
    assert res.status == "agreement", res.status

    def cold() -> None:
        fresh = scenario(4)
        fresh.utility_matrix  # noqa: B018  (cached before as well)
        bargaining_metrics(fresh, res)

    t_cold = cpu_times(cold, repeat)
    t_um = cpu_times(lambda: scenario(4).utility_matrix, repeat)
    t_warm = cpu_times(lambda: bargaining_metrics(sc, res), repeat, inner=200)
    before = [max(0.0, c - u) for c, u in zip(t_cold, t_um, strict=True)]
    print(f"bargaining_metrics, 10^4 outcomes: per episode before (frontier + Nash each "
          f"time) {summary(before)}; now {summary(t_warm)}")


def _asdict_version(ev: Event) -> dict[str, Any]:
    return {k: v for k, v in asdict(ev).items() if v not in (None, {})}


def bench_events(repeat: int) -> None:
    print("\n## trajectory serialisation, CPU")
    sc = resolve_scenario("buyer-seller")
    res = asyncio.run(run_negotiation(sc, ["boulware", "conceder"], seed=3))
    events = list(res.trajectory)
    n = len(events)
    t_new = cpu_times(lambda: [e.to_dict() for e in events], repeat, inner=200)
    t_old = cpu_times(lambda: [_asdict_version(e) for e in events], repeat, inner=200)
    t_jsonl = cpu_times(res.trajectory.to_jsonl, repeat, inner=200)
    print(f"Event.to_dict per event: asdict version {summary([t / n for t in t_old], 1e6, 'µs')}"
          f"; direct {summary([t / n for t in t_new], 1e6, 'µs')}")
    print(f"per episode ({n} events): asdict version {summary(t_old)}; direct "
          f"{summary(t_new)}; whole to_jsonl now {summary(t_jsonl)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    print(f"# accord per-episode costs — {machine()}; load average "
          f"{os.getloadavg()[0]:.1f} (CPU times below)")
    bench_setup(args.repeat)
    bench_metrics(args.repeat)
    bench_events(args.repeat)
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
