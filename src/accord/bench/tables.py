"""Aggregate tables: rich for the terminal, CSV, Markdown, JSON and Parquet exports."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from accord.bench.aggregate import (
    Aggregate,
    Stat,
    episode_fields,
    error_line,
    usage_totals,
)
from accord.bench.store import EpisodeRow
from accord.core.display import inert_markup

#: dispersion shown next to means in the terminal and Markdown tables
ERRORS = ("sd", "se")


def format_stat(st: Stat | None, error: str = "sd") -> str:
    """``mean ± SD`` (or SE) for a person (:mod:`accord.core.numbers`): rates as whole
    percentages with the spread in whole points, other figures with two decimals."""
    from accord.core.numbers import figure, rate

    if st is None or st.n == 0 or st.mean is None:
        return "–"
    err = st.sd if error == "sd" else st.se
    if st.kind == "rate":
        text = rate(st.mean)
        return text if err is None else f"{text} ± {100 * err:.0f}"
    return figure(st.mean) if err is None else f"{figure(st.mean)} ± {figure(err)}"


def _cell(value: Any) -> str:
    return "–" if value is None else str(value)


def _outcomes(agg: Aggregate) -> list[str]:
    return sorted({o for g in agg.groups for o in g.outcomes})


def flat_rows(agg: Aggregate) -> list[dict[str, Any]]:
    """One flat dict per group: keys, counts, outcome counts, ``<metric>.mean/sd/se/n``."""
    outcomes = _outcomes(agg)
    usage_keys = sorted({k for g in agg.groups for k in g.usage})
    rows = []
    for g in agg.groups:
        row: dict[str, Any] = dict(zip(agg.group_by, g.key, strict=True))
        row.update(episodes=g.episodes, done=g.done, failed=g.failed, pending=g.pending)
        for o in outcomes:
            row[f"outcome.{o}"] = g.outcomes.get(o, 0)
        for m in agg.metrics:
            st = g.stats[m]
            row.update({f"{m}.mean": st.mean, f"{m}.sd": st.sd, f"{m}.se": st.se,
                        f"{m}.n": st.n})
        wt = g.wall_time
        row["wall_time.mean"] = None if wt is None else wt.mean
        for k in usage_keys:
            row[f"usage.{k}"] = g.usage.get(k, 0.0)
        rows.append(row)
    return rows


def episode_rows(episodes: Sequence[EpisodeRow]) -> list[dict[str, Any]]:
    """One flat dict per episode: id, spec fields, ``metrics.<m>``, ``usage.<k>``, error."""
    rows = []
    for e in episodes:
        row: dict[str, Any] = {"id": e.id, **episode_fields(e)}
        row["wall_time"] = e.wall_time
        row["attempts"] = e.attempts
        for m, v in (e.metrics or {}).items():
            row[f"metrics.{m}"] = v if isinstance(v, (int, float, str, type(None))) \
                else json.dumps(v, default=str)
        for k, v in usage_totals(e.usage).items():
            row[f"usage.{k}"] = v
        row["error"] = ((e.error or "").splitlines()[0] if e.error
                        else error_line(e.summary) if e.outcome == "error" else None)
        rows.append(row)
    return rows


def to_csv(rows: Sequence[dict[str, Any]]) -> str:
    """Rows as CSV; the header is the union of keys in first-seen order."""
    buf = io.StringIO()
    if rows:
        names = list(dict.fromkeys(k for r in rows for k in r))
        writer = csv.DictWriter(buf, fieldnames=names, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return buf.getvalue()


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def to_markdown(agg: Aggregate, error: str = "sd") -> str:
    """A GitHub-flavoured Markdown table: keys, n, failed, then ``mean ± SD`` per metric."""
    head = [*agg.group_by, "n", "failed", *agg.metrics]
    lines = ["| " + " | ".join(_md_escape(h) for h in head) + " |",
             "|" + "|".join("---" if i < len(agg.group_by) else "---:"
                            for i in range(len(head))) + "|"]
    for g in agg.groups:
        cells = [_cell(v) for v in g.key] + [str(g.done), str(g.failed)]
        cells += [format_stat(g.stats[m], error) for m in agg.metrics]
        lines.append("| " + " | ".join(_md_escape(c) for c in cells) + " |")
    note = f"\nValues are mean ± {error.upper()} over finished episodes; rates in %.\n"
    return "\n".join(lines) + "\n" + note


def to_json(agg: Aggregate, episodes: Sequence[EpisodeRow], runs: list[dict[str, Any]],
            store: str) -> dict[str, Any]:
    """The ``accord results --format json`` object: ``groups`` and ``episodes`` (each
    with at least ``id`` and ``status``), plus runs, metrics and usage totals."""
    return {
        "store": store,
        "runs": runs,
        "group_by": agg.group_by,
        "metrics": agg.metrics,
        "groups": [{
            "key": dict(zip(agg.group_by, g.key, strict=True)),
            "episodes": g.episodes, "done": g.done, "failed": g.failed, "pending": g.pending,
            "outcomes": g.outcomes,
            "metrics": {m: g.stats[m].to_dict() for m in agg.metrics},
            "wall_time": None if g.wall_time is None else g.wall_time.to_dict(),
            "usage": g.usage,
        } for g in agg.groups],
        "usage": agg.usage,
        "episodes": [e.to_dict() for e in episodes],
    }


def write_parquet(rows: Sequence[dict[str, Any]], path: str | Path) -> None:
    """Write flat rows as Parquet (needs pyarrow)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise RuntimeError("Parquet export needs pyarrow: pip install 'accord[parquet]'"
                           ) from None
    names = list(dict.fromkeys(k for r in rows for k in r))
    full = [{k: r.get(k) for k in names} for r in rows]
    try:
        table = pa.Table.from_pylist(full)
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # a column with mixed types: keep as text
        full = [{k: None if v is None else str(v) for k, v in r.items()} for r in full]
        table = pa.Table.from_pylist(full)
    pq.write_table(table, str(path))


def _chunks(widths: list[int], room: int) -> list[list[int]]:
    """Split column indexes into runs whose summed widths fit ``room`` (at least one each)."""
    out: list[list[int]] = [[]]
    used = 0
    for i, w in enumerate(widths):
        if out[-1] and used + w > room:
            out.append([])
            used = 0
        out[-1].append(i)
        used += w
    return out


def rich_tables(agg: Aggregate, error: str = "sd", title: str | None = None,
                width: int = 120) -> list[Table]:
    """The aggregate as rich tables that fit ``width`` columns.

    Groups are rows and metrics columns, or the transpose when metrics outnumber groups;
    the value columns are split over several tables (each repeating the row labels)
    rather than squeezed until unreadable.
    """
    caption = f"mean ± {error.upper()} over finished episodes; rates in %"
    if agg.usage:
        caption += "; usage: " + ", ".join(f"{k} {v:,.0f}" for k, v in agg.usage.items())
    metrics = list(agg.metrics)
    if len(metrics) > len(agg.groups):
        labels = ["metric"]
        row_labels = [["n"], ["failed"]] + [[m] for m in metrics]
        headers = [" / ".join(_cell(v) for v in g.key) or "all" for g in agg.groups]
        columns = [[str(g.done), str(g.failed)] + [format_stat(g.stats[m], error)
                                                   for m in metrics] for g in agg.groups]
    else:
        labels = [*agg.group_by, "n", "failed"]
        row_labels = [[_cell(v) for v in g.key] + [str(g.done), str(g.failed)]
                      for g in agg.groups]
        headers = metrics
        columns = [[format_stat(g.stats[m], error) for g in agg.groups] for m in metrics]
    label_w = sum(max(len(x) for x in [h, *(r[i] for r in row_labels)]) + 3
                  for i, h in enumerate(labels))
    widths = [max(min(len(h), 24), *(len(c) for c in col)) + 3
              for h, col in zip(headers, columns, strict=True)]
    parts = _chunks(widths, max(width - label_w - 1, 20))
    tables = []
    for n, idx in enumerate(parts):
        t = Table(*map(inert_markup, labels), *[inert_markup(headers[i]) for i in idx],
                  title=inert_markup(title) if n == 0 and title is not None else None,
                  caption=inert_markup(caption) if n == len(parts) - 1 else None)
        for r, lab in enumerate(row_labels):
            t.add_row(*map(inert_markup, lab), *[columns[i][r] for i in idx])
        tables.append(t)
    return tables


def rich_table(agg: Aggregate, error: str = "sd", title: str | None = None) -> Table:
    """The aggregate as one rich table, however wide."""
    return rich_tables(agg, error, title, width=1 << 30)[0]


def print_table(console: Console, agg: Aggregate, error: str = "sd",
                title: str | None = None) -> None:
    """Print the aggregate tables sized to the console (or a note when empty)."""
    if not agg.groups:
        console.print("no episodes in this store yet")
        return
    for t in rich_tables(agg, error, title, console.width):
        console.print(t)


def dumps(obj: Any) -> str:
    """Compact JSON for stdout (one object, one line)."""
    return json.dumps(obj, default=str, ensure_ascii=False)
