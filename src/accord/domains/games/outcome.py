"""How a played game ended, in one sentence in the games' own words (not "agreement").

A game played to its outcome has status ``completed``; the sentence names what each player
did and what the metrics of :mod:`accord.domains.games.metrics` say about it: coordinated
or miscoordinated (coordination games only), Nash equilibrium (subgame-perfect path for a
sequential game), Pareto optimal, and the payoffs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _plays(record: Mapping[str, Any]) -> str:
    if record.get("type") == "extensive":
        moves = record.get("moves") or []
        return ", then ".join(f"{m['player']} played {m['action']}" for m in moves) or "no move"
    actions = record.get("actions") or {}
    return ", ".join(f"{p} played {a}" for p, a in actions.items())


def _judgements(record: Mapping[str, Any], metrics: Mapping[str, Any]) -> list[str]:
    out = []
    coordinated = metrics.get("coordinated")
    if coordinated is not None:
        out.append("coordinated on an equilibrium" if coordinated else "miscoordinated")
    nash = metrics.get("nash")
    if nash is not None:
        if record.get("type") == "extensive":
            out.append("a subgame-perfect path" if nash else "off every subgame-perfect path")
        elif coordinated is None:  # "coordinated" already says it for coordination games
            out.append("a Nash equilibrium" if nash else "not a Nash equilibrium")
        elif coordinated is False:
            out.append("not a Nash equilibrium")
    po = metrics.get("pareto_optimal")
    if po is not None:
        out.append("Pareto optimal" if po else "not Pareto optimal")
    return out


def outcome_sentence(summary: Mapping[str, Any]) -> str:
    """The sentence for a games summary (``status``, ``record``, ``metrics``)."""
    record = summary.get("record") or {}
    metrics = summary.get("metrics") or {}
    status = summary.get("status")
    if status != "completed":
        why = summary.get("detail") or summary.get("reason") or "no reason given"
        return f"The game ended before its outcome ({status}: {why})."
    text = f"Game completed: {_plays(record)}"
    judged = _judgements(record, metrics)
    if judged:
        text += " - " + ", ".join(judged)
    pays = record.get("payoffs") or {}
    if pays:
        text += "; payoffs " + ", ".join(f"{p} {v}" for p, v in pays.items())
    return text + "."
