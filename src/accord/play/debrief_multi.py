"""The debrief of a bargaining episode with three or more parties.

A utility *plane* has two axes; with ``n >= 3`` parties the outcomes live in ``n``
dimensions, so :func:`multi_debrief` gives the person (pure, JSON-ready, rendered by the
terminal in sentences and a table and by the browser as SVG):

* a **table of every party**: its utility in this episode (the others' now revealed),
  its BATNA and the margin over it, its utility at the Nash point and at the best
  agreement for the person that every other party would still take over its BATNA;
* the **value left on the table** and the distances to the Pareto frontier and the Nash
  point -- :func:`accord.bench.frontier.plane_gaps` on all ``n`` utilities, the same
  function the two-party debrief calls and the same numbers as
  :func:`accord.bench.optimality.bargaining_gaps` (``accord results -m value_left``);
* a **parallel-coordinates** chart (``parallel``): one vertical axis per party, the
  person's first, with this episode, the Nash point and the best-for-you point as lines
  across them, every BATNA marked and the Pareto-optimal agreements as faint lines;
* **small multiples** (``planes``): the person's utility against each other party's, one
  plane each, with every outcome, the Pareto frontier, the Nash point, both BATNAs, the
  better outcome and this episode projected onto it. A projected frontier is a set of
  points, not a curve (an outcome on the n-party frontier may sit inside the projection),
  so the planes draw it as dots (``frontier_dots``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from accord.agents.human.brief import num
from accord.bench.frontier import plane_gaps
from accord.domains.base import EpisodeSpec
from accord.protocols.engine import EpisodeResult

MAX_POINTS = 1500
"""Outcomes kept per small-multiple plane at most (a regular subsample beyond)."""

MAX_FRONTIER_LINES = 200
"""Pareto-optimal agreements drawn as faint lines in the parallel-coordinates chart."""


def best_for(frontier: Sequence[Sequence[float]], batna: Sequence[float]
             ) -> list[float] | None:
    """The Pareto-optimal agreement best for party 0 that every other party would take
    over its BATNA (ties: the most for the others together); ``None`` when there is none."""
    f = np.asarray(frontier, dtype=np.float64)
    if f.ndim != 2 or not len(f):
        return None
    d = np.asarray(batna, dtype=np.float64)
    ok = f[(f[:, 1:] >= d[1:] - 1e-9).all(axis=1)]
    if not len(ok):
        return None
    k = np.lexsort((ok[:, 1:].sum(axis=1), ok[:, 0]))[-1]
    return [float(x) for x in ok[k]]


def possessive(name: str) -> str:
    """``product's``, ``operations'``."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def _margin(x: float) -> str:
    return "0" if abs(x) < 1e-9 else f"{x:+.3g}"


def _said(values: Sequence[float], parties: Sequence[str]) -> str:
    """``you 0.6, product 0.7, operations 0.5``."""
    return ", ".join(f"{'you' if i == 0 else p} {num(v)}"
                     for i, (p, v) in enumerate(zip(parties, values, strict=True)))


def multi_debrief(spec: EpisodeSpec, result: EpisodeResult, role: str) -> dict[str, Any]:
    """The person's debrief of a bargaining episode with three or more parties (see the
    module docstring); ``role`` is the person's party."""
    from accord.domains.bargaining import resolve_scenario

    sc = resolve_scenario(spec.scenario)
    names = list(sc.party_names)
    if role not in names:
        raise ValueError(f"{role!r} is not a party of {spec.scenario} ({', '.join(names)})")
    parties = [role, *[p for p in names if p != role]]  # the person first
    order = [names.index(p) for p in parties]
    u = np.asarray(sc.utility_matrix, dtype=np.float64)[:, order]
    batna_of = {p.name: float(p.batna) for p in sc.parties}
    d = [batna_of[p] for p in parties]
    utils = result.record.get("utilities") or {}
    at = None if any(utils.get(p) is None for p in parties) else \
        [float(utils[p]) for p in parties]
    agreed = result.status == "agreement"
    g = plane_gaps(u, at, d)
    nash = g.nash[0] if g.nash else None
    best = best_for(g.frontier, d)
    others = parties[1:]

    said: list[str] = []
    if at is None:
        said.append("The episode failed: there is no outcome to place.")
    else:
        revealed = ", ".join(f"{possessive(p)} {num(v)}"
                             for p, v in zip(others, at[1:], strict=True))
        said.append(("You agreed" if agreed else "No deal") + f": your utility {num(at[0])}; "
                    f"{revealed} (now revealed).")
        below = [("you" if i == 0 else p) for i, p in enumerate(parties) if at[i] < d[i] - 1e-9]
        if below:
            said.append(f"Below their BATNA: {', '.join(below)}.")
        elif agreed:
            said.append("Everyone ended at or above their BATNA.")
        if g.value_left is not None and g.value_left > 1e-9 and g.better is not None:
            said.append(f"Value left on the table: {num(g.value_left)} in total. An agreement "
                        f"giving {_said(g.better, parties)} was better for at least one of "
                        "you and worse for none.")
        else:
            said.append("Nothing was left on the table: no agreement was better for one "
                        "party without being worse for another (on the Pareto frontier).")
        if nash is not None:
            said.append(f"The Nash point: {_said(nash, parties)}; distance "
                        f"{num(g.gap_nash)}.")
    if best is not None:
        said.append(f"The best agreement for you that every other party would take over "
                    f"its BATNA: {_said(best, parties)}.")

    columns = ["party", "this episode", "BATNA", "margin", "Nash point", "best for you"]
    rows = []
    for i, p in enumerate(parties):
        label = f"you ({p})" if i == 0 else f"{p} (revealed)"
        rows.append([label, num(at[i]) if at else "-", num(d[i]),
                     _margin(at[i] - d[i]) if at else "-",
                     num(nash[i]) if nash else "-", num(best[i]) if best else "-"])

    step = max(1, len(u) // MAX_POINTS)
    cloud = u[::step]
    front = np.asarray(g.frontier, dtype=np.float64).reshape(-1, len(parties))
    planes = []
    for j, other in enumerate(others, 1):
        planes.append({
            "you": role, "other": other, "unit": "utility",
            "points": [[float(a), float(b)] for a, b in cloud[:, [0, j]]],
            "frontier": [[float(a), float(b)] for a, b in front[:, [0, j]]],
            "frontier_dots": True,
            "nash": [] if nash is None else [[nash[0], nash[j]]],
            "nash_label": "Nash point",
            "disagreement": [d[0], d[j]],
            "outcome": None if at is None else [at[0], at[j]],
            "better": None if g.better is None else [g.better[0], g.better[j]]})
    lines = [{"key": "episode", "label": "this episode", "values": at},
             {"key": "nash", "label": "Nash point", "values": nash},
             {"key": "best", "label": "best for you", "values": best}]
    fstep = max(1, len(front) // MAX_FRONTIER_LINES)
    return {
        "domain": spec.domain, "role": role, "other": None, "others": others,
        "parties": parties, "unit": "utility", "sentences": said,
        "columns": columns, "rows": rows, "plane": None, "planes": planes,
        "parallel": {"axes": parties, "batna": d,
                     "lines": [ln for ln in lines if ln["values"] is not None],
                     "frontier": front[::fstep].tolist()},
        "utilities": None if at is None else dict(zip(parties, at, strict=True)),
        "batnas": dict(zip(parties, d, strict=True)),
        "nash": nash, "best": best, "better": g.better,
        "l2_to_pareto": g.gap_pareto, "l2_to_nash": g.gap_nash,
        "value_left": g.value_left,
    }


__all__ = ["MAX_FRONTIER_LINES", "MAX_POINTS", "best_for", "multi_debrief", "possessive"]
