"""Benchmark: accord's exact equilibrium solvers against nashpy, in the same run.

1. Pure Nash equilibria of random n x n games (integer payoffs 0..99, so ties happen), n up
   to 1000. accord: :func:`accord.solvers.nash.pure_nash` (vectorised, exact). nashpy has
   no pure-equilibrium routine, so its baseline checks every pure profile with
   ``nashpy.Game.is_best_response``; for large n that is measured on a random sample of
   profiles and projected to all n^2 (marked "projected").
2. Mixed equilibria of random 10 x 10 games (payoffs in [-10^6, 10^6), nondegenerate with
   probability ~1). accord: :func:`accord.solvers.nash_mixed.mixed_nash` (exact);
   nashpy: ``support_enumeration(non_degenerate=True)`` (the same algorithm, in floats) and
   ``vertex_enumeration``. Every run checks that accord's equilibria have float regret
   below 1e-9, equal nashpy's vertex enumeration (minus the near-equilibria it sometimes
   adds) and include all of nashpy's support enumeration, which misses some equilibria of
   such games (its non-negativity tests are exact float comparisons); the counts are
   printed.

3. Growth (``--growth``, and at the end of a full run): all equilibria of one random n x n
   game for n = 10..15, CPU time, tracemalloc peak and the factor per +1 size.

Prints median and spread (min-max over repeats) in seconds, and nashpy/accord ratios.
Run: ``.venv/bin/python benchmarks/bench_equilibria.py [--quick]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any

import nashpy
import numpy as np

from accord.solvers.nash import pure_nash
from accord.solvers.nash_mixed import mixed_nash


def timed(fn: Callable[[], Any], repeats: int) -> tuple[list[float], Any]:
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return times, out


def _t(seconds: float) -> str:
    if seconds < 1.0:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


def fmt(times: list[float]) -> str:
    """Median and spread (min-max) of repeated timings."""
    return f"{_t(statistics.median(times))} [{_t(min(times))} - {_t(max(times))}]"


def nashpy_pure(game: nashpy.Game, n: int, profiles: list[tuple[int, int]]
                ) -> list[tuple[int, int]]:
    eye = np.eye(n)
    return [(i, j) for i, j in profiles if all(game.is_best_response(eye[i], eye[j]))]


def bench_pure(sizes: list[int], repeats: int, full_limit: int, sample: int) -> None:
    print("Pure Nash equilibria, random n x n games (payoffs 0..99)")
    print(f"{'n':>5}  {'#NE':>4}  {'accord median [min - max]':>34}  "
          f"{'nashpy median [min - max]':>34}  ratio")
    rng = np.random.default_rng(2024)
    for n in sizes:
        u = rng.integers(0, 100, size=(n, n, 2))
        acc_times, eqs = timed(partial(pure_nash, u), repeats)
        # float arrays: nashpy would otherwise convert the int matrices on every call
        game = nashpy.Game(u[..., 0].astype(float), u[..., 1].astype(float))
        if n <= full_limit:
            all_profiles = [(i, j) for i in range(n) for j in range(n)]
            ref_times, ref = timed(partial(nashpy_pure, game, n, all_profiles),
                                   max(1, repeats // 3))
            assert ref == eqs, f"n={n}: nashpy and accord disagree"
            label = ""
        else:
            picks = rng.integers(0, n, size=(sample, 2))
            profiles = [(int(i), int(j)) for i, j in picks]
            per, _ = timed(partial(nashpy_pure, game, n, profiles), 3)
            ref_times = [t / sample * n * n for t in per]
            label = " (projected)"
        ratio = statistics.median(ref_times) / statistics.median(acc_times)
        print(f"{n:>5}  {len(eqs):>4}  {fmt(acc_times):>34}  {fmt(ref_times):>34}  "
              f"{ratio:,.0f}x{label}")


def _key(x: Any, y: Any) -> tuple[float, ...]:
    vals = np.concatenate([np.asarray(x, dtype=float), np.asarray(y, dtype=float)])
    return tuple(np.round(vals, 7) + 0.0)


def _regret(a: np.ndarray, b: np.ndarray, x: Any, y: Any) -> float:
    """Largest gain from a deviation, relative to the payoff scale (0 at an equilibrium)."""
    xf, yf = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    gain = max((a @ yf).max() - xf @ a @ yf, (xf @ b).max() - xf @ b @ yf)
    return float(gain / np.abs(np.stack([a, b])).max())


def _support(game: nashpy.Game) -> list[Any]:
    return list(game.support_enumeration(non_degenerate=True))


def _vertices(game: nashpy.Game) -> list[Any]:
    return list(game.vertex_enumeration())


def bench_mixed(games: int, repeats: int, size: int) -> None:
    print(f"\nMixed Nash equilibria, random {size} x {size} games ({games} games)")
    rng = np.random.default_rng(7)
    acc_med: list[float] = []
    sup_all: list[float] = []
    vtx_all: list[float] = []
    found = {"accord": 0, "support": 0, "vertex": 0}
    for g in range(games):
        a = rng.integers(-10**6, 10**6, (size, size))
        b = rng.integers(-10**6, 10**6, (size, size))
        acc_times, eqs = timed(partial(mixed_nash, a, b), repeats)
        game = nashpy.Game(a, b)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sup_times, sup = timed(partial(_support, game), 1)
            vtx_times, vtx = timed(partial(_vertices, game), 1)
        mine = {_key(x, y) for x, y in eqs}
        worst = max(_regret(a, b, x, y) for x, y in eqs)
        assert worst < 1e-9, f"game {g}: regret {worst}"
        by_support = {_key(x, y) for x, y in sup}
        by_vertex = {_key(x, y) for x, y in vtx if _regret(a, b, x, y) < 1e-9}
        assert by_support <= mine, f"game {g}: nashpy found an equilibrium accord did not"
        assert by_vertex == mine, f"game {g}: nashpy vertex enumeration disagrees"
        acc_med.append(statistics.median(acc_times))
        sup_all.extend(sup_times)
        vtx_all.extend(vtx_times)
        found["accord"] += len(mine)
        found["support"] += len(by_support)
        found["vertex"] += len(by_vertex)
        print(f"  game {g}: accord {fmt(acc_times)} ({len(mine)} eq) | nashpy support "
              f"{_t(sup_times[0])} ({len(by_support)} eq) | nashpy vertex "
              f"{_t(vtx_times[0])} ({len(by_vertex)} eq)")
    med = statistics.median(acc_med)
    print(f"  accord over games:                {fmt(acc_med)}")
    print(f"  nashpy support_enumeration:       {fmt(sup_all)}   ratio "
          f"{statistics.median(sup_all) / med:.1f}x")
    print(f"  nashpy vertex_enumeration:        {fmt(vtx_all)}   ratio "
          f"{statistics.median(vtx_all) / med:.1f}x")
    print(f"  equilibria found: accord {found['accord']}, nashpy vertex enumeration "
          f"{found['vertex']} (same sets, after dropping its near-equilibria), nashpy "
          f"support enumeration {found['support']} (float tests miss some); every accord "
          "equilibrium is verified exactly")


def bench_growth(sizes: list[int]) -> None:
    """All equilibria of one random n x n game per size: CPU time, memory, growth."""
    import os
    import tracemalloc

    print(f"\nMixed Nash growth, one random n x n game per size (payoffs +-10^6), CPU time; "
          f"memory = tracemalloc peak (separate run); load average {os.getloadavg()[0]:.1f}")
    prev = None
    for n in sizes:
        rng = np.random.default_rng(15)
        a = rng.integers(-10**6, 10**6, (n, n))
        b = rng.integers(-10**6, 10**6, (n, n))
        t0 = time.process_time()
        eqs = mixed_nash(a, b)
        cpu = time.process_time() - t0
        tracemalloc.start()
        mixed_nash(a, b)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        grow = "" if prev is None else f"  x{cpu / prev:.1f} vs n-1"
        print(f"  {n:>2} x {n:<2}: {len(eqs):>3} equilibria, {_t(cpu):>8} CPU, peak "
              f"{peak / 2**20:7.1f} MiB{grow}")
        prev = cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer sizes and repeats")
    parser.add_argument("--growth", action="store_true",
                        help="only the mixed-equilibrium growth from 10 x 10 to 15 x 15")
    args = parser.parse_args()
    if args.growth:
        bench_growth(list(range(10, 16)))
        return
    if args.quick:
        bench_pure([10, 100, 1000], repeats=3, full_limit=100, sample=500)
        bench_mixed(games=2, repeats=2, size=8)
    else:
        bench_pure([10, 30, 100, 300, 1000], repeats=9, full_limit=100, sample=2000)
        bench_mixed(games=5, repeats=5, size=10)
        bench_growth(list(range(10, 16)))


if __name__ == "__main__":
    main()
