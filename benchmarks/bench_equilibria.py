"""Benchmark: accord's exact equilibrium solvers against nashpy, in the same run.

1. Pure Nash equilibria of random n x n games (integer payoffs 0..99, so ties happen), n up
   to 1000. accord: :func:`accord.solvers.nash.pure_nash` (vectorised, exact). nashpy has
   no pure-equilibrium routine, so its baseline checks every pure profile with
   ``nashpy.Game.is_best_response``; for large n that is measured on a random sample of
   profiles and projected to all n^2 (marked "projected").
2. Mixed equilibria of random 10 x 10 games (payoffs in [-10^6, 10^6), nondegenerate with
   probability ~1). accord: :func:`accord.solvers.nash_mixed.mixed_nash` (exact);
   nashpy: ``support_enumeration(non_degenerate=True)`` (the same algorithm, in floats).
   Every run also checks that both agree.

Prints median and spread (min-max over repeats) in seconds, and nashpy/accord ratios.
Run: ``.venv/bin/python benchmarks/bench_equilibria.py [--quick]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable
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


def fmt(times: list[float]) -> str:
    return f"{statistics.median(times):9.4f} s  [{min(times):.4f}-{max(times):.4f}]"


def nashpy_pure(game: nashpy.Game, n: int, profiles: list[tuple[int, int]]
                ) -> list[tuple[int, int]]:
    eye = np.eye(n)
    return [(i, j) for i, j in profiles if all(game.is_best_response(eye[i], eye[j]))]


def bench_pure(sizes: list[int], repeats: int, full_limit: int, sample: int) -> None:
    print("Pure Nash equilibria, random n x n games (payoffs 0..99)")
    print(f"{'n':>5}  {'#NE':>4}  {'accord median [min-max]':>32}  "
          f"{'nashpy median [min-max]':>32}  ratio")
    rng = np.random.default_rng(2024)
    for n in sizes:
        u = rng.integers(0, 100, size=(n, n, 2))
        acc_times, eqs = timed(lambda u=u: pure_nash(u), repeats)
        # float arrays: nashpy would otherwise convert the int matrices on every call
        game = nashpy.Game(u[..., 0].astype(float), u[..., 1].astype(float))
        if n <= full_limit:
            all_profiles = [(i, j) for i in range(n) for j in range(n)]
            ref_times, ref = timed(lambda: nashpy_pure(game, n, all_profiles),
                                   max(1, repeats // 3))
            assert ref == eqs, f"n={n}: nashpy and accord disagree"
            label = ""
        else:
            picks = rng.integers(0, n, size=(sample, 2))
            profiles = [(int(i), int(j)) for i, j in picks]
            per, _ = timed(lambda profiles=profiles: nashpy_pure(game, n, profiles), 3)
            ref_times = [t / sample * n * n for t in per]
            label = " (projected)"
        ratio = statistics.median(ref_times) / statistics.median(acc_times)
        print(f"{n:>5}  {len(eqs):>4}  {fmt(acc_times):>32}  {fmt(ref_times):>32}  "
              f"{ratio:,.0f}x{label}")


def _key(x: Any, y: Any) -> tuple[float, ...]:
    vals = np.concatenate([np.asarray(x, dtype=float), np.asarray(y, dtype=float)])
    return tuple(np.round(vals, 7) + 0.0)


def _regret(a: np.ndarray, b: np.ndarray, x: Any, y: Any) -> float:
    """Largest gain from a deviation, relative to the payoff scale (0 at an equilibrium)."""
    xf, yf = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    gain = max((a @ yf).max() - xf @ a @ yf, (xf @ b).max() - xf @ b @ yf)
    return float(gain / np.abs(np.stack([a, b])).max())


def bench_mixed(games: int, repeats: int, size: int) -> None:
    print(f"\nMixed Nash equilibria, random {size} x {size} games ({games} games)")
    rng = np.random.default_rng(7)
    acc_med, ref_all, counts = [], [], []
    for g in range(games):
        a = rng.integers(-10**6, 10**6, (size, size))
        b = rng.integers(-10**6, 10**6, (size, size))
        acc_times, eqs = timed(lambda a=a, b=b: mixed_nash(a, b), repeats)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref_times, ref = timed(lambda a=a, b=b: list(nashpy.Game(a, b).support_enumeration(
                non_degenerate=True)), 1)
        mine = {_key(x, y) for x, y in eqs}
        worst = max(_regret(a, b, x, y) for x, y in eqs)
        assert worst < 1e-9, f"game {g}: regret {worst}"
        theirs = {_key(x, y) for x, y in ref}
        assert theirs <= mine, f"game {g}: nashpy found an equilibrium accord did not"
        acc_med.append(statistics.median(acc_times))
        ref_all.extend(ref_times)
        counts.append((len(eqs), len(theirs)))
        print(f"  game {g}: accord {fmt(acc_times)} ({len(eqs)} eq)   nashpy "
              f"{fmt(ref_times)} ({len(theirs)} eq)")
    ratio = statistics.median(ref_all) / statistics.median(acc_med)
    print(f"  over games: accord {fmt(acc_med)}   nashpy {fmt(ref_all)}   ratio {ratio:.1f}x")
    missed = sum(m - t for m, t in counts)
    print(f"  equilibria: accord {sum(m for m, _ in counts)}, nashpy {sum(t for _, t in counts)}"
          f" (nashpy's float support enumeration missed {missed}; each accord equilibrium "
          "is verified exactly)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer sizes and repeats")
    args = parser.parse_args()
    if args.quick:
        bench_pure([10, 100, 1000], repeats=3, full_limit=100, sample=500)
        bench_mixed(games=2, repeats=2, size=8)
    else:
        bench_pure([10, 30, 100, 300, 1000], repeats=9, full_limit=100, sample=2000)
        bench_mixed(games=5, repeats=5, size=10)


if __name__ == "__main__":
    main()
