"""The ``games`` layout: seed 003's Tables 5-8 (classic games x models, the Nash
equilibrium and Pareto-optimal Nash equilibrium rates, and the average row) from stored
episodes.

``accord results STORE --layout games`` prints one table per (prompting mode, negotiation
rounds): chain of thought without negotiation is Table 5, with 4 rounds Table 6; the
workflow without negotiation Table 7, with 4 rounds Table 8. Code agents (e.g. the
``rational`` reference) get their own tables. A column is a model: the model inside an LLM
agent spec (``llm:openai/gpt-4o?temperature=1`` -> ``openai/gpt-4o``), the spec itself for
a code agent. The average row is the mean of the games' rates, as in the paper.
Episodes whose agents carry a section-6 condition (a ``personality`` or engineered
``prompt`` option) stay out of Tables 5-8.

After the tables come the data behind section 6's Figures 5-12
(:mod:`accord.domains.games.figures`), one sub-table per figure and game, for the figures
the store has episodes for.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from accord.domains.games.figures import format_figures, section6_figures
from accord.domains.seats import agent_model

#: the games of Tables 5-8 in the paper's order, with the paper's row names
PAPER_GAMES: dict[str, str] = {
    "prisoners-dilemma": "Prisoner's Dilemma", "stag-hunt": "Stag Hunt",
    "battle-of-the-sexes": "Battle of Sexes", "wait-go": "Wait-Go Game",
    "duopolistic-competition": "Duopolistic competition", "escalation": "Escalation Game",
    "monopoly": "Monopoly Game", "hot-cold": "Hot-cold Game", "draco": "Draco Game",
    "trigame": "Trigame"}
#: (mode, negotiation rounds) -> the paper's table
TABLES: dict[tuple[str, int], str] = {("cot", 0): "5", ("cot", 4): "6", ("workflow", 0): "7",
                                      ("workflow", 4): "8"}
MODE_NAMES = {"cot": "LLM, chain of thought", "workflow": "workflow-LLM",
              "code": "code agents (reference)"}
DASH = "—"


def _mode(kinds: Sequence[str]) -> str:
    if kinds and all(k == "llm" for k in kinds):
        return "cot"
    if kinds and all(k == "llm-workflow" for k in kinds):
        return "workflow"
    return "code" if all(k == "code" for k in kinds) else "mixed"


def _column(models: Sequence[str]) -> str:
    distinct = list(dict.fromkeys(models))
    return distinct[0] if len(distinct) == 1 else " vs ".join(models)


def _rate(values: Sequence[bool]) -> float | None:
    return sum(values) / len(values) if values else None


def _mean(values: Iterable[float | None]) -> float | None:
    got = [v for v in values if v is not None]
    return sum(got) / len(got) if got else None


def games_tables(episodes: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The tables as JSON-ready data (``ValueError`` without a finished games episode)."""
    cells: dict[tuple[str, int], dict[str, dict[str, dict[str, list[bool]]]]] = {}
    episodes = list(episodes)
    skipped = {"other_domains": 0, "not_done": 0, "mixed_line_ups": 0,
               "personality_or_prompt": 0}
    n = 0
    for ep in episodes:
        spec = ep.get("spec") or {}
        if spec.get("domain") != "games":
            skipped["other_domains"] += 1
            continue
        met = ep.get("metrics") or {}
        if ep.get("status") != "done" or met.get("nash") is None:
            skipped["not_done"] += 1
            continue
        parts = [agent_model(str(a)) for a in spec.get("agents") or []]
        mode = _mode([k for k, _, _ in parts])
        if mode == "mixed":
            skipped["mixed_line_ups"] += 1
            continue
        if any("personality" in o or "prompt" in o for _, _, o in parts):
            skipped["personality_or_prompt"] += 1  # section 6's conditions: the figures
            continue
        rounds = int((spec.get("params") or {}).get("negotiation_rounds", 0))
        col = _column([m for _, m, _ in parts])
        cell = cells.setdefault((mode, rounds), {}).setdefault(col, {}).setdefault(
            str(spec.get("scenario")), {"ne": [], "pone": []})
        cell["ne"].append(bool(met["nash"]))
        cell["pone"].append(bool(met.get("pareto_optimal_nash")))
        n += 1
    figures = section6_figures(episodes)
    if not n and not figures:
        raise ValueError("no finished games episodes to tabulate")
    order = {"cot": 0, "workflow": 1, "code": 2}
    tables = []
    for (mode, rounds) in sorted(cells, key=lambda k: (order[k[0]], k[1])):
        by_model = cells[(mode, rounds)]
        present = {g for m in by_model.values() for g in m}
        games = [g for g in PAPER_GAMES if g in present] + sorted(present - set(PAPER_GAMES))
        rows: list[dict[str, Any]] = []
        for g in games:
            rows.append({"game": g, "name": PAPER_GAMES.get(g, g), "cells": {
                m: {"ne": _rate(c[g]["ne"]), "pone": _rate(c[g]["pone"]),
                    "n": len(c[g]["ne"])} if g in c else {"ne": None, "pone": None, "n": 0}
                for m, c in by_model.items()}})
        average = {m: {k: _mean(r["cells"][m][k] for r in rows) for k in ("ne", "pone")}
                   for m in by_model}
        tables.append({"table": TABLES.get((mode, rounds)), "mode": mode,
                       "negotiation_rounds": rounds, "models": list(by_model),
                       "rows": rows, "average": average})
    return {"episodes": n, "skipped": skipped, "tables": tables, "figures": figures}


def _fmt(x: float | None) -> str:
    return DASH if x is None else f"{x:.2f}"


def table_title(t: Mapping[str, Any]) -> str:
    """``Table 5: LLM, chain of thought, without negotiation`` (or unnumbered)."""
    r = t["negotiation_rounds"]
    neg = "without negotiation" if r == 0 else f"with {r} round{'s' if r != 1 else ''} of " \
                                               "negotiation"
    head = f"Table {t['table']}" if t["table"] else "Table (not in the paper)"
    return f"{head}: {MODE_NAMES[t['mode']]}, {neg}"


def format_games(data: Mapping[str, Any]) -> str:
    """The tables as Markdown: games x (NE per model, then PO-NE per model), average row."""
    out: list[str] = []
    for t in data["tables"]:
        models = t["models"]
        head = ["Games", *(f"NE {m}" for m in models), *(f"PO-NE {m}" for m in models)]
        out += [table_title(t), "", "| " + " | ".join(head) + " |",
                "|---|" + "---:|" * (len(head) - 1)]
        for r in t["rows"]:
            c = r["cells"]
            out.append("| " + " | ".join([r["name"], *(_fmt(c[m]["ne"]) for m in models),
                                          *(_fmt(c[m]["pone"]) for m in models)]) + " |")
        avg = t["average"]
        out.append("| " + " | ".join(["average", *(_fmt(avg[m]["ne"]) for m in models),
                                      *(_fmt(avg[m]["pone"]) for m in models)]) + " |")
        out.append("")
    figures = data.get("figures") or []
    if figures:
        out += [format_figures(figures).rstrip("\n"), ""]
    else:
        out += ["Section 6 (Figures 5-12): no episodes in this store vary what those figures "
                "vary (run the games_section6_* specs for their data).", ""]
    skipped = {k: v for k, v in data["skipped"].items() if v}
    out.append(f"{data['episodes']} finished games episodes in Tables 5-8"
               + (f", {sum(f['episodes'] for f in figures)} in the section-6 figures (an "
                  "episode can serve several)" if figures else "")
               + "; rates are shares of episodes"
               + (" (left out: " + ", ".join(f"{v} {k.replace('_', ' ')}"
                                             for k, v in skipped.items()) + ")"
                  if skipped else "") + f"; {DASH} = no episodes for that cell.")
    return "\n".join(out) + "\n"


def games_layout(episodes: list[dict[str, Any]]) -> tuple[str, Any]:
    """Seed 003's Tables 5-8 and the section-6 figures' data from stored episodes (the
    ``games`` layout)."""
    data = games_tables(episodes)
    return format_games(data), data


__all__ = ["MODE_NAMES", "PAPER_GAMES", "TABLES", "format_games",
           "games_layout", "games_tables", "table_title"]
