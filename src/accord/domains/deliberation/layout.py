"""The ``deliberation`` layout: seed 001's Tables 2, 3, 4 and 7 and the NMAE_pub-NR
correlations as Markdown, from the JSON-ready analyses of
:mod:`accord.domains.deliberation.analysis`.

``accord results STORE --layout deliberation`` prints :func:`format_analyses`;
``--json`` prints the dict of :func:`~accord.domains.deliberation.analysis.analyses`.
A dash marks a cell the store has no episodes for (or an undefined statistic, with a
note saying why).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from accord.domains.deliberation.analysis import TABLE2_MODES, TOOLS, analyses
from accord.domains.deliberation.load import SETTINGS

DASH = "—"
"""A missing cell or an undefined statistic."""
MODE_LABELS: Mapping[str, str] = {"deliberation": "Deliberation", "centralized":
                                  "Centralized", "oracle": "Oracle"}
"""Row-block names of the tables."""


def _tick(tools: bool) -> str:
    return "✓" if tools else "✗"


def _num(value: float | None, digits: int = 2, sign: bool = False) -> str:
    if value is None:
        return DASH
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def _pm(mean: float | None, spread: float | None, digits: int = 2) -> str:
    if mean is None:
        return DASH
    return f"{mean:.{digits}f}±{spread:.{digits}f}" if spread is not None \
        else f"{mean:.{digits}f}"


def _p(value: float | None) -> str:
    if value is None:
        return DASH
    return "< .0001" if value < 1e-4 else f"{value:.4f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], left: int) -> list[str]:
    """Markdown lines: the first ``left`` columns left-aligned, the rest right-aligned."""
    align = ["---"] * left + ["---:"] * (len(header) - left)
    return ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|",
            *("| " + " | ".join(r) + " |" for r in rows), ""]


def _cells(table2: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str, bool, str],
                                                         Mapping[str, Any]]:
    return {(c["model"], c["mode"], c["tools"], c["setting"]): c for c in table2}


def format_table2(data: Mapping[str, Any]) -> list[str]:
    """Table 2 (NR mean±SE, VR %) and its continuation (NAR mean±SE, HR mean±SD, n)."""
    cells = _cells(data["table2"])
    keys = [(m, mode, t) for mode in TABLE2_MODES for m in data["models"] for t in TOOLS]
    main, cont = [], []
    for m, mode, t in keys:
        row = [MODE_LABELS[mode], m, _tick(t)]
        got = [cells[(m, mode, t, s)] for s in SETTINGS]
        main.append(row + [x for c in got for x in (_pm(c["nr"], c["nr_se"]),
                                                      _num(c["vr"]))])
        cont.append(row + [x for c in got for x in (_pm(c["nar"], c["nar_se"]),
                                                      _pm(c["hr"], c["hr_sd"], 3),
                                                      str(c["n"]))])
    out = ["Table 2: normalized reward (NR, mean±SE) and valid ratio (VR, %)", ""]
    out += _table(["Mode", "Model", "Tools",
                   *(f"{s} {k}" for s in SETTINGS for k in ("NR", "VR(%)"))], main, 3)
    out += ["Table 2 (cont.): normalized adjusted reward (NAR, mean±SE, as Table 5), "
            "hallucination rate (HR, mean±SD, as Table 6) and episodes (n)", ""]
    out += _table(["Mode", "Model", "Tools",
                   *(f"{s} {k}" for s in SETTINGS for k in ("NAR", "HR", "n"))], cont, 3)
    return out


def format_table3(data: Mapping[str, Any]) -> list[str]:
    """Table 3: the oracle's NR and VR with Δ_O-Cent. and Δ_O-Delib. (one per setting)."""
    rows = data["table3"]
    if not rows:
        return ["Table 3: no oracle episodes in the store (run the deliberation_table3 "
                "config into it for the oracle baseline and its Δ columns).", ""]
    out: list[str] = []
    for s in dict.fromkeys(r["setting"] for r in rows):
        body = []
        for r in (r for r in rows if r["setting"] == s):
            o, dc, dd = r["oracle"], r["delta_o_cent"], r["delta_o_delib"]
            body.append([r["model"], _tick(r["tools"]), _pm(o["nr"], o["nr_se"]),
                         _num(dc["nr"], sign=True), _num(dd["nr"], sign=True),
                         _num(o["vr"]), _num(dc["vr"], sign=True), _num(dd["vr"], sign=True)])
        out += [f"Table 3: the oracle baseline ({s}); Δ = oracle minus the centralized "
                "(O-Cent.) or deliberation (O-Delib.) cell's mean", ""]
        out += _table(["Model", "Tools", "NR Oracle", "NR Δ_O-Cent.", "NR Δ_O-Delib.",
                       "VR(%) Oracle", "VR Δ_O-Cent.", "VR Δ_O-Delib."], body, 2)
    return out


def format_table4(data: Mapping[str, Any]) -> list[str]:
    """Table 4: tool use (Tool NR, Actual NR, Comp. %) per model and setting."""
    rows = data.get("table4") or []
    if not rows:
        return ["Table 4: no deliberation episodes with tools that recorded a tool output "
                "(run with params.tools: true).", ""]
    body = [[r["model"], r["setting"], _num(r["tool_nr"]), _num(r["actual_nr"]),
             _num(r["compliance"]), str(r["n"])] for r in rows]
    out = ["Table 4: tool use in deliberation with tools; Tool NR = the NR of the tool's "
           "last solution, Actual NR = the NR of the final decision, Comp. (%) = final "
           "decisions equal to the tool's last output", ""]
    return out + _table(["Model", "Setting", "Tool NR", "Actual NR", "Comp. (%)", "n"],
                        body, 2)


SUBSETS: Mapping[str, str] = {"without": "without tools", "with": "with tools",
                              "all": "with and without tools"}
"""The tool subsets of the correlation analysis."""


def _notes(rows: Sequence[Mapping[str, Any]], label: str) -> list[str]:
    return [f"- {r[label]}" + (f" ({SUBSETS[r['tools']]})" if "tools" in r else "")
            + f": {r['note']}" for r in rows if r.get("note")]


def format_table7(data: Mapping[str, Any]) -> list[str]:
    """Table 7: OLS of Δ_cent = NR(centralized) - NR(deliberation) on HR, per instance."""
    body = [[r["domain"], _num(r["beta"]), _num(r["beta_se"]), _num(r["intercept"]),
             _num(r["intercept_se"]), _num(r["t"]), _p(r["p"]), _num(r["r2"], 4),
             str(r["n"])] for r in data["table7"]]
    out = ["Table 7: linear regression of the centralized gap Δ_cent = NR(centralized) - "
           "NR(deliberation) on the deliberation episode's HR, one point per instance "
           "(pooled over models and tools)", ""]
    out += _table(["Domain", "β (HR → Δ_cent)", "SE(β)", "Intercept", "SE", "t", "p", "R²",
                   "n"], body, 1)
    notes = _notes(data["table7"], "domain")
    if data.get("table7_pairs_without_hr"):
        notes.append(f"- {data['table7_pairs_without_hr']} paired instance(s) left out: "
                     "no HR or NR recorded")
    return out + ([*notes, ""] if notes else [])


def format_correlations(data: Mapping[str, Any]) -> list[str]:
    """NMAE_pub vs NR over deliberation episodes: Pearson r and Spearman ρ with p-values."""
    rows = data["nmae_nr_correlations"]
    body = [[r["setting"], r["tools"], str(r["n"]), _num(r["pearson"]["r"], 4),
             _p(r["pearson"]["p"]), _num(r["spearman"]["rho"], 4), _p(r["spearman"]["p"])]
            for r in rows]
    out = ["NMAE_pub vs NR (appendix B.2.2): deliberation episodes, one point per episode", ""]
    out += _table(["Setting", "Tools", "n", "Pearson r", "p", "Spearman ρ", "p"], body, 2)
    notes = _notes(rows, "setting")
    return out + ([*notes, ""] if notes else [])


def format_analyses(data: Mapping[str, Any]) -> str:
    """The whole layout as Markdown text."""
    out = format_table2(data) + format_table3(data) + format_table4(data) \
        + format_table7(data) \
        + format_correlations(data)
    skipped = {k: v for k, v in data["skipped"].items() if v}
    out.append(f"{data['episodes']} finished deliberation episodes"
               + (" (left out: " + ", ".join(f"{v} {k.replace('_', ' ')}"
                                             for k, v in skipped.items()) + ")"
                  if skipped else "")
               + f"; {DASH} = no episodes in the store for that cell, or undefined.")
    return "\n".join(out) + "\n"


def deliberation_layout(episodes: list[dict[str, Any]]) -> tuple[str, Any]:
    """Seed 001's Tables 2, 3, 4 and 7 and the NMAE_pub-NR correlations from stored episodes
    (the ``deliberation`` layout of ``accord results``)."""
    data = analyses(episodes)
    return format_analyses(data), data


__all__ = ["DASH", "MODE_LABELS", "SUBSETS", "deliberation_layout", "format_analyses",
           "format_correlations", "format_table2", "format_table3", "format_table4",
           "format_table7"]
