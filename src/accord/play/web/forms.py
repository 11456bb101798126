"""Form data <-> replies for the play pages (pure: no I/O besides listing scenarios)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accord.agents.human.seat import Reply, Turn

DOND_EXAMPLES = ("test/0", "test/1", "test/2", "test/L7", "train/0")
"""Deal-or-No-Deal scenario ids offered on the form (any ``SPLIT/N`` works)."""


def scenario_choices(data: str | None = None) -> dict[str, list[str]]:
    """The built-in scenarios a person can pick, per domain: the same catalogs the app
    accepts (:func:`accord.play.web.games.catalog`), example ids for Deal or No Deal."""
    from accord.play.web.games import catalog

    return {"bargaining": catalog("bargaining"), "deal-or-no-deal": list(DOND_EXAMPLES),
            "games": catalog("games"), "task-exchange": catalog("task-exchange"),
            "deliberation": catalog("deliberation")}


def _text(form: Mapping[str, Any], key: str) -> str | None:
    val = form.get(key)
    text = "" if val is None else str(val).strip()
    return text or None


def reply_from_form(turn: Turn, form: Mapping[str, Any]) -> Reply:
    """The reply a posted move form means (the agent turns it into a typed move)."""
    kind = str(form.get("kind", ""))
    pkg = {k[4:]: str(v) for k, v in form.items() if k.startswith("pkg.")}
    message = _text(form, "message")
    if kind == "offer":
        return {"kind": "offer", "package": pkg, "message": message}
    if kind == "counter":
        return {"kind": "reject", "counter": pkg, "message": message}
    if kind == "reject":
        return {"kind": "reject", "counter": None, "message": message}
    if kind == "accept":
        return {"kind": "accept", "message": message}
    if kind == "walk":
        return {"kind": "walk", "reason": message}
    if kind == "message":
        return {"kind": "message", "text": message or ""}
    if kind == "action":
        return {"kind": "action", "action": str(form.get("action", ""))}
    if kind == "continue":  # task exchange's private first turn
        return {"kind": "continue"}
    if kind == "decide":  # a deliberation leader decides the proposal built in the form
        return {"kind": "decide", "package": pkg, "message": message}
    if kind == "decide-table":  # ... or the one on the table
        return {"kind": "decide", "package": None, "message": message}
    return {"kind": kind[:40]}
