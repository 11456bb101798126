"""View data shared by the web pages, their JSON twins and the report (no HTTP here)."""

from __future__ import annotations

import json
import time
from typing import Any

from accord.bench.approvals import Approval
from accord.bench.store import EpisodeRow
from accord.core.numbers import figure
from accord.serve import audit
from accord.serve.figures import episode_figure
from accord.serve.transcript import transcript, usage_rows

#: metrics shown as columns of the episodes table when present
KEY_METRICS = ("agreement", "welfare", "nash_distance", "utility_leak", "reward",
               "social_welfare", "total", "coordinated", "nash", "pareto_optimal")


def when(t: float | None) -> str:
    """A unix time as ``YYYY-MM-DD HH:MM:SS`` UTC (``-`` for none)."""
    if t is None:
        return "-"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t))


def num(x: Any) -> str:
    """A table cell for a value: floats with two decimals, the rule of every
    person-facing table (:func:`accord.core.numbers.figure`); ``-`` for none."""
    if x is None:
        return "-"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        return figure(x)
    return str(x)


def row_view(e: EpisodeRow, approval: Approval | None) -> dict[str, Any]:
    """One line of the episodes table (also the JSON twin's episode item)."""
    s = e.summary or {}
    flags = s.get("flags") if isinstance(s.get("flags"), dict) else {}
    raised = [k for k, v in (flags or {}).items()
              if v is True or (isinstance(v, dict) and any(x is True for x in v.values()))]
    return {"id": e.id, "run": e.run, "seq": e.seq, "domain": e.spec.get("domain"),
            "scenario": e.spec.get("scenario"), "agents": e.lineup,
            "seed": e.spec.get("seed"), "status": e.status, "outcome": e.outcome,
            "reason": s.get("reason"), "rounds": s.get("rounds"), "flags": raised,
            "utilities": {u["party"]: u["utility"] for u in audit.utilities(e)
                          if u["utility"] is not None},
            "metrics": {m: (e.metrics or {}).get(m) for m in KEY_METRICS
                        if m in (e.metrics or {})},
            "wall_time": e.wall_time, "finished": e.finished,
            "approval": None if approval is None else approval.state}


def metric_columns(rows: list[dict[str, Any]]) -> list[str]:
    """The :data:`KEY_METRICS` some row of this page has a value for (a run shows only
    its own domain's columns; ``agreement`` is the outcome column already)."""
    have = {m for r in rows for m, v in r["metrics"].items() if v is not None}
    return [m for m in KEY_METRICS if m in have and m != "agreement"]


def mixed(rows: list[dict[str, Any]]) -> bool:
    """Whether a page holds episodes of several domains (its key metrics then share one
    column, each named, so the table still fits the screen)."""
    return len({r["domain"] for r in rows}) > 1


#: metric -> column heading in words
COLUMN_WORDS = {"welfare": "welfare", "nash_distance": "to Nash", "utility_leak": "leak",
                "reward": "reward", "social_welfare": "social welfare", "total": "total",
                "coordinated": "coordinated", "nash": "Nash play",
                "pareto_optimal": "Pareto-optimal"}
#: metrics of the compact aggregate on the run page, in this order (when present)
COMPACT = ("agreement", "rounds", "welfare", "l2_to_pareto", "l2_to_nash", "utility_leak",
           "sycophancy", "reward", "social_welfare", "total", "nash", "pareto_optimal",
           "error")
#: heading of a compact aggregate column
COMPACT_WORDS = {"agreement": "agreement rate", "rounds": "rounds", "welfare": "welfare",
                 "l2_to_pareto": "to Pareto", "l2_to_nash": "to Nash", "utility_leak":
                 "leak rate", "sycophancy": "below-BATNA rate", "error": "error rate"}


def aggregate_view(agg: Any) -> dict[str, Any]:
    """The aggregate table of ``accord results`` (``head``/``rows``: every metric) and a
    compact one for people (``compact_head``/``compact_rows``: the key metrics and each
    party's mean utility in one cell)."""
    from accord.bench.tables import format_stat

    head = [*agg.group_by, "n", "failed", *agg.metrics]
    rows = [[num(v) for v in g.key] + [str(g.done), str(g.failed)]
            + [format_stat(g.stats[m]) for m in agg.metrics] for g in agg.groups]
    keep = [m for m in COMPACT if m in agg.metrics]
    parties = [m for m in agg.metrics if m.startswith("u_")]
    chead = [*("line-up" if k == "agents" else k for k in agg.group_by), "episodes",
             "failed", *(COMPACT_WORDS.get(m, m.replace("_", " ")) for m in keep)]
    if parties:
        chead.append("mean utility per party (± SD)")
    crows = []
    for g in agg.groups:
        row = [num(v) for v in g.key] + [str(g.done), str(g.failed)]
        row += [format_stat(g.stats[m]) for m in keep]
        if parties:
            row.append(", ".join(f"{m[2:]} {format_stat(g.stats[m])}" for m in parties
                                 if g.stats[m].n))
        crows.append(row)
    return {"head": head, "rows": rows, "group_by": agg.group_by, "metrics": agg.metrics,
            "compact_head": chead, "compact_rows": crows}


def aggregate_json(agg: Any) -> dict[str, Any]:
    """The aggregate as in ``accord results --json`` (groups only)."""
    return {"group_by": agg.group_by, "metrics": agg.metrics, "groups": [{
        "key": dict(zip(agg.group_by, g.key, strict=True)), "episodes": g.episodes,
        "done": g.done, "failed": g.failed, "pending": g.pending, "outcomes": g.outcomes,
        "metrics": {m: g.stats[m].to_dict() for m in agg.metrics}} for g in agg.groups]}


def episode_view(row: EpisodeRow, jsonl: str | None, approval: Approval | None,
                 info: dict[str, Any], plot: bool = True,
                 lineage: tuple[EpisodeRow | None, list[EpisodeRow]] | None = None
                 ) -> dict[str, Any]:
    """Everything the transcript page shows about one episode (``lineage``: a fork's
    parent in the same store and the episode's own forks, :meth:`Stores.lineage`)."""
    from accord.serve.lineage import lineage_view

    events = [json.loads(line) for line in (jsonl or "").splitlines() if line.strip()]
    tr = transcript(events)
    s = row.summary or {}
    appr = None if approval is None else approval.to_dict()
    return {
        "episode": row.to_dict(), "lineup": row.lineup, "run": info, "events": events,
        "lines": tr["lines"],
        "llm_calls": tr["llm_calls"], "notes": tr["notes"],
        "sections": audit.record_sections(row),
        "metric_rows": audit.metric_rows(row),
        "card": audit.card(row),
        "lineage": lineage_view(row, *(lineage or (None, [])), looked_up=lineage is not None),
        "audit": audit.deal_audit(row, appr) if appr else None,
        "usage_rows": usage_rows(row.usage),
        "approval": appr,
        "plot": episode_figure(f"{row.run}/{row.id}", row.spec, s, events) if plot else None,
    }


def episode_json(view: dict[str, Any]) -> dict[str, Any]:
    """The JSON twin of the transcript page."""
    return {**view["episode"], "approval": view["approval"], "trajectory": view["events"],
            "llm_calls": view["llm_calls"], "notes": view["notes"], "card": view["card"],
            "lineage": view["lineage"], "audit": view["audit"]}


__all__ = ["COLUMN_WORDS", "KEY_METRICS", "aggregate_json", "aggregate_view", "episode_json",
           "episode_view", "metric_columns", "mixed", "num", "row_view", "when"]
