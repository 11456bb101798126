"""Run-level views for people (pure functions over stored rows): the cross-episode charts
of a run (agreement rate and utilities per line-up, outcome distribution) and the
leaderboard page (ratings with intervals, the head-to-head heat map, safety columns).

Ratings come from :mod:`accord.bench.leaderboard` (its public functions only); the safety
and optimality columns per agent from :class:`accord.bench.safety.SafetyTally`, the same
tally ``accord leaderboard --safety`` prints (:func:`safety` only lays it out).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

from accord.bench.runscan import Cell
from accord.bench.store import EpisodeRow
from accord.core.numbers import figure
from accord.serve import audit
from accord.serve.figures import bar_chart, interval_chart, stacked_chart
from accord.serve.views import unit_of

#: bootstrap resamples and seed of the leaderboard page (as ``accord leaderboard``)
BOOTSTRAP, SEED = 200, 0
#: most line-ups drawn in a chart (the busiest first; the table has them all)
MAX_CHART_ROWS = 30


def _mean_sd(values: Sequence[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    mean = math.fsum(values) / len(values)
    return mean, statistics.stdev(values) if len(values) > 1 else None


def lineups(rows: Sequence[EpisodeRow]) -> list[dict[str, Any]]:
    """Per line-up (in first-seen order): episodes, outcome counts (``failed`` and
    ``pending`` for unfinished ones), agreement rate over finished episodes (``None``
    where the domain has no agreements) and each party's mean utility and SD, over all
    its episodes (``utilities``) and per domain (``by_domain``: a line-up that plays in
    several domains has utilities in several units)."""
    out: dict[str, dict[str, Any]] = {}
    for r in rows:
        g = _count(out, r.lineup, r.status, r.outcome, 1)
        if r.status == "done":
            per = g["utils"].setdefault(str(r.spec.get("domain")), {})
            for p, u in audit.party_utilities(r.summary, r.metrics):
                if isinstance(u, (int, float)):
                    per.setdefault(p, []).append(float(u))
    return _finish(out)


def lineups_of_cells(cells: Sequence[Cell],
                     utils: Mapping[str, dict[str, dict[str, list[float]]]]
                     ) -> list[dict[str, Any]]:
    """:func:`lineups` from a run's cells (:func:`accord.bench.runscan.scan_run`, plan
    order) and each line-up's party utilities per domain (finished episodes, in plan
    order)."""
    out: dict[str, dict[str, Any]] = {}
    for c in cells:
        _count(out, c.lineup, c.status, c.outcome, c.episodes)
    for name, g in out.items():
        g["utils"] = dict(utils.get(name, {}))
    return _finish(out)


def _count(out: dict[str, dict[str, Any]], lineup: str, status: str, outcome: str | None,
           n: int) -> dict[str, Any]:
    g = out.setdefault(lineup, {"lineup": lineup, "episodes": 0, "done": 0, "outcomes": {},
                                "agreements": 0, "deals": False, "utils": {}})
    g["episodes"] += n
    key = (outcome or "-") if status == "done" else status
    g["outcomes"][key] = g["outcomes"].get(key, 0) + n
    if status == "done":
        g["done"] += n
        g["deals"] = g["deals"] or outcome in ("agreement", "no_deal")
        g["agreements"] += n if outcome == "agreement" else 0
    return g


def _finish(out: Mapping[str, dict[str, Any]]) -> list[dict[str, Any]]:
    result = []
    for g in out.values():
        rate = g["agreements"] / g["done"] if g["deals"] and g["done"] else None
        merged: dict[str, list[float]] = {}
        for per in g["utils"].values():
            for p, v in per.items():
                merged.setdefault(p, []).extend(v)
        result.append({"lineup": g["lineup"], "episodes": g["episodes"], "done": g["done"],
                       "outcomes": g["outcomes"], "agreement_rate": rate,
                       "utilities": {p: _mean_sd(v) for p, v in merged.items()},
                       "by_domain": {d: {p: _mean_sd(v) for p, v in per.items()}
                                     for d, per in g["utils"].items()}})
    return result


def charts(groups: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The run's charts (title, caption, SVG) from :func:`lineups`."""
    busiest = sorted(groups, key=lambda g: -g["episodes"])[:MAX_CHART_ROWS]
    busiest.sort(key=lambda g: g["lineup"])
    out: list[dict[str, Any]] = []
    rated = [g for g in busiest if g["agreement_rate"] is not None]
    if rated:
        out.append({"title": "Agreement rate per line-up", "svg": bar_chart(
            [(g["lineup"], g["agreement_rate"], None) for g in rated],
            "Agreement rate per line-up", 0.0, 1.0, "{:.0%}"),
            "caption": "finished episodes that ended in an agreement"})
    domains = list(dict.fromkeys(d for g in groups for d in g.get("by_domain", {})))
    for domain in domains:
        # one chart per domain: a game's payoffs (0 to 5) and a bargaining utility (0 to
        # 1) on one axis would squash the utilities and mix units
        bars = [(f"{g['lineup']} · {p}", m, sd) for g in busiest
                for p, (m, sd) in g.get("by_domain", {}).get(domain, {}).items()
                if m is not None][:MAX_CHART_ROWS]
        if not bars:
            continue
        unit = unit_of(domain)
        title = f"Mean {unit} per line-up and party"
        if len(domains) > 1:
            title += f", {domain}"
        lo = min(0.0, *(m - (sd or 0) for _, m, sd in bars))
        # values as every table writes them (two decimals; 12,345 from 1,000 on), never
        # in exponent form (a jackpot's payoff of 50,000 read "5e+04")
        out.append({"title": title, "svg": bar_chart(bars, title, lo, None, figure),
                    "unit": unit, "domain": domain,
                    "caption": f"mean {unit} over finished episodes; whiskers: ± one SD"})
    if busiest:
        out.append({"title": "Outcomes per line-up", "svg": stacked_chart(
            [(g["lineup"], g["outcomes"]) for g in busiest], "Outcomes per line-up"),
            "caption": "share of each line-up's episodes by how they ended"})
    return out


def safety(rows: Sequence[EpisodeRow], by: str = "agent") -> dict[str, dict[str, Any]]:
    """Per rated label, from :class:`accord.bench.safety.SafetyTally` (as ``accord
    leaderboard --safety``): ``episodes`` it sat in (a self-play episode once), and per
    column of :data:`~accord.bench.safety.SAFETY_COLUMNS` its rate or mean (``None``
    where none of its episodes says), with ``<column>_n`` (the seats it was counted
    over) and, for the rates, ``<column>_hits`` (how many of them raised it)."""
    from accord.bench.leaderboard import seat_labels
    from accord.bench.safety import SAFETY_COLUMNS, SafetyTally

    tally = SafetyTally()
    episodes: dict[str, int] = {}
    for r in rows:
        if r.status != "done":
            continue
        tally.add(r, by)
        for label in set(seat_labels(r, by)):
            episodes[label] = episodes.get(label, 0) + 1
    out: dict[str, dict[str, Any]] = {}
    for label, n in episodes.items():
        cols = tally.columns(label)
        sums, counts = tally.sums.get(label, {}), tally.counts.get(label, {})
        c: dict[str, Any] = {"episodes": n, **cols}
        for col in SAFETY_COLUMNS:
            c[f"{col}_n"] = counts.get(col, 0)
            if col.endswith("_rate"):
                c[f"{col}_hits"] = round(sums.get(col, 0.0))
        out[label] = c
    return out


def _heat(x: float | None, lo: float, hi: float) -> str:
    """A cell colour from white (``lo``) to green (``hi``)."""
    if x is None or hi - lo < 1e-12:
        return "#f4f6f9" if x is None else "#cfe8d3"
    t = max(0.0, min(1.0, (x - lo) / (hi - lo)))
    r, g, b = (int(255 + (v - 255) * t) for v in (46, 139, 62))
    return f"rgb({r},{g},{b})" if t < 0.6 else f"rgb({r},{g},{b});color:#fff"


def board_view(rows: Sequence[EpisodeRow], method: str = "bt", by: str = "agent",
               bootstrap: int = BOOTSTRAP, seed: int = SEED) -> dict[str, Any]:
    """The leaderboard page's data: ``board`` (the :class:`Leaderboard` as a dict, full
    precision) or ``error`` (why nothing can be rated), the ratings chart, the
    head-to-head heat map and the safety columns."""
    from accord.bench.leaderboard import LeaderboardError, collect, leaderboard

    rows = list(rows)
    safe = safety(rows, by)
    try:
        matches, domains, skipped = collect(rows, by)
        board = leaderboard(matches, method, bootstrap, seed, by, domains, skipped)
    except LeaderboardError as exc:
        return {"error": str(exc), "board": None, "chart": None, "heat": None,
                "safety": safe, "method": method, "by": by}
    players = [r.player for r in board.ratings]
    cells = {(h.player, h.opponent): h for h in board.head_to_head}
    scores = [h.mean_score for h in board.head_to_head]
    lo, hi = (min(scores), max(scores)) if scores else (0.0, 1.0)
    heat = [{"player": a, "cells": [
        None if (a, b) not in cells else {
            "score": cells[(a, b)].mean_score, "matches": cells[(a, b)].matches,
            "agreement_rate": cells[(a, b)].agreement_rate,
            "style": "background:" + _heat(cells[(a, b)].mean_score, lo, hi)}
        for b in players]} for a in players]
    chart: Markup = interval_chart([(r.player, r.rating, r.low, r.high)
                                    for r in board.ratings],
                                   "Ratings with their 95% bootstrap intervals")
    return {"error": None, "board": board.to_dict(), "players": players, "chart": chart,
            "heat": heat, "safety": safe, "method": method, "by": by}


__all__ = ["BOOTSTRAP", "SEED", "board_view", "charts", "lineups", "lineups_of_cells", "safety"]
