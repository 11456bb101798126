"""Hostile Deal-or-No-Deal data files: refused before enumerating, memory bounded (issue 24).

A 432-byte file with item counts of 100,000 drove ``accord dond stats`` and ``accord run
deal-or-no-deal/test/0`` to 23.5 GB. The files here are written by the test; the CLI runs
in a subprocess whose address space is capped at 1.5 GB (so the old code fails with a
MemoryError instead of taking the machine), and its peak RSS must stay under 500 MB.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from accord.domains.deal_or_no_deal.budget import (
    MAX_ALLOCATIONS,
    MAX_BELIEF_CELLS,
    allocation_count,
    space_problem,
    valuation_steps,
)
from accord.domains.deal_or_no_deal.load import DataFormatError, parse_line, read_views
from accord.domains.deal_or_no_deal.rules import _frontier
from accord.testing.memory import CappedRun, accord_argv, run_capped

SRC = str(Path(__file__).resolve().parents[3] / "src")
#: a hang guard only (the refusal takes a second or two); never the assertion
HANG_GUARD = 300
ADDRESS_CAP = 1536 * 1024 * 1024
PEAK_BOUND_KB = 500 * 1024


def dond_line(counts: tuple[int, int, int], you: tuple[int, int, int],
              them: tuple[int, int, int]) -> str:
    inp = " ".join(f"{c} {v}" for c, v in zip(counts, you, strict=True))
    partner = " ".join(f"{c} {v}" for c, v in zip(counts, them, strict=True))
    share = " ".join(f"item{i}={c}" for i, c in enumerate(counts))
    zero = " ".join(f"item{i}=0" for i in range(3))
    return (f"<input> {inp} </input> <dialogue> YOU: hi <eos> THEM: ok <eos> YOU: <selection> "
            f"</dialogue> <output> {share} {zero} </output> <partner_input> {partner} "
            "</partner_input>\n")


def run_cli(*args: str) -> tuple[CappedRun, int]:
    """``accord ARGS`` in a child with capped address space: the run and its peak RSS (KB)."""
    run = run_capped(accord_argv(*args), env={**os.environ, "PYTHONPATH": SRC},
                     cap_bytes=ADDRESS_CAP, timeout=HANG_GUARD)
    return run, run.peak_kb


def test_the_budget_figures() -> None:
    assert allocation_count((2, 3, 1)) == 3 * 4 * 2
    assert valuation_steps((1, 2, 4), 10) == 11 * 6
    assert space_problem((4, 4, 4), 10) is None  # larger than any real dialogue
    assert space_problem((100_000,) * 3, 100_000) is not None
    msg = space_problem((100_000,) * 3, 100_000)
    assert msg is not None and "1e+15 allocations" in msg and f"{MAX_ALLOCATIONS:,}" in msg
    cells = space_problem((1, 1, 1), 10**6)
    assert cells is not None and f"{MAX_BELIEF_CELLS:,}" in cells and "belief tables" in cells


@pytest.mark.parametrize("counts, you, them, needle", [
    ((100_000, 100_000, 100_000), (1, 0, 0), (0, 1, 0), "allocations"),
    ((1_000, 1_000, 1_000), (1, 0, 0), (0, 1, 0), "allocations"),
    ((1, 1, 1), (1_000_000, 0, 0), (0, 1_000_000, 0), "belief tables"),
])
def test_a_hostile_line_is_refused_by_name(counts: tuple[int, int, int],
                                           you: tuple[int, int, int],
                                           them: tuple[int, int, int], needle: str) -> None:
    with pytest.raises(DataFormatError, match=needle) as info:
        parse_line(dond_line(counts, you, them), "hostile.txt", 3)
    assert str(info.value).startswith("hostile.txt:3: item counts")


def test_many_allowed_lines_add_up_to_a_file_budget(tmp_path: Path) -> None:
    # each line is within the per-dialogue cap (9,261 allocations); 120 of them are not
    line = dond_line((20, 20, 20), (1, 0, 0), (0, 1, 0))
    path = tmp_path / "test.txt"
    path.write_text(line * 120)
    with pytest.raises(DataFormatError, match="allocations in all; a file may have at most"):
        read_views(path)


def test_the_frontier_sweep_matches_the_pairwise_definition() -> None:
    counts, alice, bob = (3, 2, 4), (2, 3, 1), (1, 1, 2)
    pts = set()
    for a in range(4):
        for b in range(3):
            for c in range(5):
                pts.add((2 * a + 3 * b + c, (3 - a) + (2 - b) + 2 * (4 - c)))
    pairwise = {p for p in pts
                if not any(q[0] >= p[0] and q[1] >= p[1] and q != p for q in pts)}
    assert set(_frontier(counts, alice, bob)) == pairwise


@pytest.mark.parametrize("command", [["dond", "stats", "--json"],
                                     ["dond", "meta", "--json"]])
def test_the_cli_refuses_a_432_byte_file_in_bounded_memory(tmp_path: Path,
                                                           command: list[str]) -> None:
    path = tmp_path / "test.txt"
    path.write_text(dond_line((100_000,) * 3, (1, 0, 0), (0, 1, 0)))
    assert path.stat().st_size < 500
    proc, peak_kb = run_cli(*command, "--data", str(path))
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert "item counts (100000, 100000, 100000) give 1e+15 allocations" in (
        proc.stderr + proc.stdout)
    assert peak_kb < PEAK_BOUND_KB


def test_run_refuses_the_hostile_datapoint_in_bounded_memory(tmp_path: Path) -> None:
    (tmp_path / "test.txt").write_text(dond_line((1_000,) * 3, (1, 0, 0), (0, 1, 0)))
    proc, peak_kb = run_cli("run", "deal-or-no-deal/test/0", "--agents",
                            "workflow,workflow", "--data", str(tmp_path), "--json")
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "(1000, 1000, 1000) give 1e+09 allocations" in proc.stderr + proc.stdout
    assert peak_kb < PEAK_BOUND_KB


def test_the_real_data_is_within_every_budget() -> None:
    path = Path(__file__).resolve().parents[4] / "shared" / "data" / "dealornodeal" / "test.txt"
    if not path.exists():
        pytest.skip("Deal-or-No-Deal data not found under ../shared/data/dealornodeal/")
    assert len(read_views(path)) > 1000  # no line and not the file refused
