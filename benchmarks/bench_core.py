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
import time

import numpy as np
from _util import machine, measure, summary

from accord.core import LinearAdditiveUtility, OutcomeSpace, Party, Scenario, pareto_mask
from accord.domains.bargaining import build_agents
from accord.protocols import Bounds, run_episode
from accord.protocols.alternating import AlternatingConfig, AlternatingOffers


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


def bare_sort_scan(u: np.ndarray) -> np.ndarray:
    """Lower bound, 2 parties: one argsort by the first utility and a running maximum of the
    second (ties not handled: a bound, not a frontier method)."""
    order = np.argsort(-u[:, 0])
    s1 = u[order, 1]
    keep = np.empty(len(s1), dtype=bool)
    keep[0] = True
    keep[1:] = s1[1:] > np.maximum.accumulate(s1)[:-1]
    return order[keep]


def bare_dominance_filter(u: np.ndarray, block: int = 512) -> np.ndarray:
    """Lower bound, 3+ parties: sort by the sum of utilities (a dominator's sum is at least
    its victim's), then filter blocks against the frontier found so far and themselves
    (block-nested loops in numpy, no pre-filter, no recursion)."""
    s = u.sum(axis=1)
    order = np.argsort(-s, kind="stable")
    pts, s = u[order], s[order]
    n, k = u.shape
    sky = np.empty((0, k))
    kept: list[np.ndarray] = []

    def beaten(b: np.ndarray, a: np.ndarray) -> np.ndarray:
        out = np.zeros(len(b), dtype=bool)
        step = max(1, (1 << 20) // max(1, len(a) * k))
        for lo in range(0, len(b), step):
            blk = b[lo:lo + step, None, :]
            out[lo:lo + step] = ((a >= blk).all(axis=2) & (a > blk).any(axis=2)).any(axis=1)
        return out

    start = 0
    while start < n:
        end = min(n, start + block)
        while end < n and s[end] == s[end - 1]:  # equal sums stay in one block
            end += 1
        blk, ids = pts[start:end], order[start:end]
        if len(sky):
            alive = ~beaten(blk, sky)
            blk, ids = blk[alive], ids[alive]
        alive = ~beaten(blk, blk)
        sky = np.concatenate([sky, blk[alive]])
        kept.append(ids[alive])
        start = end
    return np.concatenate(kept)


def cpu_times(fn, repeat: int) -> list[float]:
    """CPU seconds (``time.process_time``) of ``repeat`` calls after one warm-up: on a
    loaded machine wall time also counts other processes' turns."""
    fn()
    out = []
    for _ in range(repeat):
        c0 = time.process_time()
        fn()
        out.append(time.process_time() - c0)
    return out


def fit_exponent(pts: list[tuple[float, float]]) -> float:
    """Slope of log(time) against log(x)."""
    xs, ys = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.polyfit(xs, ys, 1)[0])


def bench_pareto(quick: bool, have_negmas: bool) -> None:
    print("\n## Pareto frontier (linear additive, exact); CPU time, median (min-max)")
    print("accord = pareto_mask on the utility matrix; lower bound = bare numpy on the same "
          "matrix (2 parties: sort and scan; 3+: sort by sum and block dominance filter)")
    cases = [(4, 10, 2), (5, 10, 2), (6, 10, 2), (3, 10, 3), (4, 10, 3), (5, 10, 3),
             (6, 10, 3), (4, 10, 4), (5, 10, 4), (6, 10, 4), (4, 10, 5), (5, 10, 5),
             (6, 10, 5)]
    if quick:
        cases = [c for c in cases if c[0] <= 5]
    growth: dict[int, list[tuple[int, float]]] = {}
    by_parties: dict[int, list[tuple[int, float]]] = {}
    for n_issues, nv, k in cases:
        size = nv ** n_issues
        problem = random_problem(n_issues, nv, k)
        u = accord_utilities(problem)
        rep = 3 if size >= 10 ** 6 else 7
        t_front = cpu_times(lambda u=u: pareto_mask(u), rep)
        t_eval = cpu_times(lambda p=problem: accord_utilities(p), rep)
        n_front = int(pareto_mask(u).sum())
        med = statistics.median(t_front)
        growth.setdefault(k, []).append((size, med))
        by_parties.setdefault(size, []).append((k, med))
        line = (f"{k} parties, {size:>9,} outcomes: frontier {summary(t_front)} "
                f"n={n_front}; utility evaluation {statistics.median(t_eval) * 1e3:.1f} ms")
        if k == 2:
            t_lb = cpu_times(lambda u=u: bare_sort_scan(u), rep)
            line += (f"; sort-and-scan {summary(t_lb)}; accord/lower bound = "
                     f"{med / statistics.median(t_lb):.2f}")
        elif size * k <= (5 * 10 ** 5 if quick else 2 * 10 ** 6) or size <= 10 ** 4:
            # the bare filter is quadratic in the frontier: bounded sizes only
            t_lb = cpu_times(lambda u=u: bare_dominance_filter(u), 1 if size >= 10 ** 5 else 3)
            line += (f"; dominance filter {summary(t_lb)}; accord/lower bound = "
                     f"{med / statistics.median(t_lb):.2f}")
        else:
            line += "; dominance filter skipped (minutes at this size)"
        print(line)
        if have_negmas and (size <= 10 ** 5 or not quick):
            from negmas.preferences import pareto_frontier

            _, ufuns, outcomes = negmas_setup(problem)
            t_neg = measure(lambda u=ufuns, o=outcomes: pareto_frontier(u, outcomes=o),
                            repeat=3 if size >= 10 ** 5 else 5)
            t_acc = measure(lambda p=problem: accord_pareto(p), repeat=rep)
            front = pareto_frontier(ufuns, outcomes=outcomes)[1]
            ratio = statistics.median(t_neg) / statistics.median(t_acc)
            print(f"{'':>29} wall incl. utility evaluation: accord {summary(t_acc)}; negmas "
                  f"{summary(t_neg)} n={len(front)}; accord is {ratio:.1f}x faster")
    for k, pts in growth.items():
        if len(pts) > 1:
            print(f"growth, {k} parties: time ~ n^{fit_exponent(pts):.2f} over "
                  f"{pts[0][0]:,}..{pts[-1][0]:,} outcomes")
    for size, pts in by_parties.items():
        if len(pts) > 2:
            print(f"growth, {size:,} outcomes: time ~ k^{fit_exponent(pts):.2f} over "
                  f"{pts[0][0]}..{pts[-1][0]} parties")
    print("\n## peak memory of the 10^6-outcome frontier (tracemalloc, frontier only)")
    import tracemalloc

    for k in (2, 3):
        u = accord_utilities(random_problem(6, 10, k))
        tracemalloc.start()
        pareto_mask(u)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"  {k} parties: peak {peak / 2 ** 20:.1f} MiB over the {u.nbytes / 2 ** 20:.1f} MiB "
              f"input ({peak / u.nbytes:.2f}x)")
    print("\n## pre-filter threshold (was a cliff at 20,000 outcomes), 3 parties, frontier only")
    rng = np.random.default_rng(3)
    base = rng.random((20_001, 3)).round(6)
    for n in (19_999, 20_000, 20_001):
        t = cpu_times(lambda n=n: pareto_mask(base[:n]), 7)
        print(f"  {n:,} outcomes: {summary(t)}")


def negotiation_scenario(seed: int = 1) -> Scenario:
    names, nv, parties = random_problem(4, 10, 2, seed)
    space = OutcomeSpace.from_mapping({n: list(range(nv)) for n in names})
    return Scenario("bench-1e4", space, tuple(
        Party(p, LinearAdditiveUtility(w, s), 0.0)
        for p, (w, s) in zip("ab", parties, strict=True)))


def _count_offers(res) -> int:
    """Offers put on the table: opening offers and counter-offers (each becomes the next
    round's offer)."""
    return sum(1 for e in res.trajectory if e.kind == "move" and e.move is not None
               and (e.move.get("kind") == "offer" or e.move.get("counter")))


def bench_negotiation(quick: bool, have_negmas: bool) -> None:
    """Boulware vs Boulware (accord) and Aspiration vs Aspiration (NegMAS), interleaved.

    Wall time is what a user waits; CPU time (``time.process_time``) is what the figure
    means on a loaded machine, where wall time also counts other processes' turns.
    """
    print("\n## 100-round bilateral negotiation, time-based agents, 10^4 outcomes")
    scenario = negotiation_scenario()
    repeat = 7 if quick else 21
    acc: dict[str, list[float]] = {"round": [], "offer": [], "cpu_offer": [], "cpu_all": []}
    neg: dict[str, list[float]] = {"step": [], "offer": [], "cpu_offer": [], "cpu_all": []}
    rounds_seen: list[int] = []
    steps_seen: list[int] = []

    def one() -> None:
        c0 = time.process_time()
        protocol = AlternatingOffers(scenario, AlternatingConfig(max_rounds=100,
                                                                 stagnation_rounds=0))
        agents = build_agents(scenario, ["boulware", "boulware"], 0, {"episode_id": "bench"})
        c1 = time.process_time()
        res = asyncio.run(run_episode(protocol, agents, bounds=Bounds(max_rounds=100)))
        c2 = time.process_time()
        offers = max(1, _count_offers(res))
        rounds_seen.append(res.rounds)
        acc["round"].append(res.wall_time / res.rounds)
        acc["offer"].append(res.wall_time / offers)
        acc["cpu_offer"].append((c2 - c1) / offers)
        acc["cpu_all"].append((c2 - c0) / offers)

    neg_one = None
    if have_negmas:
        from negmas import AspirationNegotiator, SAOMechanism

        names, nv, parties = random_problem(4, 10, 2, 1)
        issues, ufuns, _ = negmas_setup((names, nv, parties))

        def neg_one() -> None:
            c0 = time.process_time()
            m = SAOMechanism(issues=issues, n_steps=100)
            m.add(AspirationNegotiator(name="a"), preferences=ufuns[0])
            m.add(AspirationNegotiator(name="b"), preferences=ufuns[1])
            c1, t0 = time.process_time(), time.perf_counter()
            m.run()
            dt, c2 = time.perf_counter() - t0, time.process_time()
            steps = max(1, m.state.step)
            steps_seen.append(steps)
            # each negotiator offers once per step: count the offers when the trace has them
            trace = getattr(m, "extended_trace", None)
            offers = max(1, len(trace) if trace else 2 * steps)
            neg["step"].append(dt / steps)
            neg["offer"].append(dt / offers)
            neg["cpu_offer"].append((c2 - c1) / offers)
            neg["cpu_all"].append((c2 - c0) / offers)

    one()  # warm-up (and the per-scenario caches)
    if neg_one is not None:
        neg_one()
    for v in (*acc.values(), *neg.values(), rounds_seen, steps_seen):
        v.clear()
    for _ in range(repeat):  # interleaved: both see the same machine load
        one()
        if neg_one is not None:
            neg_one()
    print(f"accord: {statistics.median(rounds_seen)} rounds/episode (one offer + one verdict "
          f"each); engine wall time per round {summary(acc['round'])}")
    print(f"accord per offer: engine wall {summary(acc['offer'])}; engine CPU "
          f"{summary(acc['cpu_offer'])}; CPU incl. building protocol and agents "
          f"{summary(acc['cpu_all'])}")
    floor = utility_floor(scenario)
    share = floor / statistics.median(acc["cpu_offer"])
    print(f"floor: evaluating one offer's utility for each party (2 x utility(package)) "
          f"{floor * 1e6:.2f} us = {100 * share:.1f}% of accord's engine CPU per offer")
    if neg_one is None:
        return
    import negmas

    print(f"negmas {negmas.__version__}: {statistics.median(steps_seen)} steps/episode "
          f"(two offers each); run() wall time per step {summary(neg['step'])}")
    print(f"negmas per offer: run() wall {summary(neg['offer'])}; run() CPU "
          f"{summary(neg['cpu_offer'])}; CPU incl. building the mechanism "
          f"{summary(neg['cpu_all'])}")

    def ratio(a: list[float], b: list[float]) -> float:
        return statistics.median(a) / statistics.median(b)

    print(f"accord per round vs negmas per step (wall): {ratio(neg['step'], acc['round']):.1f}x "
          f"(unequal units: a step holds two offers)")
    print(f"per offer, like for like, accord is faster by: engine CPU "
          f"{ratio(neg['cpu_offer'], acc['cpu_offer']):.1f}x; CPU incl. setup "
          f"{ratio(neg['cpu_all'], acc['cpu_all']):.1f}x; wall "
          f"{ratio(neg['offer'], acc['offer']):.1f}x (wall counts other processes' turns on a "
          f"loaded machine)")


def utility_floor(scenario: Scenario, repeat: int = 7, n: int = 20_000) -> float:
    """Seconds to evaluate one package's utility for every party: the part of an offer no
    protocol can skip (median over ``repeat`` batches of ``n``)."""
    space = scenario.space
    packages = [space.package(i) for i in range(0, space.size, max(1, space.size // 97))]
    utilities = [p.utility for p in scenario.parties]

    def batch() -> None:
        for k in range(n):
            pkg = packages[k % len(packages)]
            for u in utilities:
                u(pkg)

    return statistics.median(measure(batch, repeat=repeat)) / n


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
