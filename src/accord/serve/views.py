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
from accord.serve.transcript import transcript, usage_rows, usage_table

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
                 "leak rate", "sycophancy": "below-BATNA rate", "error": "error rate",
                 "social_welfare": "social welfare", "nash": "Nash play rate",
                 "pareto_optimal": "Pareto-optimal rate"}
#: metric-name prefixes of each party's utility (bargaining, task exchange, games)
PARTY_PREFIXES = ("u_", "utility_", "payoff_")


#: what a domain's per-party "utility" is measured in (the charts and tables say it)
UNITS = {"games": "payoff", "deal-or-no-deal": "points"}


def unit_of(domain: str | None) -> str:
    """The unit of a domain's per-party utilities: ``payoff`` in games, ``points`` in
    Deal-or-No-Deal, ``utility`` elsewhere (bargaining's are 0 to 1)."""
    return UNITS.get(domain or "", "utility")


def key_heading(key: str) -> str:
    """A group-by key as a column heading: ``agents`` -> ``line-up``,
    ``params.stagnation_rounds`` -> ``stagnation rounds``."""
    if key == "agents":
        return "line-up"
    return key.removeprefix("params.").removeprefix("metrics.").replace("_", " ")


def _party(metric: str) -> str:
    """The party a per-party metric names (``payoff_1`` -> ``player 1``)."""
    if metric.startswith("payoff_"):
        return "player " + metric.removeprefix("payoff_")
    return metric.removeprefix("u_").removeprefix("utility_")


def compact_tables(agg: Any) -> list[dict[str, Any]]:
    """The aggregate for people: one table per domain when the run mixes domains (each
    with only the key columns and metrics its own groups have a value for, so a mixed
    run's table fits the screen), else one. Each table: ``domain`` (``None`` for a run of
    one domain), ``unit`` of its utilities, ``head`` and ``rows``; the last cell of a row
    is the list of ``party mean ± SD`` lines when the table has a utility column."""
    from accord.bench.tables import format_stat

    keys = list(agg.group_by)
    split = "domain" in keys
    parts: dict[Any, list[Any]] = {}
    for g in agg.groups:
        parts.setdefault(g.key[keys.index("domain")] if split else None, []).append(g)
    out = []
    for domain, groups in parts.items():
        shown = [i for i, k in enumerate(keys) if k != "domain"
                 and (not k.startswith("params.") or any(g.key[i] is not None
                                                        for g in groups))]

        def has(m: str, groups: list[Any] = groups) -> bool:
            return any(m in g.stats and g.stats[m].n for g in groups)

        keep = [m for m in COMPACT if m in agg.metrics and has(m)]
        parties = [m for m in agg.metrics if m.startswith(PARTY_PREFIXES) and has(m)]
        head = [*(key_heading(keys[i]) for i in shown), "episodes", "failed",
                *(COMPACT_WORDS.get(m, m.replace("_", " ")) for m in keep)]
        unit = unit_of(domain if isinstance(domain, str) else None)
        if parties:
            head.append(f"mean {unit} per party (± SD)")
        rows: list[list[Any]] = []
        for g in groups:
            row: list[Any] = [num(g.key[i]) for i in shown] + [str(g.done), str(g.failed)]
            row += [format_stat(g.stats[m]) for m in keep]
            if parties:
                row.append([f"{_party(m)} {format_stat(g.stats[m])}" for m in parties
                            if g.stats[m].n])
            rows.append(row)
        out.append({"domain": domain if split else None, "unit": unit, "head": head,
                    "rows": rows})
    return out


def aggregate_view(agg: Any) -> dict[str, Any]:
    """The aggregate table of ``accord results`` (``head``/``rows``: every metric) and
    the compact ones for people (``tables``: :func:`compact_tables`)."""
    from accord.bench.tables import format_stat

    head = [*agg.group_by, "n", "failed", *agg.metrics]
    rows = [[num(v) for v in g.key] + [str(g.done), str(g.failed)]
            + [format_stat(g.stats[m]) for m in agg.metrics] for g in agg.groups]
    return {"head": head, "rows": rows, "group_by": agg.group_by, "metrics": agg.metrics,
            "tables": compact_tables(agg)}


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
        "usage": usage_table(usage_rows(row.usage)),
        "approval": appr,
        "plot": episode_figure(f"{row.run}/{row.id}", row.spec, s, events) if plot else None,
    }


def episode_json(view: dict[str, Any]) -> dict[str, Any]:
    """The JSON twin of the transcript page."""
    return {**view["episode"], "approval": view["approval"], "trajectory": view["events"],
            "llm_calls": view["llm_calls"], "notes": view["notes"], "card": view["card"],
            "lineage": view["lineage"], "audit": view["audit"]}


__all__ = ["COLUMN_WORDS", "KEY_METRICS", "UNITS", "aggregate_json", "aggregate_view",
           "compact_tables", "episode_json", "episode_view", "key_heading",
           "metric_columns", "mixed", "num", "row_view", "unit_of", "when"]
