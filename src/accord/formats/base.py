"""The importer interface: a reader turns a file (or folder) of another tool's format
into the data of an accord bargaining scenario file.

An importer is any object with a ``name``, a one-line ``description`` and a
``read(path) -> Imported`` method. ``path`` is a folder or a comma-separated list of
files (for formats that spread a scenario over several files). The result is the plain
mapping accord's scenario YAML holds (see :mod:`accord.domains.bargaining.load`), so it
can be written out, edited and versioned, or parsed straight into a scenario.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from accord.core.safeload import LoadError, clip, decode, parse_json, read_bytes

#: the largest file an importer reads (the field's biggest ANAC domains are well below)
MAX_FILE_BYTES = 8 * 1024 * 1024
#: a utility or weight an importer computes that is closer to 0 than this is float noise
#: (ANAC 2015's KillerRobot: 1.0 - 49 x 0.02040816326530612 = 1.1e-16) and is written as 0,
#: which the scenario loader also requires (it refuses non-zero numbers below 1e-15)
NOISE = 1e-12


class FormatError(ValueError):
    """A file that cannot be imported; the message names the file, the element and why.

    A placeholder element (``<file>``, ``<format>``: the problem is the file or the format
    itself) stays in :attr:`element` but not in the message a person reads.
    """

    def __init__(self, source: str, element: str, problem: str) -> None:
        source, element, problem = clip(str(source)), clip(str(element)), clip(problem, 800)
        shown = "" if element.startswith("<") and element.endswith(">") else element
        super().__init__(": ".join([p for p in (source, shown) if p] + [problem]))
        self.source, self.element, self.problem = source, element, problem


@dataclass(frozen=True)
class Imported:
    """One imported scenario: the scenario file's data and notes for the person importing.

    ``notes`` say what the import could not carry over (for example a feature of the
    source format accord has no equivalent for), in sentences.
    """

    data: dict[str, Any]
    notes: tuple[str, ...] = field(default=())


@runtime_checkable
class Importer(Protocol):
    """A reader of one format."""

    name: str
    description: str

    def read(self, path: str) -> Imported:
        """The scenario held by ``path`` (a folder or ``file1,file2,...``)."""
        ...


def tidy(value: float, noise: float = NOISE) -> float:
    """A number within ``noise`` of 0 made 0 (see :data:`NOISE`)."""
    return 0.0 if abs(value) < noise else value


def read_file_text(path: str | os.PathLike[str], max_bytes: int = MAX_FILE_BYTES) -> str:
    """A regular UTF-8 file of at most ``max_bytes``; :class:`FormatError` otherwise."""
    try:
        return decode(read_bytes(path, max_bytes), os.fspath(path))
    except LoadError as exc:
        raise FormatError(os.fspath(path), "<file>", exc.problem) from None


def read_json(path: Path) -> Any:
    """The parsed JSON of ``path`` (within the load budgets); :class:`FormatError` naming the
    file and, for a syntax error, its line and column."""
    try:
        return parse_json(read_file_text(path), str(path)).data
    except LoadError as exc:
        where = exc.key_text("<json>") if exc.key or not exc.line else exc.position
        raise FormatError(str(path), where, exc.problem) from None


def input_files(path: str, suffix: str) -> list[Path]:
    """The files an importer reads: those ending in ``suffix`` in folder ``path`` (sorted
    by name), or the comma-separated files ``path`` lists."""
    if "," in path:
        files = [Path(p.strip()) for p in path.split(",") if p.strip()]
    else:
        folder = Path(path)
        if folder.is_dir():
            files = sorted(p for p in folder.iterdir()
                           if p.suffix.lower() == suffix and p.is_file())
            if not files:
                raise FormatError(path, "<folder>", f"no {suffix} files in this folder")
        else:
            files = [folder]
    for f in files:
        if not f.is_file():
            raise FormatError(str(f), "<file>", "no such file")
    return files


def party_name(path: Path, taken: set[str]) -> str:
    """A party's name from its profile file name (the stem), unique among ``taken``."""
    name = path.stem
    if name in taken:
        raise FormatError(str(path), "<file>", f"two profiles are both named {name!r}; "
                          "rename one file (the party is named after its profile file)")
    taken.add(name)
    return name


def normalised_weights(source: str, element: str, weights: dict[str, float]
                       ) -> dict[str, float]:
    """Weights scaled to sum 1 (the field's profiles do not always sum exactly to 1)."""
    for issue, w in weights.items():
        if w < 0:
            raise FormatError(source, f"{element} {issue}", f"negative weight {w}")
    total = sum(weights.values())
    if total <= 0:
        raise FormatError(source, element, "the weights sum to 0; at least one must be "
                          "positive")
    if abs(total - 1.0) <= 1e-9:
        return dict(weights)  # already normalised: keep the file's numbers exactly
    return {k: tidy(v / total) for k, v in weights.items()}
