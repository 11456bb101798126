"""Which datapoints a command works on: the seed's 526, the 545 unique dialogues, or a sample.

Two named selections of a split file (test.txt, val.txt):

``unique``
    every dialogue once (:func:`~.dataset.pair_views`): 545 on test.txt, ids ``test/0`` ...,
    Alice = the side whose view comes first in the file;
``seed``
    seed 003's datapoints: every other line (the 1st, 3rd, 5th, ... non-empty line: the
    first line of each pair), 526 on test.txt, ids ``test/L<line>``, Alice = the line's
    ``<input>`` side. The authors' code reads the file this way.

A *sample* file (``sample50.txt``) holds chosen lines of a split; each line is one datapoint
with Alice = its ``<input>`` side. :func:`sample_datapoints` names them after the split's
lines (``test/L7``) so the experiment runner can load them again by id.

:func:`seed_hardest` is section 5.4's "top-K most difficult datapoints that have an envy
free allocation": rank by difficulty the datapoints that survive Table 9's exclusions
(:func:`~.table9.ranked_pool`), take the first K, keep those with an envy-free allocation.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Literal

from accord.domains.deal_or_no_deal.human_table import ranked_pool
from accord.domains.deal_or_no_deal.load import (
    Datapoint,
    View,
    _datapoint,
    load_split,
    read_views,
)
from accord.domains.deal_or_no_deal.location import split_file
from accord.domains.deal_or_no_deal.rules import datapoint_admits_envy_free, datapoint_difficulty

Selection = Literal["seed", "unique"]
SELECTIONS: dict[str, str] = {
    "seed": "seed 003's datapoints: the first line of each pair (526 on test.txt), Alice = "
            "the line's <input> side",
    "unique": "every dialogue once (545 on test.txt), Alice = the side seen first",
}
"""The named selections, each with the sentence that names it in reports."""

_LINE_ID = re.compile(r"^(?P<split>[^/]+)/L(?P<line>[1-9]\d*)$")


def line_id(split: str, line: int) -> str:
    """The id of the datapoint read from line ``line`` (1-based) of ``split``: ``test/L7``."""
    return f"{split}/L{line}"


def parse_line_id(ident: str) -> tuple[str, int] | None:
    """``(split, line)`` of a line id such as ``test/L7``; ``None`` for any other id."""
    m = _LINE_ID.match(ident)
    return None if m is None else (m.group("split"), int(m.group("line")))


def view_datapoint(view: View, ident: str) -> Datapoint:
    """One line as a datapoint: Alice = the line's ``<input>`` side (``YOU``)."""
    return _datapoint(ident, view, None)


def seed_datapoints(views: Sequence[View], split: str) -> list[Datapoint]:
    """Seed 003's datapoints: every other view, starting with the first."""
    return [view_datapoint(v, line_id(split, v.line)) for v in views[0::2]]


def _content(view: View) -> View:
    return replace(view, path="", line=0)


def sample_datapoints(sample: Sequence[View], split_views: Sequence[View] | None = None,
                      split: str = "test") -> list[Datapoint]:
    """The datapoints of a sample file, in its order.

    With ``split_views`` each sample line is found in the split (ids ``test/L<line>`` of the
    split, so the runner can load them again); a line that is not there is a ``ValueError``
    naming it. Without, ids name the sample file's own lines (``sample50/L1`` ...).
    """
    if split_views is None:
        return [view_datapoint(v, line_id(Path(v.path).stem, v.line)) for v in sample]
    where: dict[View, View] = {}
    for v in split_views:
        where.setdefault(_content(v), v)
    out: list[Datapoint] = []
    for v in sample:
        hit = where.get(_content(v))
        if hit is None:
            raise ValueError(f"{v.path}:{v.line}: this sample line is not a line of the "
                             f"{split} split ({split_views[0].path if split_views else 'empty'})")
        out.append(view_datapoint(hit, line_id(split, hit.line)))
    return out


@lru_cache(maxsize=8)
def _views(path: str, mtime_ns: int) -> tuple[View, ...]:
    return tuple(read_views(path))


@lru_cache(maxsize=8)
def _unique(path: str, mtime_ns: int, split: str) -> tuple[Datapoint, ...]:
    return tuple(load_split(path, split))


def split_views(data: str | os.PathLike[str] | None, split: str = "test") -> list[View]:
    """Every line of ``split`` at the resolved data location, parsed (cached per file)."""
    file = split_file(data, split)
    return list(_views(str(file.resolve()), file.stat().st_mtime_ns))


def _split_name(data: str | os.PathLike[str] | None, split: str) -> tuple[Path, str]:
    file = split_file(data, split)
    return file, file.stem if file.stem in ("test", "val") else split


def load_selection(data: str | os.PathLike[str] | None = None, split: str = "test",
                   selection: Selection = "unique") -> list[Datapoint]:
    """The datapoints of ``selection`` (``seed`` or ``unique``) of ``split`` (cached per file)."""
    if selection not in SELECTIONS:
        raise ValueError(f"unknown selection {selection!r}; choose one of "
                         f"{', '.join(SELECTIONS)}")
    file, name = _split_name(data, split)
    if selection == "unique":
        return list(_unique(str(file.resolve()), file.stat().st_mtime_ns, name))
    return seed_datapoints(split_views(data, split), name)


def load_line(data: str | os.PathLike[str] | None, split: str, line: int) -> Datapoint:
    """The datapoint of line ``line`` (1-based) of ``split``, Alice = its ``<input>`` side."""
    file, name = _split_name(data, split)
    for v in split_views(data, split):
        if v.line == line:
            return view_datapoint(v, line_id(name, line))
    raise KeyError(f"no datapoint {line_id(name, line)!r}: {file} has no line {line} "
                   "holding a dialogue")


def datapoints_for(ids: Sequence[str], data: str | os.PathLike[str] | None = None
                   ) -> dict[str, Datapoint]:
    """The datapoints of scenario ids (``test/L7`` lines and ``test/17`` unique dialogues),
    by id, read from the data at ``data`` (``KeyError`` naming an id the data lacks)."""
    out: dict[str, Datapoint] = {}
    for ident in dict.fromkeys(ids):
        line = parse_line_id(ident)
        if line is not None:
            out[ident] = load_line(data, line[0], line[1])
            continue
        split = ident.split("/", 1)[0]
        found = {d.id: d for d in load_selection(data, split, "unique")}
        if ident not in found:
            raise KeyError(f"no datapoint {ident!r} in the {split} data")
        out[ident] = found[ident]
    return out


def load_sample(path: str | os.PathLike[str], data: str | os.PathLike[str] | None = None,
                split: str = "test", *, in_split: bool = False) -> list[Datapoint]:
    """The datapoints of a sample file; ``in_split`` names them after the split's lines."""
    sample = read_views(Path(path))
    if not in_split:
        return sample_datapoints(sample)
    _, name = _split_name(data, split)
    return sample_datapoints(sample, split_views(data, split), name)


def seed_hardest(points: Sequence[Datapoint], k: int | None) -> list[Datapoint]:
    """Section 5.4: the ``k`` most difficult datapoints, then those with an envy-free
    allocation, hardest first (all ranked ones when ``k`` is ``None``).

    Only the datapoints that survive Table 9's exclusions are ranked; equal difficulty keeps
    file order. On the seed's 526, ``k = 50`` gives 45 with an envy-free allocation; the
    authors' own 50 (``sample50.txt``, 44 of them envy-free) hold 11 of the 14 at level -3
    and 26 of the 30 at -4, which no ranking by difficulty yields (it takes all 14 at -3
    before any at -4), hence ``--sample``.
    """
    pool = sorted(ranked_pool(points), key=lambda d: -datapoint_difficulty(d))
    top = pool if k is None else pool[:k]
    return [d for d in top if datapoint_admits_envy_free(d)]


def select(points: Sequence[Datapoint], hardest_k: int | None = None,
           limit: int | None = None) -> list[Datapoint]:
    """All ``points`` in file order, or with ``hardest_k`` the :func:`seed_hardest` ones;
    then the first ``limit`` of them."""
    chosen = list(points) if hardest_k is None else seed_hardest(points, hardest_k)
    return chosen if limit is None else chosen[:limit]
