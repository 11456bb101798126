"""A run's aggregate from its columns: the default :func:`~accord.bench.aggregate.aggregate`
of a run (the same numbers) without decoding every episode record.

:func:`aggregate` over ``store.episodes(run)`` builds an :class:`EpisodeRow` per episode and
parses its whole summary (the record, the flags: most of the bytes), its spec and labels;
for 10^5 episodes that is most of a quarter of a minute. Here SQLite does the reading:

1. the run's *cells* -- episodes sharing a spec (all but its seed), labels, status and
   outcome -- with their counts, in plan order (``GROUP BY`` in SQL: each distinct spec and
   label text is parsed once, not once per episode);
2. one pass over the episodes in plan order, reading per episode only its cell, metrics,
   usage and wall time, and from its summary only the JSON paths a caller asks for
   (``json_extract``, several paths in one call, numbers kept as their stored text).

Grouping, the default group-by keys (what varies over the cells) and the metric kinds follow
:func:`accord.bench.aggregate.aggregate_stream` step for step; statistics go through the same
:func:`~accord.bench.aggregate.summarize` (exact sums), so every figure is equal, not just
close. Only the default aggregate is computed here (no ``group_by`` or ``metrics``: those
need the full rows). A value SQLite cannot read (a damaged frame, malformed JSON) raises
:class:`ScanError`; callers fall back to the full decode, which names the episode.
"""

from __future__ import annotations

import json
import sqlite3
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from accord.bench.aggregate import (
    Aggregate,
    Group,
    _Variation,
    episode_fields,
    summarize,
    usage_totals,
)
from accord.bench.compact import CorruptValue
from accord.bench.store import EpisodeRow, Store, lineup_label

#: distinct JSON texts kept parsed during a scan (see :class:`_Parser`)
PARSED = 4096
#: what SQL reads of a maybe-compressed column: its text (a frame is decompressed)
_TEXT = "CASE typeof({0}) WHEN 'blob' THEN accord_scan_text({0}) ELSE {0} END"


class ScanError(RuntimeError):
    """A stored value the column scan cannot read (use the full decode, which says why)."""


@dataclass
class Cell:
    """Episodes of one run that share their spec (all but the seed), labels, status and
    outcome: ``episodes`` of them, the first at plan position ``first``."""

    spec: dict[str, Any]
    labels: dict[str, Any]
    status: str
    outcome: str | None
    episodes: int
    first: int
    lineup: str

    def row(self, run: str) -> EpisodeRow:
        """A stand-in episode of the cell (no seed, summary or metrics), for field
        functions such as :func:`~accord.bench.aggregate.episode_fields`."""
        return EpisodeRow(run, "", self.first, self.spec, self.labels, self.status,
                          self.outcome, None, None, None, None, None, 1, None)


#: called once per episode in plan order: its cell, the values of the summary paths asked
#: for (``None`` when it has no summary; ``None`` for a path it lacks) and its metrics
#: (finished episodes only)
#: (shared objects: read them, never change them)
Visitor = Callable[[Cell, "list[Any] | None", "dict[str, Any] | None"], None]


@dataclass
class RunScan:
    """The outcome of :func:`scan_run`: the cells in plan order and the aggregate."""

    cells: list[Cell]
    aggregate: Aggregate


def _strict_text(st: Store) -> Callable[[Any], str | None]:
    codec = st.codec()

    def text(value: Any) -> str | None:
        if value is None or isinstance(value, str):
            return value
        try:
            return codec.decompress(bytes(value))
        except CorruptValue as exc:
            raise ScanError(str(exc)) from None

    return text


def _loads(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ScanError(f"not valid JSON ({exc})") from None


def _cells(st: Store, run: str) -> tuple[list[Cell], dict[tuple[Any, ...], Cell]]:
    cells: list[Cell] = []
    index: dict[tuple[Any, ...], Cell] = {}
    cur = st.conn.execute(
        "SELECT json_remove(spec, '$.seed') AS sp, labels, status, outcome, count(*), "
        "min(seq) AS first FROM episodes WHERE run = ? "
        "GROUP BY sp, labels, status, outcome ORDER BY first", (run,))
    for sp, lb, status, outcome, n, first in cur:
        spec, labels = _loads(sp), _loads(lb)
        cell = Cell(spec, labels, status, outcome, int(n), int(first),
                    lineup_label(labels, spec))
        cells.append(cell)
        index[(sp, lb, status, outcome)] = cell
    return cells, index


def _group_by(run: str, cells: Sequence[Cell]) -> list[str]:
    """:meth:`_Variation.group_by` over the cells (a repeated spec changes nothing it
    decides; the seed, left out of a cell, is never a default key)."""
    var = _Variation()
    for c in cells:
        var.add(episode_fields(c.row(run)))
    return var.group_by()


def _kind(types: set[type]) -> str:
    """A metric's kind from the types of its values (``_add_kinds`` over them: the kinds
    join the same in any order)."""
    kinds = {"empty" if t is type(None) else "rate" if t is bool else
             "number" if t in (int, float) else "category" for t in types}
    kinds.discard("empty")
    if not kinds:
        return "empty"
    if "category" in kinds:
        return "category"
    return "number" if "number" in kinds else "rate"


def scan_run(st: Store, run: str, paths: Sequence[str] = (),
             visit: Visitor | None = None) -> RunScan:
    """The default aggregate of ``run`` (equal to ``aggregate(st.episodes(run))``), read
    from columns; ``visit`` sees every episode with the summary ``paths`` (JSON paths such
    as ``$.reason``) it asks for. Raises :class:`ScanError` on a value SQLite cannot read."""
    st.conn.create_function("accord_scan_text", 1, _strict_text(st), deterministic=True)
    try:
        return _scan(st, run, list(paths), visit)
    except sqlite3.OperationalError as exc:  # malformed JSON, or a frame text() refused
        raise ScanError(str(exc)) from None


def _scan(st: Store, run: str, paths: list[str], visit: Visitor | None) -> RunScan:
    cells, index = _cells(st, run)
    keys = _group_by(run, cells)
    groups: dict[tuple[Any, ...], Group] = {}
    key_of: dict[int, tuple[Any, ...]] = {}
    for c in cells:  # plan order of first episodes: the order groups and outcomes appear in
        fields = episode_fields(c.row(run))
        key = key_of[id(c)] = tuple(fields.get(k) for k in keys)
        g = groups.setdefault(key, Group(key))
        g.episodes += c.episodes
        if c.status != "done":
            g.failed += c.episodes if c.status == "failed" else 0
            g.pending += c.episodes if c.status == "pending" else 0
            continue
        g.done += c.episodes
        if c.outcome is not None:
            g.outcomes[c.outcome] = g.outcomes.get(c.outcome, 0) + c.episodes
    # finished episodes' metric values per group and key signature (the names, in order):
    # one tuple per episode, turned into columns at the end
    shapes: dict[tuple[Any, ...], dict[tuple[str, ...], list[tuple[Any, ...]]]] = {
        k: {} for k in groups}
    walls: dict[tuple[Any, ...], array[float]] = {}
    names: dict[str, None] = {}  # metric names in first-seen order
    # two paths or more: json_extract answers a JSON array, numbers in their stored text
    want = paths * 2 if len(paths) == 1 else paths
    summary_sql = (f"json_extract({_TEXT.format('summary')}, {', '.join('?' * len(want))})"
                   if want else "NULL")
    cur = st.conn.execute(
        f"SELECT json_remove(spec, '$.seed'), labels, status, outcome, "
        f"CASE status WHEN 'done' THEN {_TEXT.format('metrics')} END, "
        f"CASE status WHEN 'done' THEN {_TEXT.format('usage')} END, wall_time, {summary_sql} "
        "FROM episodes WHERE run = ? ORDER BY seq", (*want, run))
    n = len(paths)
    loads, parse = json.loads, _Parser()
    try:
        for sp, lb, status, outcome, mt, us, wall, bits in cur:
            cell = index[(sp, lb, status, outcome)]
            met = parse(mt) if mt is not None else None
            if visit is not None:
                visit(cell, None if bits is None else parse(bits)[:n], met)
            if status != "done":
                continue
            key = key_of[id(cell)]
            if wall is not None:
                walls.setdefault(key, array("d")).append(wall)
            if met:
                sig = tuple(met)
                rows = shapes[key].get(sig)
                if rows is None:
                    rows = shapes[key][sig] = []
                    names.update(dict.fromkeys(sig))
                rows.append(tuple(met.values()))
            if us is not None:
                g = groups[key]
                for k, v in usage_totals(loads(us)).items():
                    g.usage[k] = g.usage.get(k, 0.0) + v
    except ValueError as exc:
        raise ScanError(f"a stored value is not valid JSON ({exc})") from None
    columns: dict[tuple[Any, ...], dict[str, list[Any]]] = {k: {} for k in groups}
    for key, by_sig in shapes.items():
        cols = columns[key]
        for sig, rows in by_sig.items():
            for name, col in zip(sig, zip(*rows, strict=True), strict=True):
                cols.setdefault(name, []).extend(col)
    kinds = {n: _kind({t for cols in columns.values() if n in cols
                       for t in set(map(type, cols[n]))}) for n in names}
    chosen = {m: k for m, k in kinds.items() if k in ("number", "rate")}
    total_usage: dict[str, float] = {}
    for key, g in groups.items():
        cols = columns[key]
        g.stats = {m: summarize(_numbers(cols.get(m, [])), kind) for m, kind in chosen.items()}
        g.wall_time = summarize(walls.get(key, array("d")))
        for k, v in g.usage.items():
            total_usage[k] = total_usage.get(k, 0.0) + v
    return RunScan(cells, Aggregate(keys, chosen, list(groups.values()), total_usage))


class _Parser:
    """``json.loads`` of many small texts, each distinct text parsed once while it is among
    the last :data:`PARSED` ones (a sweep of code strategies repeats its metrics episode
    after episode). The values it returns are shared: callers must not change them."""

    def __init__(self) -> None:
        self._scan = json.JSONDecoder().scan_once  # the C scanner, without loads' wrappers
        self._seen: dict[str, Any] = {}

    def __call__(self, text: str) -> Any:
        got = self._seen.get(text)
        if got is None:
            try:
                got, end = self._scan(text, 0)
            except StopIteration:
                end = -1
            if end != len(text):  # leading or trailing space, or not JSON: the full parser
                got = json.loads(text)
            if len(self._seen) >= PARSED:
                self._seen.clear()
            self._seen[text] = got
        return got


def _numbers(col: list[Any]) -> array[float]:
    """The numeric values of a metric column as floats (booleans as 0/1), in order."""
    try:
        return array("d", col)
    except TypeError:  # None, text, lists: skipped as aggregate_stream skips them
        return array("d", [float(v) for v in col if isinstance(v, (int, float))])


__all__ = ["Cell", "RunScan", "ScanError", "Visitor", "scan_run"]
