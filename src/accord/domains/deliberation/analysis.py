"""The analyses of the deliberation study (seed 001) from stored episodes.

Pure functions over the episode dicts of a results store (``spec``, ``labels``, ``status``,
``metrics``; see :meth:`accord.domains.base.Domain.layouts`), JSON-ready:

* :func:`table2` - per model x mode (deliberation, centralized) x tools x setting: NR and
  NAR (mean ± SE), VR (%), HR (mean ± SD), NMAE_pub (mean ± SD) - the cells of the paper's
  Tables 2, 5 and 6;
* :func:`table3` - the oracle's NR and VR and "the NR increase of the oracle baseline
  compared to the centralized baseline and standard deliberative collaboration setting"
  (Δ_O-Cent., Δ_O-Delib.): differences of the cells' means (Table 3 reproduces that way:
  GPT-5.1 without tools, 95.54 - 91.67 = +3.87);
* :func:`table4` - tool use per model and setting (deliberation with tools): Tool NR,
  Actual NR and the compliance rate, the columns of the paper's Table 4;
* :func:`table7` - "linear regression results relating hallucination rate (HR) to the
  centralized performance gap": per instance, Δ_cent = NR(centralized) - NR(deliberation)
  regressed on the deliberation episode's HR, per setting and overall, pooled over
  models and tools (a positive β: "hallucinated resources account for part of the
  decentralized performance gap");
* :func:`nmae_correlations` - Pearson and Spearman correlations between NMAE_pub and NR
  over deliberation episodes (one point per episode), without tools, with tools and all
  (appendix B.2.2: "in the tool-augmented subset, higher NMAE_pub is significantly
  associated with lower NR").

A model is the line-up's agent spec with the baseline kinds folded into the kind that
plays them (``llm-centralized:M`` -> ``llm:M``, ``centralized`` -> ``share``), so the same
model's deliberation, centralized and oracle cells line up. An episode stored in several
runs of one store (same spec, same id) counts once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from accord.agents.spec import AgentSpec, AgentSpecError, parse_agent_spec
from accord.domains.base import EpisodeSpec
from accord.domains.deliberation.domain import MODES, infer_mode, parse_scenario
from accord.domains.deliberation.load import SETTINGS
from accord.domains.deliberation.stats import correlations, ols, summary

BASELINE_KINDS: Mapping[str, str] = {"centralized": "share", "oracle": "share",
                                     "llm-centralized": "llm", "llm-oracle": "llm"}
"""Agent kinds that only name a baseline, and the kind that plays it."""
TABLE2_MODES: tuple[str, ...] = ("deliberation", "centralized")
"""The two row blocks of Table 2."""
TOOLS: tuple[bool, ...] = (False, True)
"""Without, with tools (the paper's ✗ / ✓)."""


@dataclass(frozen=True)
class Row:
    """One finished deliberation episode, reduced to what the analyses group by."""

    model: str
    mode: str
    setting: str
    tools: bool
    instance: str
    seed: int
    repeat: int
    metrics: Mapping[str, Any]

    @property
    def pair_key(self) -> tuple[str, str, bool, str, int, int]:
        """What a deliberation episode and its centralized counterpart share."""
        return (self.model, self.setting, self.tools, self.instance, self.seed, self.repeat)


def model_name(agents: Sequence[str]) -> str:
    """The model of a line-up: its distinct agent specs, baseline kinds folded."""
    names: list[str] = []
    for text in agents:
        try:
            spec = parse_agent_spec(text)
        except AgentSpecError:
            name = str(text)
        else:
            name = str(AgentSpec(BASELINE_KINDS.get(spec.kind, spec.kind), spec.arg,
                                 spec.options))
        if name not in names:
            names.append(name)
    return " + ".join(names) or "?"


def _mode(spec: Mapping[str, Any]) -> str:
    params = spec.get("params") or {}
    if params.get("mode") in MODES:
        return str(params["mode"])
    try:
        agents = tuple(parse_agent_spec(a) for a in spec.get("agents") or ())
        return infer_mode(EpisodeSpec("deliberation", str(spec.get("scenario")), agents,
                                      params))
    except ValueError:
        return "deliberation"


def episode_rows(episodes: Iterable[Mapping[str, Any]]) -> tuple[list[Row], dict[str, int]]:
    """The finished deliberation episodes as :class:`Row`, and counts of what was skipped.

    Skipped: episodes of other domains, episodes that did not finish (``status`` other than
    ``done``: they have no metrics), repeats of an episode id already seen, and episodes
    whose scenario names no setting.
    """
    rows: list[Row] = []
    seen: set[str] = set()
    skipped = {"other_domains": 0, "not_done": 0, "duplicates": 0, "unreadable": 0}
    for ep in episodes:
        spec = ep.get("spec") or {}
        if spec.get("domain") != "deliberation":
            skipped["other_domains"] += 1
            continue
        if ep.get("status") != "done" or not ep.get("metrics"):
            skipped["not_done"] += 1
            continue
        key = str(ep.get("id") or id(ep))
        if key in seen:
            skipped["duplicates"] += 1
            continue
        seen.add(key)
        params = spec.get("params") or {}
        try:
            setting, index = parse_scenario(str(spec.get("scenario")), params)
        except ValueError:
            skipped["unreadable"] += 1
            continue
        instance = f"{params['instance_file']}" if params.get("instance_file") else str(index)
        rows.append(Row(model_name(spec.get("agents") or ()), _mode(spec), setting,
                        bool(params.get("tools", False)), instance, int(spec.get("seed", 0)),
                        int(spec.get("repeat", 0)), ep["metrics"]))
    return rows, skipped


def _order(values: Iterable[str], first: Sequence[str] = ()) -> list[str]:
    seen = list(dict.fromkeys(values))
    return [v for v in first if v in seen] + sorted(v for v in seen if v not in first)


def models(rows: Iterable[Row]) -> list[str]:
    """The models in the rows, in order of first appearance."""
    return list(dict.fromkeys(r.model for r in rows))


def settings(rows: Iterable[Row]) -> list[str]:
    """The settings in the rows, the paper's order first."""
    return _order((r.setting for r in rows), SETTINGS)


def number(metrics: Mapping[str, Any], key: str) -> float | None:
    """``metrics[key]`` as a float, or None when it is missing or not a number."""
    value = metrics.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _numbers(metrics: Iterable[Mapping[str, Any]], key: str) -> list[float]:
    return [x for m in metrics if (x := number(m, key)) is not None]


def cell(metrics: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One table cell: n, NR and NAR (mean, SE), VR (%), HR and NMAE_pub (mean, SD, n)."""
    if not metrics:
        return {"n": 0, "nr": None, "nr_se": None, "vr": None, "nar": None, "nar_se": None,
                "hr": None, "hr_sd": None, "hr_n": 0, "nmae_pub": None, "nmae_pub_sd": None,
                "nmae_pub_n": 0}
    nr, nar = summary(_numbers(metrics, "nr")), summary(_numbers(metrics, "nar"))
    hr, nmae = summary(_numbers(metrics, "hr")), summary(_numbers(metrics, "nmae_pub"))
    valid = [bool(m.get("valid")) for m in metrics]
    return {"n": len(metrics), "nr": nr["mean"], "nr_se": nr["se"],
            "vr": 100.0 * sum(valid) / len(valid), "nar": nar["mean"], "nar_se": nar["se"],
            "hr": hr["mean"], "hr_sd": hr["sd"], "hr_n": hr["n"], "nmae_pub": nmae["mean"],
            "nmae_pub_sd": nmae["sd"], "nmae_pub_n": nmae["n"]}


def _group(rows: Iterable[Row]) -> dict[tuple[str, str, bool, str], list[Mapping[str, Any]]]:
    out: dict[tuple[str, str, bool, str], list[Mapping[str, Any]]] = {}
    for r in rows:
        out.setdefault((r.model, r.mode, r.tools, r.setting), []).append(r.metrics)
    return out


def table2(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """Every model x {deliberation, centralized} x {without, with tools} x setting cell
    (the three settings always; a cell with no episodes has ``n`` 0 and None values)."""
    groups = _group(rows)
    return [{"model": m, "mode": mode, "tools": t, "setting": s,
             **cell(groups.get((m, mode, t, s), []))}
            for m in models(rows) for mode in TABLE2_MODES for t in TOOLS
            for s in SETTINGS]


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def table3(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """Per setting and model with oracle episodes, without and with tools: the oracle's NR
    (mean, SE) and VR, and the oracle minus the centralized and the deliberation cell's
    mean NR and VR (None when that cell has no episodes). Empty without oracle episodes."""
    groups = _group(rows)
    oracle = [r for r in rows if r.mode == "oracle"]
    out = []
    for s in settings(oracle):
        for m in models(r for r in oracle if r.setting == s):
            for t in TOOLS:
                o = cell(groups.get((m, "oracle", t, s), []))
                cent = cell(groups.get((m, "centralized", t, s), []))
                delib = cell(groups.get((m, "deliberation", t, s), []))
                out.append({
                    "setting": s, "model": m, "tools": t,
                    "oracle": {k: o[k] for k in ("n", "nr", "nr_se", "vr")},
                    "delta_o_cent": {"nr": _delta(o["nr"], cent["nr"]),
                                     "vr": _delta(o["vr"], cent["vr"]), "n": cent["n"]},
                    "delta_o_delib": {"nr": _delta(o["nr"], delib["nr"]),
                                      "vr": _delta(o["vr"], delib["vr"]), "n": delib["n"]},
                })
    return out


def gap_pairs(rows: Sequence[Row]) -> tuple[list[dict[str, Any]], int]:
    """Per instance with both a deliberation and a centralized episode (same model, setting,
    tools, seed and repeat): the deliberation episode's HR and Δ_cent = NR(centralized) -
    NR(deliberation); and how many such pairs have no HR (no recorded estimate)."""
    cent = {r.pair_key: r for r in rows if r.mode == "centralized"}
    pairs, no_hr = [], 0
    for r in rows:
        c = cent.get(r.pair_key) if r.mode == "deliberation" else None
        if c is None:
            continue
        hr, nr_d, nr_c = number(r.metrics, "hr"), number(r.metrics, "nr"), number(c.metrics, "nr")
        if hr is None or nr_d is None or nr_c is None:
            no_hr += 1
            continue
        pairs.append({"model": r.model, "setting": r.setting, "tools": r.tools,
                      "instance": r.instance, "hr": hr, "gap": nr_c - nr_d})
    return pairs, no_hr


def table7(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """OLS of Δ_cent on HR per setting (the three settings always) and overall."""
    pairs, _ = gap_pairs(rows)
    out = []
    for name in [*SETTINGS, "overall"]:
        sel = [p for p in pairs if name in ("overall", p["setting"])]
        fit = ols([p["hr"] for p in sel], [p["gap"] for p in sel], x_name="HR",
                  y_name="Δ_cent")
        if not sel:
            fit["note"] = "no instance with both a deliberation and a centralized episode"
        out.append({"domain": name, **fit})
    return out


def nmae_correlations(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """Pearson and Spearman correlations of NMAE_pub with NR over deliberation episodes,
    per setting that records NMAE_pub (task allocation), without tools, with tools, all."""
    delib = [r for r in rows if r.mode == "deliberation"
             and number(r.metrics, "nmae_pub") is not None and number(r.metrics, "nr") is not None]
    out = []
    for s in settings(delib) or ["task-allocation"]:
        for subset in ("without", "with", "all"):
            sel = [r for r in delib if r.setting == s
                   and (subset == "all" or r.tools == (subset == "with"))]
            res = correlations([number(r.metrics, "nmae_pub") or 0.0 for r in sel],
                               [number(r.metrics, "nr") or 0.0 for r in sel],
                               x_name="NMAE_pub", y_name="NR")
            if not sel:
                res["note"] = "no deliberation episode with NMAE_pub"
            out.append({"setting": s, "tools": subset, **res})
    return out


TABLE4_SETTINGS: tuple[str, ...] = ("menu-numeric", "task-allocation")
"""The settings the paper's Table 4 reports ("selected scenarios"); others follow."""


def table4(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """Table 4, tool use: per model and setting, over the deliberation episodes with tools
    that recorded a last tool output: Tool NR (the NR of the tool's last solution), Actual
    NR (the NR of the final decision) and Comp. (%) (the share of final decisions equal to
    the tool's last output). Every model x setting with tool episodes, Table 4's two
    settings first."""
    out: list[dict[str, Any]] = []
    present = _order((r.setting for r in rows), TABLE4_SETTINGS)
    for m in models(rows):
        for s in present:
            got = [r.metrics for r in rows if r.model == m and r.setting == s and r.tools
                   and r.mode == "deliberation" and number(r.metrics, "tool_nr") is not None]
            if not got:
                continue
            comp = [bool(x.get("tool_compliance")) for x in got
                    if x.get("tool_compliance") is not None]
            out.append({"model": m, "setting": s, "n": len(got),
                        "tool_nr": summary(_numbers(got, "tool_nr"))["mean"],
                        "actual_nr": summary(_numbers(got, "nr"))["mean"],
                        "compliance": 100.0 * sum(comp) / len(comp) if comp else None})
    return out


def analyses(episodes: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Every analysis of the layout, JSON-ready (raises ``ValueError`` without any
    finished deliberation episode)."""
    rows, skipped = episode_rows(episodes)
    if not rows:
        raise ValueError("no finished deliberation episodes to tabulate")
    _, no_hr = gap_pairs(rows)
    return {"episodes": len(rows), "skipped": skipped, "models": models(rows),
            "table2": table2(rows), "table3": table3(rows), "table4": table4(rows),
            "table7": table7(rows), "table7_pairs_without_hr": no_hr,
            "nmae_nr_correlations": nmae_correlations(rows)}


__all__ = [
    "BASELINE_KINDS",
    "TABLE2_MODES",
    "TABLE4_SETTINGS",
    "TOOLS",
    "Row",
    "analyses",
    "cell",
    "episode_rows",
    "gap_pairs",
    "model_name",
    "models",
    "nmae_correlations",
    "number",
    "settings",
    "table2",
    "table3",
    "table4",
    "table7",
]
