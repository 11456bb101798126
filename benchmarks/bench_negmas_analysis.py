"""Issue 26 benchmark: accord's analysis against NegMAS's on real Genius (ANAC) domains.

    python benchmarks/bench_negmas_analysis.py FOLDER [--limit 12] [--max-outcomes 200000]

Needs NegMAS (``pip install 'accord[negmas]'``). Every folder under FOLDER that holds one
Genius domain file and exactly two profiles (bilateral ANAC domains) is imported by
accord and compared with NegMAS (:func:`accord.testing.negmas_check.compare`): the
rational Pareto frontier as a set of utility vectors, the Nash point with the same
reservation values (and with NegMAS's disagreement point), NegMAS's own Genius reader,
and the time each side takes. Real ANAC domains are not shipped with accord; NegMAS's
source repository has them under ``tests/data/scenarios/anac`` (point this script at a
copy; nothing is copied into accord).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from _util import machine

from accord.domains.bargaining import ScenarioError, resolve_scenario
from accord.formats import FormatError
from accord.formats.genius import is_profile
from accord.formats.xmlsafe import parse_xml


def bilateral_folders(root: Path) -> list[Path]:
    """Folders under ``root`` with one Genius domain file and exactly two profiles."""
    out = []
    for folder in sorted({p.parent for p in root.rglob("*.xml")}):
        try:
            roots = [parse_xml(f) for f in sorted(folder.glob("*.xml"))]
        except FormatError:
            continue
        profiles = sum(is_profile(r) for r in roots)
        if profiles == 2 and len(roots) == 3:
            out.append(folder)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--limit", type=int, default=12, help="domains to compare (0: all)")
    ap.add_argument("--max-outcomes", type=int, default=200_000)
    args = ap.parse_args()
    import negmas

    from accord.testing.negmas_check import compare

    print(f"# accord vs NegMAS {negmas.__version__} analysis; {machine()}")
    folders = bilateral_folders(args.folder)
    print(f"# {len(folders)} bilateral Genius folders under {args.folder}")
    head = (f"{'domain':28} {'outcomes':>8} {'front':>5} {'f=':>3} {'ties':>4} {'nash':>4} "
            f"{'nash_d':>6} {'reader':>6} {'accord_ms':>9} {'negmas_ms':>9}")
    print(head)
    done = 0
    totals = {"frontier": 0, "ties": 0, "nash": 0, "nash_d": 0, "reader": 0}
    notes: dict[str, list[str]] = {}
    for folder in folders:
        if args.limit and done >= args.limit:
            break
        t0 = time.perf_counter()
        try:
            scenario = resolve_scenario(f"genius:{folder}", args.max_outcomes)
        except (ScenarioError, FormatError) as exc:
            print(f"{folder.name:28} skipped: {exc}")
            continue
        if scenario.space.size > args.max_outcomes:
            print(f"{folder.name:28} skipped: {scenario.space.size} outcomes")
            continue
        load = time.perf_counter() - t0
        c = compare(scenario, folder)
        done += 1
        totals["frontier"] += c.frontier_equal
        totals["ties"] += c.frontier_ties_only
        totals["nash"] += c.nash_equal
        totals["nash_d"] += c.nash_equal_same_disagreement
        totals["reader"] += bool(c.loader_pareto_equal)
        yn = {True: "yes", False: "no", None: "-"}
        print(f"{folder.parent.name + '/' + folder.name:28.28} {c.outcomes:8d} "
              f"{c.frontier_size:5d} {yn[c.frontier_equal]:>3} {yn[c.frontier_ties_only]:>4} "
              f"{yn[c.nash_equal]:>4} {yn[c.nash_equal_same_disagreement]:>6} "
              f"{yn[c.loader_pareto_equal]:>6} {(load + c.accord_seconds) * 1e3:9.1f} "
              f"{c.negmas_seconds * 1e3:9.1f}")
        if c.notes:
            notes[folder.name] = c.notes
    print(f"# {done} domains: frontier equal {totals['frontier']}, equal up to float ties "
          f"{totals['ties']}, Nash equal {totals['nash']}, Nash equal with NegMAS's "
          f"disagreement point {totals['nash_d']}, NegMAS's reader same Pareto outcomes "
          f"{totals['reader']}")
    print("# accord_ms: import + analyze; negmas_ms: pareto_frontier + nash_points "
          "(f= exact set equality, ties: equal once float noise is rounded, nash_d: with "
          "NegMAS's disagreement point, reader: NegMAS's Genius reader finds the same "
          "Pareto outcomes)")
    for name, ns in notes.items():
        for n in ns:
            print(f"#   {name}: {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
