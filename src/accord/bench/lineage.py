"""Parents and their forks side by side (pure functions over stored rows): the rows
``accord fork``, ``accord show``, ``accord results --forks`` and the web app's episode page
compare -- line-up, outcome, rounds and each party's value.

A fork's stored spec carries ``fork: {parent, parent_run, at, changes, repeat, seed,
source?}`` (:mod:`accord.bench.fork`); :func:`changes_text` says what it changed in words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def party_values(summary: Mapping[str, Any] | None,
                 metrics: Mapping[str, Any] | None = None) -> dict[str, float]:
    """Each party's value in an episode record (utilities, payoffs or points), or the
    group's reward (deliberation); empty when the record has none."""
    record = (summary or {}).get("record") or {}
    for key in ("utilities", "payoffs", "points"):
        got = record.get(key)
        if isinstance(got, Mapping) and got and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in got.values()):
            return {str(k): float(v) for k, v in got.items()}
    m = metrics or {}
    if isinstance(m.get("alice"), (int, float)) and isinstance(m.get("bob"), (int, float)):
        return {"Alice": float(m["alice"]), "Bob": float(m["bob"])}
    if isinstance(m.get("reward"), (int, float)):
        return {"reward": float(m["reward"])}
    return {}


def comparison_row(kind: str, eid: str, lineup: str, summary: Mapping[str, Any] | None,
                   metrics: Mapping[str, Any] | None) -> dict[str, Any]:
    """One compared episode: ``episode`` (``parent`` / ``fork at k``), ``id``,
    ``lineup``, ``status``, ``reason``, ``rounds``, ``values`` (party -> value)."""
    s = summary or {}
    return {"episode": kind, "id": eid, "lineup": lineup, "status": s.get("status"),
            "reason": s.get("reason"), "rounds": s.get("rounds"),
            "values": party_values(s, metrics)}


def fork_label(info: Mapping[str, Any]) -> str:
    """``fork at k`` (``#n`` for the n-th repetition of the same fork)."""
    return f"fork at {info.get('at')}" + (f" #{int(info.get('repeat', 0)) + 1}"
                                          if info.get("repeat") else "")


def fork_groups(episodes: list[Any]) -> list[tuple[Any | None, str, list[Any]]]:
    """Stored episodes grouped by parent: ``(parent row or None, parent id, forks)``, in
    store order (``episodes``: every :class:`~accord.bench.store.EpisodeRow` of a store)."""
    by_id = {e.id: e for e in episodes}
    groups: dict[str, list[Any]] = {}
    for e in episodes:
        info = e.spec.get("fork")
        if isinstance(info, Mapping) and info.get("parent"):
            groups.setdefault(str(info["parent"]), []).append(e)
    return [(by_id.get(pid), pid, forks) for pid, forks in groups.items()]


def comparison_rows(parent: Any | None, parent_id: str, forks: list[Any]) -> list[dict[str, Any]]:
    """The parent's row (or a placeholder when it is not at hand), then each fork's."""
    rows = []
    if parent is not None:
        rows.append(comparison_row("parent", parent.id, parent.lineup, parent.summary,
                                   parent.metrics))
    else:
        rows.append({"episode": "parent (not in this store)", "id": parent_id, "lineup": "–",
                     "status": None, "reason": None, "rounds": None, "values": {}})
    for f in forks:
        rows.append(comparison_row(fork_label(f.spec.get("fork") or {}), f.id, f.lineup,
                                   f.summary, f.metrics))
    return rows


def value_names(rows: list[dict[str, Any]]) -> list[str]:
    """The parties (value columns) of compared rows, in first-seen order."""
    names: list[str] = []
    for r in rows:
        names += [n for n in r["values"] if n not in names]
    return names


def changes_text(changes: Mapping[str, Any] | None) -> str:
    """A fork's changes in words (``agents: buyer=hardliner; params: ...``), or ``""``
    when it changed nothing (same seats and parameters)."""
    return "; ".join(f"{k}: " + ", ".join(f"{a}={b}" for a, b in v.items())
                     if isinstance(v, Mapping) else f"{k}: {v}"
                     for k, v in (changes or {}).items())


__all__ = ["changes_text", "comparison_row", "comparison_rows", "fork_groups", "fork_label",
           "party_values", "value_names"]
