"""``accord configs``: the experiment specs that ship with accord (list, show, copy)."""

from __future__ import annotations

from pathlib import Path

import typer

from accord.cli import common as c

app = c.group_app("configs")


def _text(name: str) -> str:
    from accord import configs

    try:
        return configs.text(name)
    except KeyError as exc:
        raise c.fail(str(exc.args[0])) from None


@app.command("list", epilog=c.example("accord configs list", "accord configs list --json"))
def list_cmd(as_json: bool = c.json_option()) -> None:
    """The shipped specs, each with what it is for (run one with: accord bench NAME)."""
    from accord import configs

    rows = [{"name": n, "description": configs.description(n)} for n in configs.names()]
    if as_json:
        c.emit_json({"configs": rows})
        return
    from rich.table import Table

    t = Table("name", "what")
    for r in rows:
        t.add_row(r["name"], c.plain(r["description"]))
    c.console().print(t)


@app.command("show", epilog=c.example("accord configs show demo"))
def show_cmd(name: str = typer.Argument(..., help="A shipped spec name, e.g. demo.")) -> None:
    """Print a shipped spec's YAML."""
    typer.echo(_text(name), nl=False)


@app.command("copy", epilog=c.example("accord configs copy demo .",
                                      "accord configs copy games_tables5_8 my-configs/"))
def copy_cmd(name: str = typer.Argument(..., help="A shipped spec name, e.g. demo."),
             dest: Path = typer.Argument(Path("."), help="Folder (or file path) to write to."),
             force: bool = typer.Option(False, "--force", help="Overwrite an existing file."),
             ) -> None:
    """Copy a shipped spec into a folder so you can edit it."""
    body = _text(name)
    key = name[:-5] if name.endswith(".yaml") else name
    target = dest / f"{key}.yaml" if dest.is_dir() or not dest.suffix else dest
    if not target.parent.exists():
        raise c.fail(f"folder {target.parent} does not exist")
    if target.exists() and not force:
        raise c.fail(f"{target} exists; pass --force to overwrite it")
    target.write_text(body, encoding="utf-8")
    typer.echo(f"wrote {target}")
