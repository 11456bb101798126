"""Issue 12 fuzzing at scale: every loader against many hostile variants of its seeds.

Runs the strategies of ``tests/fuzz/fuzzlib.py`` (mutated shipped files plus the issue's
pathological snippets) with a large example count and prints: cases tried, tracebacks
(goal 0), the slowest case and the largest traced memory peak. CI runs the same harness
with a small count (``tests/fuzz``).

``--parsers`` (issue 24) instead runs every parser of model or person text
(``tests/fuzz/hostile.py``: tags, JSON in tags, every domain's reply parser, the leak
guard, fences) on every hostile shape at several sizes up to ``--size`` characters and
prints, per parser, the worst time per character, the shape it came from and how that
time per character grows from the smallest to the largest size (about 1 for a linear
parser, 16 for a quadratic one; over 4 is flagged), plus any
exception other than the parser's own refusal (goal 0).

    python benchmarks/fuzz.py [--examples N] [--loader NAME ...] [--seed S]
    python benchmarks/fuzz.py --cli N [--seed S]   # every command, hostile command lines
    python benchmarks/fuzz.py --parsers [--size 100000] [--parser NAME ...] [--examples N]

(with ``--parsers``, ``--examples`` generated hostile replies go to every parser too).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _util import machine
from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hyp_seed

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "fuzz"))

import fileclasses
import fuzzlib


def fuzz_loader(name: str, examples: int, seed: int, tally: fuzzlib.Tally,
                folder: Path) -> None:
    """Run ``examples`` cases against one loader, counting every outcome."""
    loader = fuzzlib.LOADERS[name]

    @hyp_seed(seed)
    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(case=fuzzlib.mutated(loader))
    def one(case: fuzzlib.Case) -> None:
        tally.add(fuzzlib.run_case(case, folder / name))

    one()


def fuzz_fixtures(tally: fuzzlib.Tally, folder: Path) -> None:
    """Issue 12's file classes x every loader, in a child under a 3 GiB address-space cap."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, fileclasses.__file__, "--fixtures", str(folder)],
                          capture_output=True, text=True, timeout=1800, env=env)
    started = 0
    for line in proc.stdout.splitlines():
        data = json.loads(line)
        if data.pop("start", False):
            started += 1
            continue
        tally.add(fuzzlib.Outcome(**data))
    if proc.returncode != 0 or started != tally.cases:
        tally.add(fuzzlib.Outcome("fixtures", "crash", 0.0, 0, f"child exit "
                                  f"{proc.returncode}: {proc.stderr[-300:]}", "child"))


def fuzz_cli(examples: int, seed: int) -> int:
    """Issue 24's CLI mode: ``examples`` hostile command lines (every command with bad
    files, options, damaged stores and special output paths, ``tests/fuzz/clifuzz.py``),
    run in-process through the error boundary. Prints cases, tracebacks (goal 0), the
    slowest case and the process's peak RSS; returns the exit status."""
    import collections
    import resource

    import clifuzz

    print(f"# fuzz --cli: {examples} command lines, seed {seed}; {machine()}")
    counts: collections.Counter[str] = collections.Counter()
    by_kind: collections.Counter[str] = collections.Counter()
    failures: list[clifuzz.CliOutcome] = []
    slowest = (0.0, "")
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="accord-clifuzz-") as tmp:
        folder = Path(tmp)
        template = clifuzz.build_template(folder)
        for i, case in enumerate(clifuzz.cases(examples, seed)):
            start = time.perf_counter()
            out = clifuzz.run_case(case, folder / "case", template, seed=seed + i)
            took = time.perf_counter() - start
            slowest = max(slowest, (took, case.how))
            counts[out.status] += 1
            by_kind[f"exit {out.code}"] += 1
            if out.status != "ok":
                failures.append(out)
    tracebacks = sum("traceback" in f.detail or "internal error" in f.detail
                     for f in failures)
    print(f"cases tried: {sum(counts.values())}")
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
          + "; " + ", ".join(f"{k} {v}" for k, v in sorted(by_kind.items())))
    print(f"tracebacks or internal errors: {tracebacks} (goal 0); other failures "
          f"(exit code, JSON): {len(failures) - tracebacks}")
    for out in failures[:10]:
        print(f"    {out.how}: {out.detail[:300]}")
    print(f"slowest case: {slowest[0]:.2f} s ({slowest[1][:120]})")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process peak RSS: {rss:.0f} MiB")
    print(f"wall time: {time.perf_counter() - t0:.0f} s")
    return 1 if failures else 0

def fuzz_parsers(size: int, names: list[str] | None) -> int:
    """Every parser on every hostile shape; print the worst time per character. Returns
    the number of parsers that raised or grew faster than linearly."""
    import hostile

    sizes = [size // 16, size // 4, size]
    chosen = names or sorted(hostile.PARSERS)
    print(f"# parsers: {len(chosen)} parsers x {len(hostile.SHAPES)} shapes at "
          f"{', '.join(f'{n:,}' for n in sizes)} characters (CPU time); {machine()}")
    print(f"{'parser':28s} {'worst us/char':>13s} {'growth':>7s}  shape")
    bad = 0
    worst_all = 0.0
    for name in chosen:
        parse, _ = hostile.PARSERS[name]
        worst, where, growth, crashes = 0.0, "", 0.0, []
        for label, make in hostile.SHAPES.items():
            per = []
            for n in sizes:
                text = make(n)
                try:
                    seconds = hostile.cpu(functools.partial(parse, text), floor=0.01)
                except Exception as exc:  # reported, never hidden
                    crashes.append(f"{label}: {type(exc).__name__}: {str(exc)[:80]}")
                    break
                per.append(seconds / n)
            if len(per) < len(sizes):
                continue
            if per[-1] > worst:
                worst, where, growth = per[-1], label, per[-1] / max(per[0], 1e-12)
        worst_all = max(worst_all, worst)
        flag = "  <- superlinear" if growth > 4.0 else ""
        print(f"{name:28s} {worst * 1e6:13.3f} {growth:7.2f}  {where}{flag}")
        for line in crashes[:3]:
            print(f"    raised: {line}")
        bad += bool(crashes) or growth > 4.0
    print(f"\nworst time per character over all parsers: {worst_all * 1e6:.3f} us "
          f"({worst_all * size:.2f} s for a {size:,}-character reply)")
    return bad


def fuzz_replies(examples: int, seed: int, names: list[str] | None) -> int:
    """``examples`` generated hostile replies against every parser; the tracebacks."""
    import hostile

    chosen = names or sorted(hostile.PARSERS)
    cases, crashes, slowest = 0, [], (0.0, "", "")

    @hyp_seed(seed)
    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(text=hostile.reply_strategy())
    def one(text: str) -> None:
        nonlocal cases, slowest
        for name in chosen:
            cases += 1
            t0 = time.process_time()
            try:
                hostile.PARSERS[name][0](text)
            except Exception as exc:  # reported, never hidden
                crashes.append(f"{name}: {type(exc).__name__}: {str(exc)[:80]}")
            spent = time.process_time() - t0
            if spent > slowest[0]:
                slowest = (spent, name, f"{len(text):,} characters")

    one()
    print(f"\nhostile replies: {cases} cases ({examples} replies x {len(chosen)} parsers), "
          f"tracebacks {len(crashes)} (goal 0); slowest {slowest[0] * 1e3:.1f} ms "
          f"({slowest[1]}, {slowest[2]})")
    for line in crashes[:5]:
        print(f"    {line}")
    return len(crashes)


def main() -> None:
    """Parse arguments, fuzz, print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=300, help="cases per loader")
    ap.add_argument("--loader", action="append", choices=sorted(fuzzlib.LOADERS),
                    help="only these loaders (repeatable)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-fixtures", action="store_true",
                    help="skip the issue's file classes (run by default, in a child)")
    ap.add_argument("--cli", type=int, metavar="N", default=0,
                    help="issue 24's CLI mode instead: N hostile command lines")
    ap.add_argument("--parsers", action="store_true",
                    help="fuzz the parsers of model and person text instead of the loaders")
    ap.add_argument("--size", type=int, default=100_000,
                    help="largest hostile text for --parsers (characters)")
    ap.add_argument("--parser", action="append", help="only these parsers (repeatable)")
    args = ap.parse_args()
    if args.cli:
        sys.exit(fuzz_cli(args.cli, args.seed))
    if args.parsers:
        bad = fuzz_parsers(args.size, args.parser)
        bad += fuzz_replies(args.examples, args.seed, args.parser)
        sys.exit(1 if bad else 0)
    names = args.loader or sorted(fuzzlib.LOADERS)
    print(f"# fuzz: {args.examples} cases per loader, {len(names)} loaders; {machine()}")
    total = fuzzlib.Tally()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="accord-fuzz-") as tmp:
        for name in names:
            tally = fuzzlib.Tally()
            fuzz_loader(name, args.examples, args.seed, tally, Path(tmp))
            slow = tally.slowest
            print(f"{name:24s} {tally.cases:6d} cases  "
                  + "  ".join(f"{k} {v}" for k, v in sorted(tally.by_status.items()))
                  + (f"  slowest {slow.seconds:.2f} s" if slow else "")
                  + (f"  peak {tally.biggest.peak / 2**20:.1f} MiB" if tally.biggest else ""))
            for out in tally.failures[:5]:
                print(f"    {out.status}: {out.detail}  [{out.how}]")
            total.merge(tally)
        if not args.no_fixtures:
            tally = fuzzlib.Tally()
            fuzz_fixtures(tally, Path(tmp) / "fixtures")
            slow = tally.slowest
            print(f"{'file-class fixtures':24s} {tally.cases:6d} cases  "
                  + "  ".join(f"{k} {v}" for k, v in sorted(tally.by_status.items()))
                  + (f"  slowest {slow.seconds:.2f} s ({slow.how})" if slow else "")
                  + (f"  peak {tally.biggest.peak / 2**20:.1f} MiB ({tally.biggest.how})"
                     if tally.biggest else ""))
            for out in tally.failures[:5]:
                print(f"    {out.status}: {out.loader} {out.how}: {out.detail}")
            total.merge(tally)
    tracebacks = sum(1 for f in total.failures if f.status == "crash")
    print(f"\ncases tried: {total.cases}")
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(total.by_status.items())))
    print(f"tracebacks: {tracebacks} (goal 0); hangs or memory blow-ups: "
          f"{len(total.failures) - tracebacks}")
    if total.slowest is not None:
        s = total.slowest
        print(f"slowest case: {s.seconds:.2f} s ({s.loader}, {s.status}: {s.how[:120]})")
    if total.biggest is not None:
        b = total.biggest
        print(f"peak memory (traced, one case): {b.peak / 2**20:.1f} MiB ({b.loader}, "
              f"{b.how[:120]})")
    import resource

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process peak RSS (this process, imports included): {rss:.0f} MiB")
    print(f"wall time: {time.perf_counter() - t0:.0f} s")
    sys.exit(1 if total.failures else 0)


if __name__ == "__main__":
    main()
