"""Study helpers for the games benchmarks: group stored episodes, tabulate, plot (seed 003, 4-6).

These work on the episode rows of a results store - :class:`accord.bench.EpisodeRow` objects
(``Store.episodes()``) or their ``to_dict()`` form (``accord results STORE -f json`` lists
them under ``episodes``) - without importing :mod:`accord.bench` (imports point from bench
to domains, DESIGN.md). A caller reads the store and passes the rows::

    with Store.open("runs/games-section6-rounds.db", create=False) as store:
        summary = plot_study(store.episodes(), "plots/rounds")

* :func:`study_table`: per cell (scenario, line-up, every parameter that varies) the number of
  episodes, the Nash / Pareto-optimal-Nash rates (Tables 5-8) and the action distribution;
* :func:`plot_study`: one action-distribution PNG per cell (Figures 5-11) and
  ``summary.json`` with the table;
* :func:`plot_action_share`: the share of one action against a numeric parameter, one line
  per series (Figure 12: the split rate against the Golden Balls jackpot per personality).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accord.domains.games.metrics import action_distribution, plot_action_distribution, rate

#: fields that identify a cell before the parameters (seeds and repetitions are pooled)
CELL_FIELDS = ("run", "scenario", "agents")


@dataclass(frozen=True)
class StudyEpisode:
    """One finished games episode: its groupable fields, its record and its metrics."""

    fields: Mapping[str, Any]
    record: Mapping[str, Any]
    metrics: Mapping[str, Any]


def _get(row: Any, name: str) -> Any:
    return row.get(name) if isinstance(row, Mapping) else getattr(row, name, None)


def _fields(row: Any) -> dict[str, Any]:
    spec = _get(row, "spec") or {}
    labels = _get(row, "labels") or {}
    agents = [str(a) for a in (labels.get("agents") or spec.get("agents") or [])]
    out: dict[str, Any] = {"run": _get(row, "run"), "scenario": spec.get("scenario"),
                           "agents": labels.get("lineup") or " vs ".join(agents),
                           "seed": spec.get("seed"), "repeat": spec.get("repeat", 0)}
    for i, a in enumerate(agents):
        out[f"agent{i}"] = a
    for key, val in (spec.get("params") or {}).items():
        out[f"params.{key}"] = json.dumps(val) if isinstance(val, list | dict) else val
    return out


def study_episodes(rows: Iterable[Any]) -> list[StudyEpisode]:
    """The finished ``games`` episodes among store rows (other domains and failures skipped)."""
    out = []
    for row in rows:
        spec = _get(row, "spec") or {}
        summary = _get(row, "summary") or {}
        if spec.get("domain") != "games" or _get(row, "status") != "done" or not summary:
            continue
        out.append(StudyEpisode(_fields(row), summary.get("record") or {},
                                _get(row, "metrics") or {}))
    return out


def default_group_by(episodes: Sequence[StudyEpisode]) -> list[str]:
    """Scenario, line-up, the run if several, and every parameter that varies."""
    keys = [k for k in CELL_FIELDS if k != "run" or len({e.fields.get("run") for e in
                                                         episodes}) > 1]
    params = dict.fromkeys(k for e in episodes for k in e.fields if k.startswith("params."))
    keys += [k for k in params if len({json.dumps(e.fields.get(k), default=str)
                                       for e in episodes}) > 1]
    return keys


def group_episodes(episodes: Sequence[StudyEpisode], by: Sequence[str]
                   ) -> dict[tuple[Any, ...], list[StudyEpisode]]:
    """Episodes by the values of ``by`` (groups in first-seen order)."""
    known = {k for e in episodes for k in e.fields}
    unknown = [k for k in by if k not in known and not k.startswith("params.")]
    if unknown:
        raise KeyError(f"unknown group field(s) {unknown}; fields: {', '.join(sorted(known))}")
    groups: dict[tuple[Any, ...], list[StudyEpisode]] = {}
    for e in episodes:
        groups.setdefault(tuple(e.fields.get(k) for k in by), []).append(e)
    return groups


def study_table(episodes: Sequence[StudyEpisode], by: Sequence[str] | None = None
                ) -> list[dict[str, Any]]:
    """Per cell: the key, episode count, rates and action distribution.

    Cells always include the scenario (distributions of different games do not mix).
    """
    keys = list(by) if by else default_group_by(episodes)
    if "scenario" not in keys:
        keys.insert(0, "scenario")
    out = []
    for values, members in group_episodes(episodes, keys).items():
        metrics = [m.metrics for m in members]
        out.append({"key": dict(zip(keys, values, strict=True)), "episodes": len(members),
                    "nash_rate": rate(metrics, "nash"),
                    "pareto_optimal_nash_rate": rate(metrics, "pareto_optimal_nash"),
                    "workflow_correct": _mean(m.get("workflow_correct") for m in metrics),
                    "distribution": action_distribution([m.record for m in members])})
    return out


def _mean(values: Iterable[Any]) -> float | None:
    vals = [float(v) for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def _slug(key: Mapping[str, Any]) -> str:
    parts = [f"{k.removeprefix('params.')}={v}" if k.startswith("params.") else str(v)
             for k, v in key.items() if k != "run"]
    text = "__".join(parts)
    return re.sub(r"[^A-Za-z0-9._=+-]+", "-", text).strip("-")[:120] or "all"


def plot_study(rows: Iterable[Any], out_dir: str | Path, *,
               group_by: Sequence[str] | None = None) -> dict[str, Any]:
    """One action-distribution PNG per cell and ``summary.json``; returns the summary.

    ``rows`` are store rows (see the module docstring); the summary lists each cell's key,
    counts, rates, distribution and the PNG's file name.
    """
    episodes = study_episodes(rows)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cells = study_table(episodes, group_by)
    for i, cell in enumerate(cells, start=1):
        name = f"{i:03d}_{_slug(cell['key'])}.png"
        title = ", ".join(f"{k.removeprefix('params.')}={v}" for k, v in cell["key"].items()
                          if k != "run")
        plot_action_distribution(cell["distribution"], out / name, title=title)
        cell["file"] = name
    summary = {"episodes": len(episodes), "cells": cells}
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str),
                                      encoding="utf-8")
    return summary


def action_share(episodes: Sequence[StudyEpisode], action: str) -> float | None:
    """Share of all decisions (every player, every episode) that were ``action``."""
    total = hits = 0
    for e in episodes:
        rec = e.record
        if not rec.get("completed"):
            continue
        moves = ([m["action"] for m in rec.get("moves", [])] if rec.get("type") == "extensive"
                 else list((rec.get("actions") or {}).values()))
        total += len(moves)
        hits += sum(a == action for a in moves)
    return hits / total if total else None


def plot_action_share(rows: Iterable[Any], path: str | Path, *, action: str, x: str,
                      series: str | None = "agents", title: str | None = None
                      ) -> dict[str, list[tuple[float, float]]]:
    """Line plot of ``action``'s share against the numeric field ``x``, one line per
    ``series`` value (e.g. ``action="split", x="params.jackpot"``); returns the points."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    episodes = study_episodes(rows)
    lines: dict[str, list[tuple[float, float]]] = {}
    by = [series, x] if series else [x]
    for values, members in group_episodes(episodes, by).items():
        share = action_share(members, action)
        if share is None or values[-1] is None:
            continue
        lines.setdefault(str(values[0]) if series else action, []).append(
            (float(values[-1]), share))
    fig = Figure(figsize=(6.0, 4.0))
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    for label, points in lines.items():
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
    ax.set_xlabel(x.removeprefix("params."))
    ax.set_ylabel(f"share of {action}")
    ax.set_ylim(-0.03, 1.03)
    xs = [p[0] for pts in lines.values() for p in pts]
    if xs and min(xs) > 0 and max(xs) >= 100 * min(xs):
        ax.set_xscale("log")
    if lines:
        ax.legend(fontsize=7)
    ax.set_title(title or f"{action} share by {x.removeprefix('params.')}")
    fig.tight_layout()
    fig.savefig(Path(path), format="png", dpi=110)
    return lines


__all__ = ["CELL_FIELDS", "StudyEpisode", "action_share", "default_group_by", "group_episodes",
           "plot_action_share", "plot_study", "study_episodes", "study_table"]
