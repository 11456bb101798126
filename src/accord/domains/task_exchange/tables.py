"""The layouts of the paper's Table 1 (a, b, c) and Table 2 from per-episode metrics.

Pure functions over rows ``{"scenario", "strategy", "lineup", "metrics"}`` (``metrics`` as
returned by :func:`~accord.domains.task_exchange.metrics.episode_metrics`, e.g. read back
from a results store): :func:`paper_tables` groups them and computes each cell with
:func:`~accord.domains.task_exchange.metrics.table1_row` (agreement over valid runs, error
over all runs, turns and utilities over valid runs) and
:func:`~accord.domains.task_exchange.metrics.table2_row` (invalid-pattern counts and their
share of attempts); :func:`format_tables` renders them as Markdown in the paper's layout.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from accord.domains.task_exchange.load import get_scenario
from accord.domains.task_exchange.metrics import initial_row, table1_row, table2_row
from accord.domains.task_exchange.validation import PATTERNS

STRATEGY_LABELS = {"utility-aware": "Proposed", "baseline": "Baseline"}
"""Table 1's names for the two strategies."""


def _order(values: Iterable[str], first: Sequence[str] = ()) -> list[str]:
    seen = list(dict.fromkeys(values))
    return [v for v in first if v in seen] + [v for v in seen if v not in first]


def paper_tables(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Table 1 (one sub-table per scenario, rows line-up x strategy), Table 1(c) (initial
    utilities per scenario) and Table 2 (one sub-table per strategy, rows line-up x
    scenario), JSON-ready."""
    rows = list(rows)
    groups: dict[tuple[str, str, str], list[Mapping[str, Any]]] = {}
    for r in rows:
        key = (str(r["scenario"]), str(r["strategy"]), str(r["lineup"]))
        groups.setdefault(key, []).append(r["metrics"])
    scenarios = _order((k[0] for k in groups), ("cooperative", "competitive"))
    strategies = _order((k[1] for k in groups), ("utility-aware", "baseline"))
    lineups = _order(k[2] for k in groups)
    table1: dict[str, list[dict[str, Any]]] = {}
    initial: dict[str, dict[str, Any]] = {}
    roles: dict[str, list[str]] = {}
    for sc in scenarios:
        scenario = get_scenario(sc)
        roles[sc] = list(scenario.roles)
        initial[sc] = initial_row(scenario)
        table1[sc] = [{"lineup": lu, "strategy": st,
                       **table1_row(groups[(sc, st, lu)], scenario.roles)}
                      for lu in lineups for st in strategies if (sc, st, lu) in groups]
    table2 = {st: [{"lineup": lu, "scenario": sc, **table2_row(groups[(sc, st, lu)])}
                   for lu in lineups for sc in scenarios if (sc, st, lu) in groups]
              for st in strategies}
    return {"table1": table1, "table1c": initial, "table2": table2, "roles": roles,
            "episodes": len(rows)}


def _pm(pair: Sequence[float | None] | None, digits: int = 2, pct: bool = False) -> str:
    if pair is None or pair[0] is None:
        return "—"
    mean, spread = pair[0], pair[1] or 0.0
    if pct:
        return f"{mean:.1f} ± {spread:.1f}%"
    return f"{mean:.{digits}f} ± {spread:.{digits}f}"


def format_tables(tables: Mapping[str, Any]) -> str:
    """Markdown in the paper's layout (mean ± SD; rates ± binomial SE; dashes: no valid run)."""
    out: list[str] = []
    letters = "abcdefghij"
    for i, (sc, rows) in enumerate(tables["table1"].items()):
        a, b = tables["roles"][sc]
        out += [f"Table 1({letters[i % 10]}) {sc}", "",
                f"| Line-up | Setting | Runs | Agreement | Error | Turns | {a} | {b} | SW | "
                "L2 to Pareto |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in rows:
            out.append(f"| {r['lineup']} | {STRATEGY_LABELS.get(r['strategy'], r['strategy'])}"
                       f" | {r['runs']} | {_pm(r['agreement'], pct=True)} | "
                       f"{_pm(r['error'], pct=True)} | {_pm(r['turns'], 1)} | {_pm(r[a])} | "
                       f"{_pm(r[b])} | {_pm(r['social_welfare'])} | "
                       f"{_pm(r['l2_to_pareto'], 3)} |")
        out.append("")
    if tables["table1c"]:
        out += ["Table 1(c) Initial utilities", "", "| Scenario | Utilities | SW | L2 to Pareto |",
                "|---|---|---:|---:|"]
        for sc, ini in tables["table1c"].items():
            utils = ", ".join(f"{r} {u:.2f}" for r, u in ini["utilities"].items())
            out.append(f"| {sc} | {utils} | {ini['social_welfare']:.2f} | "
                       f"{ini['l2_to_pareto']:.3f} |")
        out.append("")
    codes = [*PATTERNS.values(), "OTH"]
    for i, (st, rows) in enumerate(tables["table2"].items()):
        out += [f"Table 2({letters[i % 10]}) {STRATEGY_LABELS.get(st, st)} ({st})", "",
                "| Line-up | Scen. | Attempts | " + " | ".join(codes) + " |",
                "|---|---|---:|" + "---:|" * len(codes)]
        for r in rows:
            cells = [f"{r[c][0]} ({r[c][1]:.2f}%)" if r[c][1] is not None else f"{r[c][0]} (—)"
                     for c in codes]
            out.append(f"| {r['lineup']} | {r['scenario']} | {r['attempts']} | "
                       + " | ".join(cells) + " |")
        out.append("")
    out.append("Agreement over valid (non-error) runs, Error over all runs, each ± binomial "
               "SE; other columns mean ± SD over valid runs. Table 2: counts over all runs "
               "and their share of attempts (turns + invalid attempts); OTH = invalid replies "
               "outside the seven patterns.")
    return "\n".join(out) + "\n"


__all__ = ["STRATEGY_LABELS", "format_tables", "paper_tables"]
