"""The trusted ``pareto`` mediator's cost against outcome-space size (seed 002).

For random additive scenarios of 2 and 3 parties with 10^3 .. 10^6 outcomes, times one
suggestion (:func:`accord.agents.pareto_mediator.pareto_improving_package`: dominance of
every outcome over the latest offers, then the exact Pareto filter of the candidates)
and, as the baseline in the same run, computing the scenario's utility matrix once
(which every analysis of the scenario pays anyway; the mediator keeps the canonical
matrix across its calls, as timed here). Prints median and spread and the
ratio suggestion / utility matrix.

    python benchmarks/bench_mediator.py [--quick] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np
from _util import machine, measure, summary

from accord.agents.pareto_mediator import pareto_improving_package
from accord.core.outcomes import Issue, OutcomeSpace
from accord.core.pareto import canonical_utilities
from accord.core.scenario import Party, Scenario
from accord.core.utility import LinearAdditiveUtility


def scenario(outcomes: int, parties: int, seed: int = 0) -> Scenario:
    """Three issues of about ``outcomes ** (1/3)`` values each, random additive utilities."""
    rng = np.random.default_rng(seed)
    k = round(outcomes ** (1 / 3))
    space = OutcomeSpace([Issue(f"i{j}", tuple(range(k))) for j in range(3)])
    people = []
    for p in range(parties):
        w = rng.dirichlet(np.ones(3))
        scores = {f"i{j}": {v: float(rng.random()) for v in range(k)} for j in range(3)}
        util = LinearAdditiveUtility({f"i{j}": float(w[j]) for j in range(3)}, scores)
        people.append(Party(f"p{p}", util, 0.2))
    return Scenario(f"random-{outcomes}-{parties}", space, tuple(people))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="up to 10^5 outcomes")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print(machine())
    sizes = [10**3, 10**4, 10**5] + ([] if args.quick else [10**6])
    for parties in (2, 3):
        for n in sizes:
            sc = scenario(n, parties)
            matrix = measure(lambda n=n, parties=parties: scenario(n, parties).utility_matrix,
                             repeat=args.repeat)
            _ = sc.utility_matrix
            rng = np.random.default_rng(1)
            latest = [sc.space.package(int(i)) for i in rng.integers(0, len(sc.space), parties)]
            proposed = {sc.space.index_of(p) for p in latest}
            canon = canonical_utilities(sc.utility_matrix)  # the mediator keeps it
            times = measure(lambda sc=sc, latest=latest, proposed=proposed, canon=canon:
                            pareto_improving_package(sc, latest, proposed, canon),
                            repeat=args.repeat)
            ratio = statistics.median(times) / statistics.median(matrix)
            print(f"{parties} parties, {len(sc.space):>8} outcomes: suggestion "
                  f"{summary(times)} | utility matrix {summary(matrix)} | ratio {ratio:5.2f}")


if __name__ == "__main__":
    main()
