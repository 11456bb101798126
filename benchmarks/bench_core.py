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


def accord_utilities(problem) -> np.ndarray:
    """Fresh utilities evaluated over all outcomes (the frontier's lower bound)."""
    names, nv, parties = problem
    space = OutcomeSpace.from_mapping({n: list(range(nv)) for n in names})
    return np.stack([LinearAdditiveUtility(w, s).values(space) for w, s in parties], axis=1)


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
    cases = [(4, 10, 2), (5, 10, 2), (6, 10, 2), (3, 10, 3), (4, 10, 3), (5, 10, 3),
             (6, 10, 3), (4, 10, 4), (5, 10, 4), (6, 10, 4), (4, 10, 5), (5, 10, 5)]
    if quick:
        cases = [c for c in cases if c[0] <= 5]
    growth: dict[int, list[tuple[int, float]]] = {}
    for n_issues, nv, k in cases:
        size = nv ** n_issues
        problem = random_problem(n_issues, nv, k)
        rep = 3 if size >= 10 ** 6 else 7
        t_acc = measure(lambda p=problem: accord_pareto(p), repeat=rep)
        n_front = int(accord_pareto(problem).sum())
        # lower bound: evaluating the utilities, which any frontier method must do
        t_eval = measure(lambda p=problem: accord_utilities(p), repeat=rep)
        growth.setdefault(k, []).append((size, statistics.median(t_acc)))
        print(f"{k} parties, {size:>9,} outcomes: accord {summary(t_acc)}  frontier={n_front}"
              f"  accord/lower-bound (utility evaluation "
              f"{statistics.median(t_eval) * 1e3:.1f} ms) = "
              f"{statistics.median(t_acc) / statistics.median(t_eval):.1f}")
        if have_negmas and (size <= 10 ** 5 or not quick):
            from negmas.preferences import pareto_frontier

            _, ufuns, outcomes = negmas_setup(problem)
            t_neg = measure(lambda u=ufuns, o=outcomes: pareto_frontier(u, outcomes=o),
                            repeat=3 if size >= 10 ** 5 else 5)
            front = pareto_frontier(ufuns, outcomes=outcomes)[1]
            ratio = statistics.median(t_neg) / statistics.median(t_acc)
            print(f"{'':>29} negmas {summary(t_neg)}  frontier={len(front)}  "
                  f"accord is {ratio:.1f}x faster")
    for k, pts in growth.items():
        if len(pts) > 1:
            xs, ys = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
            print(f"growth, {k} parties: time ~ n^{np.polyfit(xs, ys, 1)[0]:.2f} over "
                  f"{pts[0][0]:,}..{pts[-1][0]:,} outcomes")
    print("\n## pre-filter threshold (was a cliff at 20,000 outcomes), 3 parties, frontier only")
    rng = np.random.default_rng(3)
    base = rng.random((20_001, 3)).round(6)
    for n in (19_999, 20_000, 20_001):
        t = measure(lambda n=n: pareto_mask(base[:n]), repeat=7)
        print(f"  {n:,} outcomes: {summary(t)}")


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
    per_offer: list[float] = []
    rounds_seen = []

    def one() -> None:
        res = asyncio.run(run_negotiation(scenario, ["boulware", "boulware"], params=params))
        offers = sum(1 for e in res.trajectory if e.kind == "move" and e.move is not None
                     and (e.move.get("kind") == "offer" or e.move.get("counter")))
        rounds_seen.append(res.rounds)
        per_round.append(res.wall_time / res.rounds)
        per_offer.append(res.wall_time / max(1, offers))

    t = measure(one, repeat=5 if quick else 15)
    per_round = per_round[-len(t):]
    per_offer = per_offer[-len(t):]
    rounds = rounds_seen[-len(t):]
    print(f"accord: {statistics.median(rounds)} rounds/episode (one offer + one verdict each); "
          f"engine time per round {summary(per_round)}; whole episode incl. setup "
          f"{summary([x / r for x, r in zip(t, rounds, strict=True)])} per round; engine time per "
          f"offer {summary(per_offer)}")
    if not have_negmas:
        return
    import negmas
    from negmas import AspirationNegotiator, SAOMechanism

    names, nv, parties = random_problem(4, 10, 2, 1)
    issues, ufuns, _ = negmas_setup((names, nv, parties))
    neg_per_step: list[float] = []
    neg_per_offer: list[float] = []
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
        # each negotiator offers once per step: count the offers when the trace has them
        trace = getattr(m, "extended_trace", None)
        offers = len(trace) if trace else 2 * steps
        neg_per_offer.append(dt / max(1, offers))

    measure(neg_one, repeat=5 if quick else 15)
    ratio = statistics.median(neg_per_step) / statistics.median(per_round)
    offer_ratio = statistics.median(neg_per_offer) / statistics.median(per_offer)
    print(f"negmas {negmas.__version__}: {statistics.median(steps_seen)} steps/episode "
          f"(two offers each); time per step {summary(neg_per_step)}; per offer "
          f"{summary(neg_per_offer)}")
    print(f"accord per round vs negmas per step: {ratio:.1f}x (unequal units: a step holds two "
          f"offers); per offer, like for like: accord is {offer_ratio:.1f}x faster")


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
