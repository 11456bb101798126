"""``accord cache``: inspect and empty an LLM completion cache file.

Register in the main app with ``app.add_typer(cache.app)`` (name ``cache``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from accord.cli import common as c

if TYPE_CHECKING:
    from accord.llm.cache import CompletionCache

app = c.group_app("cache")


def _open(path: Path) -> CompletionCache:
    from accord.llm.cache import CacheMode, CompletionCache
    from accord.llm.errors import CacheError

    if not path.exists():
        raise typer.BadParameter(f"no cache file at {path}", param_hint="PATH")
    try:
        return CompletionCache(path, CacheMode.RW)
    except CacheError as exc:
        raise typer.BadParameter(str(exc), param_hint="PATH") from exc


@app.command(epilog=c.example("accord cache stats runs/llm.db --json"))
def stats(path: Path = typer.Argument(..., help="cache file"),
          as_json: bool = c.json_option()) -> None:
    """Entries, tokens and recorded latency per model."""
    from rich.table import Table

    with _open(path) as cache:
        data = cache.stats()
    if as_json:
        c.emit_json(data)
        return
    table = Table(title=f"{data['path']}: {data['entries']} entries, {data['bytes']} bytes")
    for column in ("model", "entries", "episodes", "prompt", "completion", "cached", "latency s"):
        table.add_column(column, justify="left" if column == "model" else "right")
    for model, row in data["models"].items():
        table.add_row(c.plain(model), str(row["entries"]), str(row["episodes"]),
                      str(row["prompt_tokens"]), str(row["completion_tokens"]),
                      str(row["cached_tokens"]), f"{row['latency_s']:.1f}")
    c.console().print(table)


@app.command(epilog=c.example("accord cache clear runs/llm.db --yes"))
def clear(path: Path = typer.Argument(..., help="cache file"),
          yes: bool = typer.Option(False, "--yes", "-y", help="do not ask for confirmation"),
          ) -> None:
    """Delete every cached completion in PATH."""
    with _open(path) as cache:
        if not yes:
            n = cache.stats()["entries"]
            typer.confirm(f"Delete all {n} cached completions in {path}?", abort=True)
        removed = cache.clear()
    typer.echo(f"removed {removed} cached completion(s) from {path}")
