"""Forks and series on the episode page (pure functions over stored rows).

* a **fork** (its spec holds ``fork: {parent, parent_run, at, changes, source?}``) says
  where it branches from: the parent (linked when it is in the same store), the round and
  what changed; its transcript marks the row where the fork starts
  (:func:`accord.serve.transcript.transcript`);
* a **parent** lists its forks from the same store beside itself: outcome, rounds and each
  party's value (the rows of ``accord fork`` / ``accord results --forks``,
  :mod:`accord.bench.lineage`);
* a **series** episode (spec ``series: {id, index, of, ...}``, summary ``series.memory_in``
  and ``series.feedback``) shows its position and the memory and critic's feedback each
  party carried (text the templates escape).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from accord.bench.lineage import changes_text, comparison_rows, value_names
from accord.bench.store import EpisodeRow

#: most forks listed on a parent's page (the busiest studies fork an episode many times)
MAX_FORKS = 50


def fork_view(row: EpisodeRow, parent: EpisodeRow | None, looked_up: bool = True
              ) -> dict[str, Any] | None:
    """Where a fork branches from: ``parent`` (id), ``parent_run``, ``at`` (the round the
    fork starts in), ``changes`` (in words; ``None``: the same seats and parameters),
    ``source`` (the store the parent was read from, if another), ``linked`` (the parent is
    in this store), ``looked_up`` (the store was searched for the parent: the report does
    not, so it claims nothing about where the parent is) and ``rows`` (the parent beside
    this fork) -- or ``None`` for an episode that is not a fork."""
    info = row.spec.get("fork")
    if not isinstance(info, Mapping) or not info.get("parent"):
        return None
    pid = str(info["parent"])
    rows = comparison_rows(parent, pid, [row])
    for r, run in zip(rows, [None if parent is None else parent.run, row.run], strict=True):
        r["run"] = run
    return {"parent": pid, "parent_run": info.get("parent_run"), "at": info.get("at"),
            "changes": changes_text(info.get("changes")) or None,
            "source": info.get("source") if isinstance(info.get("source"), str) else None,
            "linked": parent is not None, "looked_up": looked_up, "rows": rows,
            "names": value_names(rows)}


def forks_view(row: EpisodeRow, forks: Sequence[EpisodeRow]) -> dict[str, Any] | None:
    """An episode's forks beside it (``rows``: the parent first, then each fork with its
    ``run`` for the link; ``names``: the value columns), or ``None`` when it has none."""
    forks = [f for f in forks if f.id != row.id]
    if not forks:
        return None
    rows = comparison_rows(row, row.id, list(forks))
    for r, src in zip(rows, [row, *forks], strict=True):
        r["run"] = src.run
        info = src.spec.get("fork") if src is not row else None
        r["changes"] = changes_text(info.get("changes")) if isinstance(info, Mapping) \
            else None
    return {"rows": rows, "names": value_names(rows), "more": len(forks) >= MAX_FORKS}


def _texts(value: Any) -> list[tuple[str, str]]:
    if not isinstance(value, Mapping):
        return []
    return [(str(k), str(v)) for k, v in value.items() if isinstance(v, str) and v.strip()]


def series_view(row: EpisodeRow) -> dict[str, Any] | None:
    """A series episode's position (``index`` from 1, ``of``), the series ``id``, whether
    memory and a critic were on, and per party the ``memory`` and ``feedback`` it carried
    into this episode (``(party, text)`` pairs), or ``None`` outside a series."""
    spec = row.spec.get("series")
    summ = (row.summary or {}).get("series")
    info = {**(spec if isinstance(spec, Mapping) else {}),
            **(summ if isinstance(summ, Mapping) else {})}
    if not info or not isinstance(info.get("index"), int):
        return None
    fed = summ.get("feedback") if isinstance(summ, Mapping) else None
    return {"id": info.get("id"), "index": int(info["index"]) + 1, "of": info.get("of"),
            "memory_on": info.get("memory"), "critic": info.get("critic"),
            "memory": _texts(info.get("memory_in")),
            # the feedback the critic wrote after this episode (it reaches the next one)
            "feedback": _texts(fed)}


def lineage_view(row: EpisodeRow, parent: EpisodeRow | None = None,
                 forks: Sequence[EpisodeRow] = (), looked_up: bool = True) -> dict[str, Any]:
    """The fork, forks and series parts of an episode page (each ``None`` when absent;
    ``looked_up``: ``parent`` and ``forks`` come from a search of the store)."""
    return {"fork": fork_view(row, parent, looked_up), "forks": forks_view(row, forks),
            "series": series_view(row)}


__all__ = ["MAX_FORKS", "fork_view", "forks_view", "lineage_view", "series_view"]
