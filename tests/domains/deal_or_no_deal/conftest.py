"""Fixtures for the Deal-or-No-Deal tests: hand-made lines and the shared data folder."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


def _dond_dir() -> Path:
    env = os.environ.get("ACCORD_DATA")
    base = Path(env) if env else REPO.parent / "shared" / "data"
    return base if (base / "test.txt").is_file() else base / "dealornodeal"


@pytest.fixture
def dond_dir() -> Path:
    """The shared dealornodeal folder; skips the test when it is absent."""
    folder = _dond_dir()
    if not (folder / "test.txt").is_file():
        pytest.skip(f"Deal-or-No-Deal data not found at {folder} (set ACCORD_DATA or place "
                    "it under ../shared/data/dealornodeal)")
    return folder


LineMaker = Callable[..., str]


def _line(counts: Sequence[int], you: Sequence[int], them: Sequence[int],
          turns: Sequence[tuple[str, str]], output: Sequence[int] | str,
          selection_by: str = "YOU") -> str:
    inp = " ".join(f"{c} {v}" for c, v in zip(counts, you, strict=True))
    partner = " ".join(f"{c} {v}" for c, v in zip(counts, them, strict=True))
    dia = " ".join(f"{s}: {t} <eos>" for s, t in turns) + f" {selection_by}: <selection>"
    if isinstance(output, str):
        out = " ".join([output] * 6)
    else:
        out = " ".join(f"item{i % 3}={n}" for i, n in enumerate(output))
    return (f"<input> {inp} </input> <dialogue> {dia.strip()} </dialogue> <output> {out} "
            f"</output> <partner_input> {partner} </partner_input>")


@pytest.fixture
def make_line() -> LineMaker:
    """Build one test.txt line from parts (output: six share numbers or a failure token)."""
    return _line


@pytest.fixture
def mirror_line() -> LineMaker:
    """Build the other side's view of the same dialogue."""
    def mirror(counts: Sequence[int], you: Sequence[int], them: Sequence[int],
               turns: Sequence[tuple[str, str]], output: Sequence[int] | str,
               selection_by: str = "YOU") -> str:
        swap = {"YOU": "THEM", "THEM": "YOU"}
        out = output if isinstance(output, str) else [*output[3:], *output[:3]]
        return _line(counts, them, you, [(swap[s], t) for s, t in turns], out,
                     swap[selection_by])
    return mirror


@pytest.fixture(autouse=True)
def _isolated_cwd(tmp_path, monkeypatch):
    """`dond play` stores episodes under ./runs: keep that out of the repository."""
    monkeypatch.chdir(tmp_path)
