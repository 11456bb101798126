"""The seeds' published figures beside a reproduction: ``accord results STORE --layout NAME
--compare-published``.

The published numbers are data (``bench/data/published/seed<NNN>.yaml``: table, section and
the seed file's line for each; the seeds' text has no page numbers). :func:`compare` pairs
every published cell with the same cell of a layout's JSON data (a ``games``, ``dond`` or
``deliberation`` layout) and gives the difference, reproduced minus published.

A reproduced model meets a paper column when its model string is the paper's model
(the ``models`` map of the data file, e.g. ``Sonnet`` -> ``anthropic/claude-3-5-sonnet-
20240620``, also matching a dated or undated variant) or when the caller maps it
(``aliases``: reproduced model -> paper name, ``--paper-model MODEL=NAME``), so a
reproduction with another model, or the offline mock, can still be set beside a column.
Pure functions apart from reading the shipped data files.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "published"
#: layout -> the data file of its seed
SEED_OF_LAYOUT: dict[str, str] = {"games": "seed003", "dond": "seed003",
                                  "deliberation": "seed001"}
DOND_COLUMNS = ("rounds", "agreement", "alice", "bob", "pareto_optimal", "envy_free",
                "total")


class PublishedError(ValueError):
    """No published figures for a layout, or a bad ``--paper-model`` mapping."""


@functools.lru_cache(maxsize=8)
def load_published(seed: str) -> dict[str, Any]:
    """The published figures of one seed (``seed003``), as the data file holds them."""
    import yaml

    path = DATA / f"{seed}.yaml"
    if not path.is_file():
        raise PublishedError(f"no published figures for {seed!r}; shipped: "
                             f"{', '.join(sorted(p.stem for p in DATA.glob('*.yaml')))}")
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))  # shipped data
    return data


def published_tables(layout: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The data file and its tables for ``layout``."""
    seed = SEED_OF_LAYOUT.get(layout)
    if seed is None:
        raise PublishedError(f"no published figures for the {layout!r} layout; layouts with "
                             f"published figures: {', '.join(SEED_OF_LAYOUT)}")
    doc = load_published(seed)
    return doc, [t for t in doc["tables"] if t["layout"] == layout]


def parse_aliases(items: Sequence[str]) -> dict[str, str]:
    """``["mock/games=Sonnet", ...]`` -> ``{"mock/games": "Sonnet"}``."""
    out: dict[str, str] = {}
    for item in items:
        model, eq, paper = item.partition("=")
        if not eq or not model.strip() or not paper.strip():
            raise PublishedError(f"--paper-model must look like MODEL=PAPER_NAME (e.g. "
                                 f"mock/games=Sonnet), got {item!r}")
        out[model.strip()] = paper.strip()
    return out


def paper_name(model: str, doc: Mapping[str, Any], aliases: Mapping[str, str]) -> str | None:
    """The paper column a reproduced model stands for, or None."""
    if model in aliases:
        return aliases[model]
    for name, full in (doc.get("models") or {}).items():
        base = str(full).rsplit("-20", 1)[0]  # the undated name of a dated model
        if model in (full, base, f"{base}-latest") or model.startswith(f"{base}-20"):
            return str(name)
    return None


def _spec_paper_name(spec: str, doc: Mapping[str, Any], aliases: Mapping[str, str]
                     ) -> str | None:
    """The paper name of a line-up's agent spec (the deliberation layout's model column):
    the alias of the spec or of its model, else the model's paper name."""
    from accord.domains.seats import agent_model

    if spec in aliases:
        return aliases[spec]
    return paper_name(agent_model(spec)[1], doc, aliases)


def _cell(table: str, row: str, column: str, published: float | Mapping[str, Any] | None,
          reproduced: float | None, model: str | None = None) -> dict[str, Any]:
    """One published figure beside its reproduction. A figure printed as a bound
    (``{below: 0.001}`` for "p < .001") has no difference; ``within`` says whether the
    reproduced value is below it."""
    if isinstance(published, Mapping):
        bound = float(published["below"])
        return {"table": table, "row": row, "column": column, "model": model,
                "published": None, "published_below": bound, "reproduced": reproduced,
                "difference": None,
                "within": None if reproduced is None else reproduced < bound}
    diff = None if published is None or reproduced is None else reproduced - published
    return {"table": table, "row": row, "column": column, "model": model,
            "published": published, "reproduced": reproduced, "difference": diff}


def _figures(data: Mapping[str, Any], pub: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Section 6's figures: Figure 12's human split rate beside each line-up's (the
    figures without published numbers have no rows)."""
    out = []
    got = next((f for f in data.get("figures") or [] if f["figure"] == pub["figure"]), None)
    lineups = [] if got is None else [r for g in got["games"] for r in g["rows"]]
    for name, vals in pub["rows"].items():
        for col, published in zip(pub["columns"], vals, strict=True):
            if not lineups:
                out.append(_cell(pub["table"], name, col, published, None))
            for r in lineups:
                talk = f", {r['rounds']} rounds of talk" if r.get("rounds") else ""
                out.append(_cell(pub["table"], f"{name} vs line-up {r['lineup']}{talk}",
                                 col, published, r.get(col), r.get("model")))
    return out


def _games(data: Mapping[str, Any], doc: Mapping[str, Any], tables: list[dict[str, Any]],
           aliases: Mapping[str, str]) -> list[dict[str, Any]]:
    out = []
    for pub in tables:
        if "figure" in pub:
            out += _figures(data, pub)
            continue
        cond = pub["condition"]
        rep = next((t for t in data.get("tables", []) if t["mode"] == cond["mode"]
                    and t["negotiation_rounds"] == cond["negotiation_rounds"]), None)
        models = {} if rep is None else {paper_name(m, doc, aliases): m for m in rep["models"]}
        rows = {} if rep is None else {r["game"]: r["cells"] for r in rep["rows"]}
        for game, vals in pub["rows"].items():
            for metric, label in (("ne", "NE"), ("pone", "PO-NE")):
                for col, published in zip(pub["columns"], vals[metric], strict=True):
                    m = models.get(col)
                    got = None
                    if m is not None and rep is not None:
                        got = (rep["average"][m][metric] if game == "average"
                               else (rows.get(game) or {}).get(m, {}).get(metric))
                    out.append(_cell(pub["table"], game, f"{label} {col}", published, got, m))
    return out


def _dond_row_name(row: Mapping[str, Any], doc: Mapping[str, Any],
                   aliases: Mapping[str, str]) -> str | None:
    if row.get("source"):  # people at a seat, or the data set's humans
        return "Human"
    if str(row["row"]).startswith("temp=") or row["row"] == "Best":
        return str(row["row"])
    models = set(row.get("models") or [])
    return paper_name(models.pop(), doc, aliases) if len(models) == 1 else None


def _dond(data: Mapping[str, Any], doc: Mapping[str, Any], tables: list[dict[str, Any]],
          aliases: Mapping[str, str]) -> list[dict[str, Any]]:
    out = []
    for pub in tables:
        rep = next((t for t in data.get("tables", []) if t["table"] == pub["table"]), None)
        rows: dict[str, list[Mapping[str, Any]]] = {}
        if rep is not None:
            for r in ([rep["best"]] if rep.get("best") else []) + rep["rows"]:
                name = _dond_row_name(r, doc, aliases)
                if name is not None and (name == "Human" or name not in rows):
                    rows.setdefault(name, []).append(r)
        for name, vals in pub["rows"].items():
            # every Human row (people, the data set) meets the paper's, named by its source
            found: list[Mapping[str, Any] | None] = [*rows.get(name, [])] or [None]
            for r in found:
                label = name if r is None or not r.get("source") else str(r["row"])
                for col, published in zip(DOND_COLUMNS, vals, strict=True):
                    out.append(_cell(pub["table"], label, col, published,
                                     None if r is None else r.get(col),
                                     None if r is None else str(r.get("row"))))
    return out


def _deliberation(data: Mapping[str, Any], doc: Mapping[str, Any],
                  tables: list[dict[str, Any]], aliases: Mapping[str, str]
                  ) -> list[dict[str, Any]]:
    out = []
    tick = {False: "✗", True: "✓"}
    for pub in tables:
        if pub["table"] == "2":
            cells = {(r["mode"], _spec_paper_name(r["model"], doc, aliases), r["tools"],
                      r["setting"]): r for r in data.get("table2") or [] if r.get("n")}
            for row in pub["rows"]:
                for setting, vals in row["cells"].items():
                    r = cells.get((row["mode"], row["model"], row["tools"], setting))
                    for col, published in zip(pub["columns"], vals, strict=True):
                        out.append(_cell("2", f"{row['mode']} {row['model']} "
                                         f"{tick[row['tools']]} {setting}", col, published,
                                         None if r is None else r.get(col),
                                         None if r is None else str(r["model"])))
            continue
        if pub["table"] == "3":
            got = {(_spec_paper_name(r["model"], doc, aliases), r["tools"]): r
                   for r in data.get("table3") or [] if r["setting"] == pub["setting"]}
            for row in pub["rows"]:
                r = got.get((row["model"], row["tools"]))
                rep = [None] * 7 if r is None else [
                    r["oracle"]["nr"], r["oracle"]["nr_se"], r["delta_o_cent"]["nr"],
                    r["delta_o_delib"]["nr"], r["oracle"]["vr"], r["delta_o_cent"]["vr"],
                    r["delta_o_delib"]["vr"]]
                for col, published, value in zip(pub["columns"], row["values"], rep,
                                                 strict=True):
                    out.append(_cell("3", f"{row['model']} {tick[row['tools']]}", col,
                                     published, value, None if r is None else r["model"]))
            continue
        if pub["table"] == "7":
            got7 = {r["domain"]: r for r in data.get("table7") or []}
            for domain, vals in pub["rows"].items():
                r = got7.get(domain)
                for col, published in zip(pub["columns"], vals, strict=True):
                    out.append(_cell("7", domain, col, published,
                                     None if r is None else r.get(col)))
            continue
        if pub["table"] == "correlations":
            corr = {r["tools"]: r for r in data.get("nmae_nr_correlations") or []
                    if r["setting"] == pub["setting"]}
            for subset, vals in pub["rows"].items():
                r = corr.get(subset)
                rep = [None] * 4 if r is None else [
                    r["pearson"]["r"], r["pearson"]["p"], r["spearman"]["rho"],
                    r["spearman"]["p"]]
                for col, published, value in zip(pub["columns"], vals, rep, strict=True):
                    out.append(_cell("correlations", f"{pub['setting']} {subset} tools", col,
                                     published, value))
            continue
        rep4 = {(_spec_paper_name(r["model"], doc, aliases), r["setting"]): r
                for r in data.get("table4") or []}
        for model, settings in pub["rows"].items():
            for setting, vals in settings.items():
                r = rep4.get((model, setting))
                for col, published in zip(pub["columns"], vals, strict=True):
                    out.append(_cell(pub["table"], f"{model} {setting}", col, published,
                                     None if r is None else r.get(col),
                                     None if r is None else str(r["model"])))
    return out


_COMPARERS = {"games": _games, "dond": _dond, "deliberation": _deliberation}


def compare(layout: str, data: Mapping[str, Any], aliases: Mapping[str, str] | None = None
            ) -> dict[str, Any]:
    """Every published cell of ``layout``'s tables beside the reproduced one: cells with
    ``published``, ``reproduced`` (None: not in the store) and ``difference`` (reproduced
    minus published; a figure printed as a bound gets ``within`` instead), plus the count
    compared and the mean absolute difference (over the figures with a difference)."""
    doc, tables = published_tables(layout)
    cells = _COMPARERS[layout](data, doc, tables, dict(aliases or {}))
    diffs = [abs(c["difference"]) for c in cells if c["difference"] is not None]
    bounds = sum(c.get("within") is not None for c in cells)
    return {"seed": doc["seed"], "page": doc.get("page"),
            "tables": [{**{k: t[k] for k in ("table", "title", "section", "line")},
                        "label": t.get("label") or f"Table {t['table']}",
                        "notes": list(t.get("notes") or [])} for t in tables],
            "cells": cells, "compared": len(diffs) + bounds, "published_cells": len(cells),
            "mean_abs_difference": sum(diffs) / len(diffs) if diffs else None}


def _num(x: float | None) -> str:
    return "—" if x is None else f"{x:.4g}"


def _published_text(c: Mapping[str, Any]) -> str:
    bound = c.get("published_below")
    return _num(c["published"]) if bound is None else f"< {bound:g}"


def _difference_text(c: Mapping[str, Any]) -> str:
    if c.get("within") is not None:
        return "within the bound" if c["within"] else "outside the bound"
    return "—" if c["difference"] is None else f"{c['difference']:+.4g}"


def format_comparison(cmp: Mapping[str, Any]) -> str:
    """The comparison as Markdown: per published table, its figures that have a reproduced
    counterpart (--json keeps every published figure), then a sentence."""
    out: list[str] = []
    for t in cmp["tables"]:
        cells = [c for c in cmp["cells"] if c["table"] == t["table"]]
        rows = [c for c in cells if c["reproduced"] is not None]
        out.append(f"Published vs reproduced, {t.get('label') or 'Table ' + t['table']} "
                   f"({t['title']}; section {t['section']}, seed {cmp['seed']} line "
                   f"{t['line']})")
        notes = [f"Note: {n}" for n in t.get("notes") or []]
        if not cells:
            out += [*notes, ""]
            continue
        if not rows:
            out += [f"No reproduced counterpart for its {len(cells)} figures in this store.",
                    *notes, ""]
            continue
        out += ["", "| row | column | published | reproduced | difference |",
                "|---|---|---:|---:|---:|"]
        for c in rows:
            out.append(f"| {c['row']} | {c['column']} | {_published_text(c)} | "
                       f"{_num(c['reproduced'])} | {_difference_text(c)} |")
        out += [*notes, ""]
    if cmp["compared"]:
        mad = cmp["mean_abs_difference"]
        out.append(f"{cmp['compared']} of {cmp['published_cells']} published figures have a "
                   "reproduced counterpart" + ("" if mad is None else
                                              f"; mean absolute difference {mad:.3g}") + ".")
    else:
        out.append(f"None of the {cmp['published_cells']} published figures has a reproduced "
                   "counterpart in this store: no model of the store is one of the paper's "
                   "(map one with --paper-model MODEL=NAME).")
    return "\n".join(out) + "\n"


__all__ = ["DATA", "SEED_OF_LAYOUT", "PublishedError", "compare", "format_comparison",
           "load_published", "paper_name", "parse_aliases", "published_tables"]
