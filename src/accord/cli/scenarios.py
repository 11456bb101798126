"""``accord scenarios``: list the built-in scenarios of every domain, or write one out as
an editable file (``accord scenarios show NAME [--out FILE]``)."""

from __future__ import annotations

from pathlib import Path

import typer

from accord.cli import common as c

app = typer.Typer(name="scenarios", help=c.GROUPS["scenarios"][1], invoke_without_command=True,
                  add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None,
                  context_settings={"help_option_names": ["-h", "--help"]})


#: names a domain's row of the table shows before "... (N in all)"
SHOWN = 12


@app.callback(epilog=c.example("accord scenarios", "accord scenarios --json",
                               "accord scenarios --domain games",
                               "accord scenarios show bargaining/buyer-seller --out my.yaml"))
def scenarios(ctx: typer.Context, as_json: bool = c.json_option(),
              domain: str | None = typer.Option(None, "--domain", "-d", metavar="DOMAIN",
                                                help="Only this domain, every scenario "
                                                "listed, one per line.")) -> None:
    """List the built-in scenarios of every domain (``show NAME`` writes one as a file)."""
    if ctx.invoked_subcommand is not None:
        return
    from accord.core.names import unknown_name
    from accord.domains import domain_names, list_domain_scenarios, registered_domains

    # each domain lists its names without importing its agents or LLM layer (a cheap
    # listing); a plug-in that fails to load is skipped with a warning, as before
    rows: dict[str, list[str]] = {}
    hints: dict[str, str] = {}
    names = sorted({*domain_names(), *registered_domains()})
    if domain is not None:
        if domain not in names:
            raise c.fail(unknown_name("domain", domain, names))
        names = [domain]
    for name in names:
        try:
            rows[name], hints[name] = list_domain_scenarios(name)
        except ImportError as exc:
            c.warn(str(exc))
    if as_json:
        c.emit_json({"domains": {name: {"scenarios": items, **(
            {} if items else {"hint": hints[name]})} for name, items in rows.items()}})
        return
    if domain is not None:  # one domain in full: one name a line, for a person or grep
        items = rows.get(domain, [])
        if not items:
            raise c.fail(hints.get(domain) or f"domain {domain!r} lists no scenarios")
        typer.echo("\n".join(f"{domain}/{item}" for item in items))
        return
    from rich.table import Table

    t = Table("domain", "scenarios")
    cut = False
    for name, items in rows.items():
        shown = ", ".join(items[:SHOWN]) + (f", ... ({len(items)} in all)"
                                            if len(items) > SHOWN else "")
        cut = cut or len(items) > SHOWN
        t.add_row(name, c.plain(shown if items else hints[name]))
    c.console().print(t)
    if cut:
        c.console().print("accord scenarios --domain DOMAIN lists every scenario of a domain.",
                          highlight=False)


@app.command("show", epilog=c.example(
    "accord scenarios show bargaining/buyer-seller --out my-scenario.yaml",
    "accord scenarios show games/stag-hunt",
    "accord scenarios show task-exchange/competitive --out mine.yaml",
    "accord scenarios show deliberation/menu-numeric/3 --out menu3.json"))
def show(name: str = typer.Argument(..., metavar="DOMAIN/NAME",
                                    help="A built-in scenario, e.g. bargaining/buyer-seller "
                                    "(a bare name is a bargaining scenario)."),
         out: Path | None = typer.Option(None, "--out", "-o", metavar="FILE",
                                         help="Write it to FILE (refuses to overwrite without "
                                         "--force) instead of printing it."),
         force: bool = typer.Option(False, "--force", help="Overwrite an existing FILE.")
         ) -> None:
    """Print a built-in scenario in its file form, or write it to FILE to edit and run."""
    from accord.cli.scenario_files import NoFileForm, scenario_file

    try:
        found = scenario_file(name)
    except NoFileForm as exc:
        raise c.fail(str(exc)) from None
    if out is None:
        typer.echo(found.text, nl=not found.text.endswith("\n"))
        return
    if out.is_dir():
        raise c.fail(f"{out} is a folder; give a file name, e.g. {out / found.filename}")
    if out.exists() and not force:
        raise c.fail(f"{out} exists; pass --force to overwrite it")
    if not out.parent.exists():
        raise c.fail(f"no folder {out.parent} to write {out.name} into")
    want, got = Path(found.filename).suffix, out.suffix.lower()
    if got not in ({".yaml", ".yml"} if want in (".yaml", ".yml") else {want}):
        raise c.fail(f"{name} is a {want} file; give FILE that suffix (not {got or 'none'})")
    out.write_text(found.text, encoding="utf-8")
    typer.echo(c.inert(f"Wrote {out}. Edit it, then run it: {found.run.format(file=out)}"),
               err=True)
