"""The ``dond`` layout: seed 003's Deal-or-No-Deal Tables 10-13 and 17-18 from one store
holding every line-up.

Each line-up (its name in the bench spec, else its agent specs) becomes a row with the
paper's columns: negotiation rounds, agreement, Alice's and Bob's points, the Pareto-optimal
and envy-free rates and the total, averaged over the episodes whose datapoint admits an
envy-free allocation (the datapoints the paper's tables average over). Rows are grouped as
the paper groups them, by the agent kinds of the two seats:

* raw LLM vs raw LLM (``llm`` / ``llm``): Table 10, with the Best row;
* workflow LLM vs workflow LLM (``llm-workflow`` twice): Table 12, with the Best row;
* workflow LLM (Alice) vs raw LLM (Bob): Table 17; raw vs workflow: Table 18;
* a model at two or more temperatures within Table 10 or 12: Table 11 or 13 (rows
  ``temp=T``);
* a person at a seat (agent kind ``human``: ``accord run ... --agents human,workflow
  --save STORE``, the web app's play pages): Table 10, the table of the paper's Human row,
  as ``Human (people: LINE-UP)``;
* code agents and other line-ups: a reference table.

The paper's Human row is the humans' own outcome in the DealOrNoDeal data set. Given the
store's datapoints read from that data (``human_points``; ``accord results --layout dond
--human-data DIR``), Table 10 also gets ``Human (data set)``: the same statistic over the
same datapoints (:func:`accord.domains.deal_or_no_deal.stats.human_row`). Every Human row
says where it comes from (``source``).

The Best row is the best allocation (envy free, Pareto optimal, largest total; the seed's
rule) of the same datapoints, from :func:`accord.domains.deal_or_no_deal.rules.best`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from statistics import fmean
from typing import Any

from accord.agents.spec import AgentSpecError, parse_agent_spec
from accord.core.names import counted
from accord.domains.deal_or_no_deal.load import Datapoint
from accord.domains.deal_or_no_deal.rules import best
from accord.domains.deal_or_no_deal.stats import human_row
from accord.domains.seats import agent_model

COLUMNS: tuple[str, ...] = ("rounds", "agreement", "alice", "bob", "pareto_optimal",
                            "envy_free", "total")
#: (Alice's kind, Bob's kind) -> the paper's table and its title
FAMILIES: dict[tuple[str, str], tuple[str, str]] = {
    ("llm", "llm"): ("10", "Raw-LLM vs. Raw-LLM"),
    ("llm-workflow", "llm-workflow"): ("12", "Workflow-LLM vs. Workflow-LLM"),
    ("llm-workflow", "llm"): ("17", "Workflow-LLM vs. Raw-LLM"),
    ("llm", "llm-workflow"): ("18", "Raw-LLM vs. Workflow-LLM")}
#: the temperature tables of a family: Table 10 -> 11, Table 12 -> 13
TEMPERATURE_TABLES: dict[str, tuple[str, str]] = {
    "10": ("11", "raw {model} at several temperatures"),
    "12": ("13", "workflow {model} at several temperatures")}
DASH = "—"
#: where a Human row comes from, as the output says it
SOURCES: dict[str, str] = {
    "people": "episodes of this store with a person at a seat (agent kind human)",
    "dataset": "the humans' own outcome of the same datapoints in the DealOrNoDeal data set "
               "(the source of the paper's Human row)"}


def _is_person(spec: str) -> bool:
    try:
        return parse_agent_spec(spec).kind == "human"
    except AgentSpecError:
        return False


def _human_label(name: str) -> str:
    return f"Human (people: {name})"


def _mean(values: Sequence[float]) -> float | None:
    return fmean(values) if values else None


def _row(label: str, metrics: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"row": label, "n": len(metrics)}
    for k in COLUMNS:
        out[k] = _mean([float(m[k]) for m in metrics if m.get(k) is not None])
    return out


def dond_tables(episodes: Iterable[Mapping[str, Any]],
                human_points: Mapping[str, Datapoint] | None = None) -> dict[str, Any]:
    """The tables as JSON-ready data (``ValueError`` without a finished DoND episode).

    ``human_points``: the store's datapoints by scenario id, read from the data set, for
    the ``Human (data set)`` row of Table 10 (``KeyError`` naming a datapoint it lacks)."""
    groups: dict[str, dict[str, Any]] = {}
    datapoints: dict[str, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = {}
    skipped = {"other_domains": 0, "not_done": 0, "errors": 0, "no_envy_free": 0}
    for ep in episodes:
        spec = ep.get("spec") or {}
        if spec.get("domain") != "deal-or-no-deal":
            skipped["other_domains"] += 1
            continue
        met = ep.get("metrics") or {}
        if ep.get("status") != "done" or "agreement" not in met:
            skipped["not_done"] += 1
            continue
        if ep.get("outcome") == "error":
            skipped["errors"] += 1
            continue
        if met.get("best_total") is None:
            skipped["no_envy_free"] += 1
            continue
        agents = [str(a) for a in spec.get("agents") or []]
        labels = ep.get("labels") or {}
        name = str(labels.get("lineup") or " vs ".join(agents))
        parts = [agent_model(a) for a in agents]
        g = groups.setdefault(name, {"lineup": name, "agents": agents,
                                     "kinds": [k for k, _, _ in parts],
                                     "models": [m for _, m, _ in parts],
                                     "temperatures": [o.get("temperature")
                                                      for _, _, o in parts],
                                     "metrics": [], "datapoints": set()})
        g["metrics"].append(met)
        g["datapoints"].add(str(spec.get("scenario")))
        rec = ((ep.get("summary") or {}).get("record") or {})
        if "counts" in rec and "values" in rec:
            datapoints[str(spec.get("scenario"))] = (
                tuple(rec["counts"]), tuple(rec["values"]["alice"]),
                tuple(rec["values"]["bob"]))
    if not groups:
        raise ValueError("no finished deal-or-no-deal episodes on datapoints with an "
                         "envy-free allocation to tabulate")
    tables: dict[str, dict[str, Any]] = {}
    for name, g in groups.items():
        fam = FAMILIES.get((g["kinds"][0], g["kinds"][1])) if len(g["kinds"]) == 2 else None
        people = [a for a in g["agents"] if _is_person(a)]
        if people:
            fam = FAMILIES[("llm", "llm")]
        key, title = fam if fam else ("reference", "Code agents and other line-ups")
        t = tables.setdefault(key, {"table": None if key == "reference" else key,
                                    "title": title, "rows": [], "datapoints": set()})
        row = _row(_human_label(name) if people else name, g["metrics"])
        row.update(models=g["models"], agents=g["agents"], temperatures=g["temperatures"])
        if people:
            row.update(source="people", lineup=name,
                       human_seats=[r for r, a in zip(("alice", "bob"), g["agents"],
                                                      strict=False) if _is_person(a)])
        t["rows"].append(row)
        t["datapoints"] |= g["datapoints"]
    if human_points is not None:
        ids = sorted(tables["10"]["datapoints"] if "10" in tables
                     else {p for g in groups.values() for p in g["datapoints"]})
        missing = [i for i in ids if i not in human_points]
        if missing:
            raise KeyError(f"the data set has no datapoint {missing[0]!r}"
                           + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""))
        t = tables.setdefault("10", {"table": "10", "title": FAMILIES[("llm", "llm")][1],
                                     "rows": [], "datapoints": set(ids)})
        t["rows"].insert(0, {"row": "Human (data set)", "n": len(ids), "source": "dataset",
                             **human_row([human_points[i] for i in ids])})
    for key, (tkey, title) in TEMPERATURE_TABLES.items():
        if key not in tables:
            continue
        by_model: dict[str, list[dict[str, Any]]] = {}
        for r in tables[key]["rows"]:
            if r.get("source"):
                continue  # Human rows: people and the data set
            if len(set(r["models"])) == 1 and len(set(map(str, r["temperatures"]))) == 1:
                by_model.setdefault(r["models"][0], []).append(r)
        for model, rows in by_model.items():
            temps = {r["temperatures"][0] for r in rows}
            if len(temps) < 2 or None in temps:
                continue
            ordered = sorted(rows, key=lambda r: float(r["temperatures"][0]))
            tables[tkey] = {"table": tkey, "title": title.format(model=model),
                            "rows": [{**r, "row": f"temp={float(r['temperatures'][0]):.1f}"}
                                     for r in ordered], "datapoints": tables[key]["datapoints"]}
            break  # the paper's Tables 11 and 13 hold one model (GPT-4o)
    out_tables = []
    for key in ("10", "11", "12", "13", "17", "18", "reference"):
        if key not in tables:
            continue
        t = tables[key]
        if any(r.get("source") for r in t["rows"]):
            t["title"] += " and the Human line-up"
        pts = sorted(t.pop("datapoints"))
        bests = [best(*datapoints[p]) for p in pts if p in datapoints]
        got = [b for b in bests if b is not None]
        t["best"] = None if key not in ("10", "12") or not got else {
            "row": "Best", "n": len(got), "rounds": None, "agreement": 1.0,
            "alice": fmean(b.alice for b in got), "bob": fmean(b.bob for b in got),
            "pareto_optimal": 1.0, "envy_free": 1.0, "total": fmean(b.total for b in got)}
        t["datapoints"] = len(pts)
        out_tables.append(t)
    return {"episodes": sum(len(g["metrics"]) for g in groups.values()),
            "skipped": skipped, "tables": out_tables}


def _f(x: float | None, places: int) -> str:
    return DASH if x is None else f"{x:.{places}f}"


def _cells(r: Mapping[str, Any]) -> list[str]:
    return [str(r["row"]), _f(r["rounds"], 2), _f(r["agreement"], 4), _f(r["alice"], 2),
            _f(r["bob"], 2), _f(r["pareto_optimal"], 4), _f(r["envy_free"], 4),
            _f(r["total"], 2), str(r["n"])]


HEADER = ["Model", "Negotiation Round", "Agreement", "Alice score", "Bob score", "PO", "EF",
          "total reward", "n"]


def _source_text(source: str) -> str:
    label = "Human (data set)" if source == "dataset" else "Human (people: ...)"
    return f"{label} comes from {SOURCES[source]}"


def format_dond(data: Mapping[str, Any]) -> str:
    """The tables as Markdown in the paper's column order (n: episodes per row)."""
    out: list[str] = []
    for t in data["tables"]:
        head = f"Table {t['table']}" if t["table"] else "Reference (not in the paper)"
        points = counted(t["datapoints"], "datapoint")
        out += [f"{head}: {t['title']} ({points} with an envy-free allocation)", "",
                "| " + " | ".join(HEADER) + " |",
                "|---|" + "---:|" * (len(HEADER) - 1)]
        rows = ([t["best"]] if t.get("best") else []) + t["rows"]
        out += ["| " + " | ".join(_cells(r)) + " |" for r in rows]
        sources = list(dict.fromkeys(r["source"] for r in t["rows"] if r.get("source")))
        out += [f"Human rows: {'; '.join(_source_text(s) for s in sources)}."] \
            if sources else []
        out.append("")
    skipped = {k: v for k, v in data["skipped"].items() if v}
    out.append(f"{counted(data['episodes'], 'finished episode')} on datapoints with an "
               "envy-free "
               "allocation" + (" (left out: " + ", ".join(
                   f"{v} {k.replace('_', ' ')}" for k, v in skipped.items()) + ")"
                   if skipped else "") + ".")
    return "\n".join(out) + "\n"


def dond_layout(episodes: list[dict[str, Any]],
                human_points: Mapping[str, Datapoint] | None = None) -> tuple[str, Any]:
    """Seed 003's Tables 10-13 and 17-18 from stored episodes (the ``dond`` layout);
    ``human_points`` adds Table 10's ``Human (data set)`` row (see :func:`dond_tables`)."""
    data = dond_tables(episodes, human_points)
    return format_dond(data), data


__all__ = ["COLUMNS", "FAMILIES", "SOURCES", "TEMPERATURE_TABLES", "dond_layout",
           "dond_tables", "format_dond"]
