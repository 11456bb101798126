"""The terminal tables of ``accord results`` and ``accord bench`` show names inert.

A metric is named after a party (``u_<party>``) and a group after a scenario, both read
from files: a control sequence in them is shown as ``\\x1b``, never sent to the terminal,
and rich markup in them is shown as written, never rendered.
"""

from __future__ import annotations

import io

from rich.console import Console

from accord.bench import EpisodeRow, aggregate
from accord.bench.tables import print_table

ESC_PARTY = "bu\x1b[2Jyer"
MARKUP_PARTY = "[bold]seller[/bold]"


def _row(i: int, scenario: str) -> EpisodeRow:
    spec = {"domain": "bargaining", "scenario": scenario, "agents": ["a", "b"],
            "params": {}, "seed": i, "repeat": 0}
    metrics = {"agreement": True, f"u_{ESC_PARTY}": 0.5, f"u_{MARKUP_PARTY}": 0.25}
    return EpisodeRow("r", f"id{i}", i, spec, {"lineup": "a vs b", "agents": ["a", "b"]},
                      "done", "agreement", None, metrics, None, None, 0.1, 1, 0.0)


def _printed(group_by: list[str], force_terminal: bool) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=200, force_terminal=force_terminal, no_color=True)
    agg = aggregate([_row(i, "evil\x1b]0;title\x07.yaml") for i in range(4)], group_by)
    print_table(console, agg, title="store [red]x[/red]")
    return buf.getvalue()


def test_names_from_files_are_shown_inert_in_the_results_table() -> None:
    for group_by in (["scenario"], ["seed"]):  # metrics as rows, then as columns (4 groups)
        out = _printed(group_by, force_terminal=False)
        assert "\x1b" not in out and "\x07" not in out
        assert "u_bu\\x1b[2Jyer" in out
        assert "u_[bold]seller[/bold]" in out  # the markup as written, not rendered
        assert "store [red]x[/red]" in out
    assert "evil\\x1b]0;title\\x07.yaml" in _printed(["scenario"], force_terminal=False)


def test_a_terminal_gets_no_control_sequence_from_a_name() -> None:
    out = _printed(["scenario"], force_terminal=True)
    assert "\x1b[2J" not in out and "\x1b]0;" not in out and "\x07" not in out
