"""Issue 26 benchmark: importing and analysing the field's domains.

    python benchmarks/bench_formats.py [DIR ...] [--sizes 3x5,4x8,5x10]

Every folder given (or, recursively, every folder under it that holds a Genius domain
and profiles or GeniusWeb profiles) is imported, its frontier and Nash point computed by
``accord analyze``, and the frontier checked against a plain enumeration of the utility
matrix; the figures are printed per domain. Real ANAC domains are not shipped with accord
(NegMAS and Genius distribute them); point this script at a copy. Without arguments it
writes synthetic Genius domains of the given sizes (ISSUES x VALUES) into a temporary
folder and measures those.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _util import machine

from accord.domains.bargaining import analyze, resolve_scenario
from accord.formats import FormatError, import_path
from accord.formats.genius import is_profile
from accord.formats.xmlsafe import parse_xml


def synthetic_genius(folder: Path, issues: int, values: int, seed: int) -> Path:
    """A Genius domain of ``issues`` discrete issues of ``values`` items, two profiles."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    dom = ['<negotiation_template><utility_space><objective index="0" name="root">']
    for i in range(1, issues + 1):
        dom.append(f'<issue index="{i}" name="i{i}" type="discrete">')
        dom += [f'<item index="{k}" value="v{k}"/>' for k in range(1, values + 1)]
        dom.append("</issue>")
    dom.append("</objective></utility_space></negotiation_template>")
    (folder / "domain.xml").write_text("".join(dom), encoding="utf-8")
    for p in ("a", "b"):
        prof = ['<utility_space type="ADDITIVE"><objective index="0" name="root">']
        for i in range(1, issues + 1):
            prof.append(f'<issue index="{i}" name="i{i}" type="discrete">')
            prof += [f'<item index="{k}" value="v{k}" evaluation="{rng.randint(1, 9)}"/>'
                     for k in range(1, values + 1)]
            prof.append(f'</issue><weight index="{i}" value="{rng.random():.4f}"/>')
        prof.append(f'</objective><reservation value="{rng.random() / 3:.3f}"/>'
                    '<discount_factor value="1.0"/></utility_space>')
        (folder / f"party_{p}.xml").write_text("".join(prof), encoding="utf-8")
    return folder


def find_domains(root: Path) -> list[tuple[str, Path]]:
    """(format, folder) of every importable folder under ``root``."""
    found = []
    for folder in sorted({root, *(p for p in root.rglob("*") if p.is_dir())}):
        xml = list(folder.glob("*.xml"))
        if len(xml) >= 3:
            try:
                if sum(is_profile(parse_xml(x)) for x in xml) >= 2:
                    found.append(("genius", folder))
            except FormatError:
                pass
        elif len(list(folder.glob("*.json"))) >= 2:
            found.append(("geniusweb", folder))
    return found


def brute_pareto(u: np.ndarray) -> set[int]:
    """Indices of non-dominated rows by comparing every pair (quadratic; small domains)."""
    keep = set()
    for i in range(len(u)):
        dominated = np.any(np.all(u >= u[i], axis=1) & np.any(u > u[i], axis=1))
        if not dominated:
            keep.add(i)
    return keep


def measure(fmt: str, folder: Path) -> None:
    t0 = time.perf_counter()
    try:  # "import" is reading the files twice: once to import, once to resolve the target
        import_path(fmt, str(folder))
        scenario = resolve_scenario(f"{fmt}:{folder}")
    except Exception as exc:  # a benchmark reports and goes on
        print(f"{folder.name:30s} {fmt:9s} import failed: {exc}")
        return
    t1 = time.perf_counter()
    data = analyze(scenario)
    t2 = time.perf_counter()
    size = scenario.space.size
    check = "-"
    if size <= 20_000:
        u = np.round(scenario.utility_matrix, 9)
        ok = {scenario.space.index_of(p["outcome"]) for p in data["pareto"]} == brute_pareto(u)
        check = "equal" if ok else "DIFFERENT"
    print(f"{folder.name:30s} {fmt:9s} {size:9d} outcomes  import {1e3 * (t1 - t0):8.1f} ms  "
          f"analyze {1e3 * (t2 - t1):8.1f} ms  frontier {len(data['pareto']):5d}  "
          f"brute force {check}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", type=Path)
    ap.add_argument("--sizes", default="3x5,4x8,5x10", help="synthetic ISSUESxVALUES list")
    args = ap.parse_args()
    print(machine())
    if args.dirs:
        for root in args.dirs:
            for fmt, folder in find_domains(root):
                measure(fmt, folder)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        for k, size in enumerate(args.sizes.split(",")):
            issues, values = (int(x) for x in size.split("x"))
            measure("genius", synthetic_genius(Path(tmp) / f"synthetic-{size}", issues,
                                               values, k))
    return 0


if __name__ == "__main__":
    sys.exit(main())
