"""The brief and the debrief in the terminal: rich tables and sentences.

Both render plain data (:mod:`accord.agents.human.brief`, :mod:`accord.play.debrief`);
every text that did not come from accord itself goes through
:func:`accord.cli.common.plain`, so it is never markup or a control sequence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from accord.agents.human.brief import num
from accord.cli.common import plain

MAX_ROWS = 24
"""Rows of a brief's table shown at the first turn (the ``brief`` command shows all)."""


def _cell(cell: Any) -> str:
    if isinstance(cell, Mapping):  # a game's payoff cell: the person's own payoff first
        other = cell.get("other")
        return f"[bold]{plain(cell.get('you'))}[/]" + (f" / {plain(other)}" if other else "")
    return plain(cell)


def print_table(console: Console, tab: Mapping[str, Any], max_rows: int | None = None) -> None:
    """One brief table; ``max_rows`` cuts it, saying how many rows were left out."""
    rows: Sequence[Sequence[Any]] = tab.get("rows") or []
    t = Table(*[plain(c) for c in tab.get("columns") or []], title=plain(tab.get("caption")),
              title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for row in rows[:max_rows] if max_rows else rows:
        t.add_row(*[_cell(c) for c in row])
    console.print(t)
    if max_rows and len(rows) > max_rows:
        console.print(f"  ... {len(rows) - max_rows} more rows: type [cyan]brief[/] to see "
                      "them all")


def print_brief(console: Console, brief: Mapping[str, Any], full: bool = False) -> None:
    """The person's private brief: the scenario, the facts, their preference tables."""
    console.rule(f"your brief: {plain(brief.get('title'))}")
    if brief.get("description"):
        console.print(plain(brief["description"]))
    for label, text in brief.get("facts") or []:
        console.print(f"  {plain(label)}: [bold]{plain(text)}[/]")
    for tab in brief.get("tables") or []:
        print_table(console, tab, None if full else MAX_ROWS)
    console.print("Only you see this brief.")


def print_debrief(console: Console, data: Mapping[str, Any], seat: str | None = None
                  ) -> None:
    """The debrief in words and numbers: outcome, the other side revealed, the gap;
    ``seat`` names the seat in the heading (hot-seat play: ``Seat 2, seller``)."""
    console.rule(f"debrief: {plain(seat or data.get('role'))}")
    for sentence in data.get("sentences") or []:
        console.print(plain(sentence))
    print_table(console, {"caption": "", "columns": data.get("columns") or [],
                          "rows": data.get("rows") or []})
    if data.get("l2_to_pareto") is not None:
        # rounded as the sentences above round (0, not 0.000)
        console.print(f"Distance to the Pareto frontier: {num(data['l2_to_pareto'])}.")
    if data.get("optimal") is not None:
        console.print(f"A best decision: {plain(_text(data['optimal']))}.")
    flags = data.get("flags") or []
    console.print("Flags: " + (plain(" ".join(flags)) if flags else "none."))


def _text(x: Any) -> str:
    if isinstance(x, Mapping):
        return "; ".join(f"{k} -> {v}" for k, v in x.items())
    if isinstance(x, list | tuple):
        return ", ".join(map(str, x))
    return str(x)


__all__ = ["MAX_ROWS", "print_brief", "print_debrief", "print_table"]
