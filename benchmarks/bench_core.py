"""Issue 2 benchmarks: Pareto frontiers and a 100-round bilateral negotiation.

Prints accord's figures and, when negmas is installed (``pip install negmas``; it is not
an accord dependency), NegMAS's figures measured in the same run on the same utilities.

    python benchmarks/bench_core.py [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys

import numpy as np
from _util import machine, measure, summary

from accord.core import LinearAdditiveUtility, OutcomeSpace, Party, Scenario, pareto_mask
from accord.domains.bargaining import run_negotiation


def random_problem(n_issues: int, n_values: int, n_parties: int, seed: int = 0):
    """Issue sizes, weights and per-value scores for ``n_parties`` linear additive utilities."""
    rng = np.random.default_rng(seed)
    names = [f"i{k}" for k in range(n_issues)]
    parties = []
    for _ in range(n_parties):
        w = rng.random(n_issues)
        w /= w.sum()
        parties.append(({n: float(x) for n, x in zip(names, w, strict=True)},
                        {n: {v: float(s) for v, s in enumerate(rng.random(n_values))}
                         for n in names}))
    return names, n_values, parties


def accord_pareto(problem) -> np.ndarray:
    """Fresh utilities (no cache), evaluation over all outcomes and the exact frontier."""
    names, nv, parties = problem
    space = OutcomeSpace.from_mapping({n: list(range(nv)) for n in names})
    cols = [LinearAdditiveUtility(w, s).values(space) for w, s in parties]
    return pareto_mask(np.stack(cols, axis=1))


def negmas_setup(problem):
    import negmas
    from negmas.outcomes import enumerate_issues
    from negmas.preferences import LinearAdditiveUtilityFunction

    names, nv, parties = problem
    issues = [negmas.make_issue(list(range(nv)), name=n) for n in names]
    ufuns = [LinearAdditiveUtilityFunction(values={n: s[n] for n in names},
                                           weights={n: w[n] for n in names}, issues=issues)
             for w, s in parties]
    return issues, ufuns, list(enumerate_issues(issues))


def bench_pareto(quick: bool, have_negmas: bool) -> None:
    print("\n## Pareto frontier (linear additive, exact; time includes evaluating utilities)")
    cases = [(4, 10, 2), (5, 10, 2), (6, 10, 2), (5, 10, 3)]
    for n_issues, nv, k in cases:
        size = nv ** n_issues
        problem = random_problem(n_issues, nv, k)
        rep = 3 if size >= 10 ** 6 else 7
        t_acc = measure(lambda p=problem: accord_pareto(p), repeat=rep)
        n_front = int(accord_pareto(problem).sum())
        print(f"{k} parties, {size:>9,} outcomes: accord {summary(t_acc)}  frontier={n_front}")
        if have_negmas and (size <= 10 ** 5 or not quick):
            from negmas.preferences import pareto_frontier

            _, ufuns, outcomes = negmas_setup(problem)
            t_neg = measure(lambda u=ufuns, o=outcomes: pareto_frontier(u, outcomes=o),
                            repeat=3 if size >= 10 ** 5 else 5)
            front = pareto_frontier(ufuns, outcomes=outcomes)[1]
            ratio = statistics.median(t_neg) / statistics.median(t_acc)
            print(f"{'':>29} negmas {summary(t_neg)}  frontier={len(front)}  "
                  f"accord is {ratio:.1f}x faster")


def negotiation_scenario(seed: int = 1) -> Scenario:
    names, nv, parties = random_problem(4, 10, 2, seed)
    space = OutcomeSpace.from_mapping({n: list(range(nv)) for n in names})
    return Scenario("bench-1e4", space, tuple(
        Party(p, LinearAdditiveUtility(w, s), 0.0)
        for p, (w, s) in zip("ab", parties, strict=True)))


def bench_negotiation(quick: bool, have_negmas: bool) -> None:
    print("\n## 100-round bilateral negotiation, time-based agents, 10^4 outcomes")
    scenario = negotiation_scenario()
    params = {"max_rounds": 100, "stagnation_rounds": 0}
    per_round: list[float] = []
    rounds_seen = []

    def one() -> None:
        res = asyncio.run(run_negotiation(scenario, ["boulware", "boulware"], params=params))
        rounds_seen.append(res.rounds)
        per_round.append(res.wall_time / res.rounds)

    t = measure(one, repeat=5 if quick else 15)
    per_round = per_round[-len(t):]
    rounds = rounds_seen[-len(t):]
    print(f"accord: {statistics.median(rounds)} rounds/episode (one offer + one verdict each); "
          f"engine time per round {summary(per_round)}; whole episode incl. setup "
          f"{summary([x / r for x, r in zip(t, rounds, strict=True)])} per round")
    if not have_negmas:
        return
    import negmas
    from negmas import AspirationNegotiator, SAOMechanism

    names, nv, parties = random_problem(4, 10, 2, 1)
    issues, ufuns, _ = negmas_setup((names, nv, parties))
    neg_per_step: list[float] = []
    steps_seen = []

    def neg_one() -> None:
        m = SAOMechanism(issues=issues, n_steps=100)
        m.add(AspirationNegotiator(name="a"), preferences=ufuns[0])
        m.add(AspirationNegotiator(name="b"), preferences=ufuns[1])
        import time as _t

        t0 = _t.perf_counter()
        m.run()
        dt = _t.perf_counter() - t0
        steps = max(1, m.state.step)
        steps_seen.append(steps)
        neg_per_step.append(dt / steps)

    measure(neg_one, repeat=5 if quick else 15)
    ratio = statistics.median(neg_per_step) / statistics.median(per_round)
    print(f"negmas {negmas.__version__}: {statistics.median(steps_seen)} steps/episode; time per "
          f"step {summary(neg_per_step)}; accord per round is {ratio:.1f}x faster")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    try:
        import negmas  # noqa: F401

        have = True
    except ImportError:
        have = False
        print("negmas not installed: printing accord's figures only (pip install negmas)")
    print(f"# accord core benchmark — {machine()}")
    bench_pareto(args.quick, have)
    bench_negotiation(args.quick, have)


if __name__ == "__main__":
    sys.exit(main())
