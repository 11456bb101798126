"""The one line ``accord run -q`` prints: how the episode ended, for a person or a script.

``-q`` promises only what was asked for: no transcript, no tables, no notes about the
protocol's rules. What is left is the outcome in one sentence (the terms of a deal and each
party's utility, rounded to two decimals as every person-facing table is; ``--json`` keeps
full precision).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accord.cli.common import plain
from accord.cli.render import BOUND_WORDS, readable
from accord.core.numbers import figure, score


def _utilities(summary: Mapping[str, Any]) -> str:
    rec = summary.get("record") or {}
    utils = rec.get("utilities") if isinstance(rec, Mapping) else None
    utils = utils or summary.get("utilities")
    if not isinstance(utils, Mapping) or not utils:
        return ""
    return "; utilities " + ", ".join(f"{p} {score(u)}" for p, u in utils.items())


def _reward(summary: Mapping[str, Any]) -> str:
    """Deliberation's reward against the instance's best (two fixed decimals)."""
    if summary.get("reward") is None:
        return ""
    best = summary.get("max_reward")
    return f"; reward {figure(summary['reward'])}" + (
        f" of a best {figure(best)}" if best is not None else "")


def _detail(summary: Mapping[str, Any]) -> str:
    detail = " ".join(str(summary.get("detail") or "").split())
    if summary.get("reason") == "bound_hit" and detail in BOUND_WORDS:
        return BOUND_WORDS[detail]
    return detail


def quiet_line(summary: Mapping[str, Any], verdict: str | None = None) -> str:
    """The outcome of one episode in one line: the domain's own sentence (``verdict``)
    when it has one, else the status, the round, the terms and the utilities."""
    if verdict is not None:
        return plain(" ".join(verdict.split()))
    status = str(summary.get("status"))
    rec = summary.get("record") or {}
    rounds = summary.get("rounds", summary.get("turns"))
    when = ""
    if rounds is not None:
        when = f" in round {rounds}" if "rounds" in summary else f" after {rounds} turns"
    if status in ("agreement", "agreed"):
        text = f"Agreement{when}"
        if isinstance(rec, Mapping) and rec.get("proposer"):
            text += f" (proposed by {rec['proposer']})"
        terms = rec.get("agreement") if isinstance(rec, Mapping) else None
        if isinstance(terms, Mapping) and terms:
            text += ": " + ", ".join(f"{k}={v}" for k, v in terms.items())
        elif summary.get("decision"):  # deliberation: what the group decided
            d = summary["decision"]
            text += ": " + (", ".join(map(readable, d)) if isinstance(d, list) else readable(d))
        return plain(text + _utilities(summary) + _reward(summary) + ".")
    why, who = summary.get("reason"), summary.get("who")
    head = {"no_deal": "No deal", "error": "Error"}.get(
        status, status.replace("_", " ").capitalize())
    text = head + when + (f" ({why}" + (f", {who}" if who else "") + ")" if why else "")
    if detail := _detail(summary):
        text += f": {detail}"
    return plain(text + _utilities(summary) + _reward(summary) + ".")
