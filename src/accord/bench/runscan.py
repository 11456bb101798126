"""A run's aggregate from its columns: the default :func:`~accord.bench.aggregate.aggregate`
of a run (the same numbers) without decoding every episode record.

:func:`aggregate` over ``store.episodes(run)`` builds an :class:`EpisodeRow` per episode and
parses its whole summary (the record, the flags: most of the bytes), its spec and labels;
for 10^5 episodes that is most of a quarter of a minute. Here SQLite does the reading, in
one pass over the run in plan order: per episode its *cell* -- the spec without its seed
(``json_remove``), labels, status and outcome; each distinct cell is parsed once, not once
per episode --, its metrics, usage and wall time, and from its summary only the JSON paths
a caller asks for (``json_extract``, several paths in one call, numbers kept as their
stored text). Repeated metric texts (a sweep of deterministic strategies) are parsed once.

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


#: called once per episode in plan order: its cell (counted so far), the values of the
#: summary paths asked for (``None`` when it has no summary; ``None`` for a path it lacks)
#: and its metrics (finished episodes only); shared objects: read them, never change them
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


class _Acc:
    """One cell's finished episodes: metric values per key signature (the names, in
    order; one tuple per episode) and wall times."""

    __slots__ = ("cell", "shapes", "walls")

    def __init__(self, cell: Cell) -> None:
        self.cell = cell
        self.shapes: dict[tuple[str, ...], list[tuple[Any, ...]]] = {}
        self.walls: array[float] = array("d")


def _scan(st: Store, run: str, paths: list[str], visit: Visitor | None) -> RunScan:
    # two paths or more: json_extract answers a JSON array, numbers in their stored text
    want = paths * 2 if len(paths) == 1 else paths
    summary_sql = (f"json_extract({_TEXT.format('summary')}, {', '.join('?' * len(want))})"
                   if want else "NULL")
    cur = st.conn.execute(
        f"SELECT json_remove(spec, '$.seed'), labels, status, outcome, "
        f"CASE status WHEN 'done' THEN {_TEXT.format('metrics')} END, "
        f"CASE status WHEN 'done' THEN {_TEXT.format('usage')} END, wall_time, {summary_sql}, "
        "seq FROM episodes WHERE run = ? ORDER BY seq", (*want, run))
    found: dict[tuple[Any, ...], _Acc] = {}  # cells in plan order of their first episodes
    usages: list[tuple[Cell, dict[str, float]]] = []  # in plan order: sums keep that order
    names: dict[str, None] = {}  # metric names in first-seen order
    loads, parse, parse_metrics = json.loads, _Parser(), _Parser(_with_shape)
    none = (None, (), ())
    try:
        for sp, lb, status, outcome, mt, us, wall, bits, seq in cur:
            acc = found.get((sp, lb, status, outcome))
            if acc is None:
                spec, labels = loads(sp), loads(lb)
                acc = found[(sp, lb, status, outcome)] = _Acc(Cell(
                    spec, labels, status, outcome, 0, int(seq), lineup_label(labels, spec)))
            cell = acc.cell
            cell.episodes += 1
            met, sig, vals = parse_metrics(mt) if mt is not None else none
            if visit is not None:
                got = None if bits is None else parse(bits)
                visit(cell, got if got is None or len(got) == len(paths) else
                      got[:len(paths)], met)
            if status != "done":
                continue
            if wall is not None:
                acc.walls.append(wall)
            if sig:
                rows = acc.shapes.get(sig)
                if rows is None:
                    rows = acc.shapes[sig] = []
                    names.update(dict.fromkeys(sig))
                rows.append(vals)
            if us is not None:
                usages.append((cell, usage_totals(loads(us))))
    except ValueError as exc:
        raise ScanError(f"a stored value is not valid JSON ({exc})") from None
    cells = [a.cell for a in found.values()]
    keys = _group_by(run, cells)
    groups: dict[tuple[Any, ...], Group] = {}
    key_of: dict[int, tuple[Any, ...]] = {}
    columns: dict[tuple[Any, ...], dict[str, list[Any]]] = {}
    walls: dict[tuple[Any, ...], array[float]] = {}
    for acc in found.values():  # the order groups and outcomes first appear in
        c = acc.cell
        key = key_of[id(c)] = tuple(episode_fields(c.row(run)).get(k) for k in keys)
        g = groups.setdefault(key, Group(key))
        cols = columns.setdefault(key, {})
        g.episodes += c.episodes
        if c.status != "done":
            g.failed += c.episodes if c.status == "failed" else 0
            g.pending += c.episodes if c.status == "pending" else 0
            continue
        g.done += c.episodes
        if c.outcome is not None:
            g.outcomes[c.outcome] = g.outcomes.get(c.outcome, 0) + c.episodes
        if acc.walls:
            walls.setdefault(key, array("d")).extend(acc.walls)
        for sig, rows in acc.shapes.items():
            for name, col in zip(sig, zip(*rows, strict=True), strict=True):
                cols.setdefault(name, []).extend(col)
    for c, totals in usages:
        g = groups[key_of[id(c)]]
        for k, v in totals.items():
            g.usage[k] = g.usage.get(k, 0.0) + v
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


def _with_shape(met: Any) -> tuple[Any, tuple[str, ...], tuple[Any, ...]]:
    """A metrics mapping with its names and values in order (``()`` when empty)."""
    if not isinstance(met, dict) or not met:
        return met, (), ()
    return met, tuple(met), tuple(met.values())


class _Parser:
    """``json.loads`` of many small texts (then ``then`` of the value, if given), each
    distinct text parsed once while it is among the last :data:`PARSED` ones (a sweep of
    code strategies repeats its metrics episode after episode); when fewer than one text in
    eight repeats, it stops remembering them. The values it returns may be shared: callers
    must not change them."""

    def __init__(self, then: Callable[[Any], Any] | None = None) -> None:
        self._then = then
        # the C scanner, without the wrappers of loads (typeshed does not declare it)
        self._scan = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
        self._seen: dict[str, Any] | None = {}
        self._hits = 0

    def parse(self, text: str) -> Any:
        """The value of one JSON text (``json.loads``, then ``then``)."""
        try:
            got, end = self._scan(text, 0)
        except StopIteration:
            end = -1
        if end != len(text):  # leading or trailing space, or not JSON: the full parser
            got = json.loads(text)
        return got if self._then is None else self._then(got)

    def __call__(self, text: str) -> Any:
        seen = self._seen
        if seen is None:
            return self.parse(text)
        got = seen.get(text)
        if got is not None:
            self._hits += 1
            return got
        got = self.parse(text)
        if len(seen) >= PARSED:
            if self._hits < PARSED // 8:
                self._seen = None  # distinct values: remembering them only costs
                return got
            seen.clear()
            self._hits = 0
        seen[text] = got
        return got


def _numbers(col: list[Any]) -> array[float]:
    """The numeric values of a metric column as floats (booleans as 0/1), in order."""
    try:
        return array("d", col)
    except TypeError:  # None, text, lists: skipped as aggregate_stream skips them
        return array("d", [float(v) for v in col if isinstance(v, (int, float))])


__all__ = ["Cell", "RunScan", "ScanError", "Visitor", "scan_run"]
