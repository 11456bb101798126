"""Text made inert for a terminal: control characters shown, markup escaped."""

from __future__ import annotations

from rich.console import Console

from accord.core.display import inert, inert_markup


def test_control_characters_are_shown_and_newlines_kept() -> None:
    assert inert("bu\x1b[2Jyer\x07\x9b\tok\n") == "bu\\x1b[2Jyer\\x07\\x9b\tok\n"
    assert inert(42) == "42"


def test_markup_is_escaped_and_prints_as_written() -> None:
    console = Console(width=80, no_color=True, record=True)
    console.print(inert_markup("[bold]seller[/bold] \x1b]8;;http://x\x07 [red]x"))
    assert console.export_text().strip() == "[bold]seller[/bold] \\x1b]8;;http://x\\x07 [red]x"
