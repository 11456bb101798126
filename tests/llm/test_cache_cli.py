"""``accord cache stats|clear`` (the typer sub-app in accord.cli.cache)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from accord.cli.cache import app
from accord.llm import CallScope, Completion, CompletionCache, Usage, resolve_model

runner = CliRunner()


def _filled(path: Path) -> Path:
    endpoint = resolve_model("mock/echo", {})
    with CompletionCache(path) as cache:
        for i in range(4):
            cache.put_sync(f"k{i}", Completion("t", Usage(10, 2, 5), 0.1, "mock/echo", "mock"),
                           endpoint, CallScope(f"e{i}", "a", 0))
    return path


def test_stats_json_prints_one_object(tmp_path: Path) -> None:
    path = _filled(tmp_path / "c.sqlite")
    result = runner.invoke(app, ["stats", str(path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["entries"] == 4 and data["models"]["mock/echo"]["prompt_tokens"] == 40
    table = runner.invoke(app, ["stats", str(path)])
    assert table.exit_code == 0 and "mock/echo" in table.stdout


def test_clear_asks_unless_yes(tmp_path: Path) -> None:
    path = _filled(tmp_path / "c.sqlite")
    refused = runner.invoke(app, ["clear", str(path)], input="n\n")
    assert refused.exit_code != 0
    with CompletionCache(path) as cache:
        assert cache.stats()["entries"] == 4
    done = runner.invoke(app, ["clear", str(path), "--yes"])
    assert done.exit_code == 0 and "removed 4" in done.stdout
    with CompletionCache(path) as cache:
        assert cache.stats()["entries"] == 0


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["stats", str(tmp_path / "nope.sqlite")])
    assert result.exit_code == 2 and "no cache file" in result.output
    assert not (tmp_path / "nope.sqlite").exists()
