"""The person's private brief: what a seat shows first, in every domain and front end.

A brief is plain JSON-ready data (so the terminal and the browser render the same thing):

* ``title`` and ``description`` -- the scenario in words;
* ``facts`` -- ``[label, text]`` pairs (BATNA, rounds left, your role...);
* ``tables`` -- :func:`table` dicts: a caption, column names and rows of cells. A cell is
  a string, or ``{"you": ..., "other": ...}`` for a payoff cell of a public game, where
  the person's own payoff is highlighted.

Every number in a brief is already rounded for people (:func:`num`); nothing in it is
private to any other party.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from accord.core.outcomes import OutcomeSpace
from accord.core.utility import UtilityFunction

Cell = str | Mapping[str, str]
"""A table cell: text, or ``{"you": ..., "other": ...}`` (a game's payoff cell)."""


def num(x: float | int | None, digits: int = 3) -> str:
    """``x`` rounded for people: ``0.4``, ``0.725``, ``12`` (``-`` for ``None``)."""
    if x is None:
        return "-"
    if isinstance(x, int) or float(x).is_integer():
        return str(int(x))
    return f"{float(x):.{digits}f}".rstrip("0").rstrip(".")


def table(caption: str, columns: Sequence[str], rows: Sequence[Sequence[Cell]],
          key: str = "") -> dict[str, Any]:
    """A brief's table: ``key`` names it for pages and tests (``preferences``, ``items``)."""
    return {"key": key, "caption": caption, "columns": list(columns),
            "rows": [list(r) for r in rows]}


def make_brief(title: str, description: str, facts: Sequence[tuple[str, str]],
               tables: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A brief from its parts (see the module docstring)."""
    return {"title": title, "description": " ".join(description.split()),
            "facts": [[k, v] for k, v in facts], "tables": [dict(t) for t in tables]}


def preference_tables(utility: UtilityFunction, space: OutcomeSpace) -> list[dict[str, Any]]:
    """The person's preferences over a negotiation's issues, as tables.

    An additive utility gives one row per issue value: the issue, its weight, the value
    and the value's score (``utility = sum of weight x score``). Any other utility gives
    its best packages, best first (at most 20 rows).
    """
    from accord.agents.utility_render import utility_payload

    payload = utility_payload(utility, space, 0.0)
    if "weights" in payload:
        rows: list[list[Cell]] = []
        for issue, weight in payload["weights"].items():
            scores = payload["values"][issue]
            best = max(scores.values(), default=0.0)
            for value, score in scores.items():
                rows.append([issue, num(weight), value, num(score),
                             "best" if score == best and best > 0 else ""])
        return [table("Your preferences: utility = sum over issues of weight x score",
                      ["issue", "weight", "value", "score", ""], rows, "preferences")]
    ranked = sorted(payload["table"], key=lambda r: -r["utility"])[:20]
    return [table("Your best packages (utility of the whole package)",
                  ["package", "utility"],
                  [[", ".join(f"{k}={v}" for k, v in r["package"].items()), num(r["utility"])]
                   for r in ranked], "preferences")]


def rounds_left(round_: int, max_rounds: int) -> str:
    """``"3 of 10 (this one included)"``: the rounds a person still has."""
    left = max(max_rounds - round_ + 1, 0)
    return f"{left} of {max_rounds} (this one included)"


__all__ = ["Cell", "make_brief", "num", "preference_tables", "rounds_left", "table"]
