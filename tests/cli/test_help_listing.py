"""``accord --help`` lists the lazy commands and the domains' command groups from a table
(:data:`accord.cli.main.LAZY_HELP`, :data:`accord.cli.main.GROUP_HELP`) instead of
importing them (issue 30): the table must say exactly what the commands themselves say,
and the listing must read exactly as it did when every command was imported to build it.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import Any

import pytest
import typer
from typer.core import TyperCommand

from accord.cli import common as c
from accord.cli.main import GROUP_HELP, LAZY_COMMANDS, LAZY_HELP, _lazy_command, app

#: the module (``accord.cli.main`` is also the name of a function of ``accord.cli``)
cli_main = importlib.import_module("accord.cli.main")

#: widths of the command list's help column to compare at (narrow ones cut with "...")
LIMITS = (10, 25, 38, 45, 52, 61, 70, 77, 90, 120, 200, 10_000)


def _root() -> Any:
    return typer.main.get_command(app)


def _built_group(name: str) -> Any:
    root = _root()
    return root.get_command(root.context_class(root, info_name="accord"), name)


def _same_short_help(listed: str, real: Any) -> None:
    for limit in LIMITS:
        assert (TyperCommand("x", help=listed).get_short_help_str(limit=limit)
                == real.get_short_help_str(limit=limit)), (real.name, limit)


@pytest.mark.parametrize("name", sorted(LAZY_COMMANDS))
def test_lazy_help_is_the_commands_own(name: str) -> None:
    cmd = _lazy_command(name)
    assert not cmd.hidden and not cmd.deprecated and not cmd.short_help
    _same_short_help(LAZY_HELP[name], cmd)


def test_every_lazy_command_has_its_help_listed() -> None:
    assert set(LAZY_HELP) == set(LAZY_COMMANDS)


@pytest.mark.parametrize("target", sorted(GROUP_HELP))
def test_group_help_is_the_groups_own(target: str) -> None:
    name = next(n for n, t in c.command_groups().items() if t == target)
    _same_short_help(GROUP_HELP[target], _built_group(name))


def test_group_help_covers_accords_own_entry_points() -> None:
    ours = {ep.value for ep in entry_points(group=c.COMMANDS_GROUP)
            if ep.value.startswith("accord.")}
    if not ours:
        pytest.skip("accord is not installed with its entry points in this environment")
    assert ours == set(GROUP_HELP)


def _listing(width: int) -> tuple[str, Any]:
    root = _root()
    ctx = root.context_class(root, info_name="accord", terminal_width=width,
                             max_content_width=width)
    return root.get_help(ctx), root


@pytest.mark.parametrize("width", [50, 80, 100, 200])
def test_the_listing_reads_as_when_every_command_was_imported(
        width: int, monkeypatch: pytest.MonkeyPatch) -> None:
    text, root = _listing(width)
    assert set(root.commands) == {"run", "analyze", "demo"}  # nothing else was built
    # before the table: every lazy command and entry-point group imported and asked
    monkeypatch.setattr(cli_main, "_listed_help", lambda name, groups: None)
    before, root = _listing(width)
    assert set(root.commands) > set(LAZY_COMMANDS) | set(c.command_groups()) - set(c.GROUPS)
    assert text == before
    assert "Commands:" in text and "series" in text and "task-exchange" in text


def test_a_plugin_group_is_still_imported_to_list_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A group not in the table (a plug-in's) is imported and asked for its help, as before."""
    groups = {**c.command_groups(), "zz-extra": "accord.cli.cache:app"}
    monkeypatch.setattr(c, "command_groups", lambda: groups)
    root = _root()
    text = root.get_help(root.context_class(root, info_name="accord", terminal_width=200,
                                            max_content_width=200))
    assert "zz-extra" in text and "zz-extra" in root.commands
    assert "Inspect or clear an LLM completion cache" in text.split("zz-extra", 1)[1]
