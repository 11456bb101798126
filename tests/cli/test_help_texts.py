"""Every command's ``--help`` is text for people: no reStructuredText markup.

``accord task-exchange run --help`` read "the same as ``accord run
task-exchange/<scenario>``" and ``accord configs list --help`` "``accord bench NAME``":
docstring markup shown raw.
"""

from __future__ import annotations

import re

from typer.testing import CliRunner

from accord.cli.main import app

runner = CliRunner()


def _help(*words: str) -> str:
    res = runner.invoke(app, [*words, "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, (words, res.output)
    return res.stdout


def _commands(text: str) -> list[str]:
    if "Commands:" not in text:
        return []
    block = text.split("Commands:", 1)[1]
    return re.findall(r"^  ([a-z][a-z0-9-]*)\s", block, flags=re.M)


def test_no_help_text_shows_raw_markup() -> None:
    top = _help()
    seen = 0
    for cmd in _commands(top):
        text = _help(cmd)
        assert "``" not in text and ":func:" not in text, cmd
        seen += 1
        for sub in _commands(text):
            sub_text = _help(cmd, sub)
            assert "``" not in sub_text and ":func:" not in sub_text, (cmd, sub)
            seen += 1
    assert seen > 40  # every top-level command and every subcommand was read


def test_help_names_no_internal_module_or_repository_path() -> None:
    """``serve --play`` said "(needs accord.play)" and ``leaderboard`` pointed at
    ``docs/leaderboard.md``, a file of the repository an installed accord does not have."""
    serve = " ".join(_help("serve").split())
    assert "accord.play" not in serve and "where a person plays a scenario" in serve
    board = " ".join(_help("leaderboard").split())
    assert "docs/leaderboard.md" not in board
    assert "Every episode is a match between its seats" in board
