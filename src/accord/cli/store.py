"""``accord store``: check a results store and recover what a damaged one still holds."""

from __future__ import annotations

from pathlib import Path

import typer

from accord.cli import common as c

app = c.group_app("store")


@app.callback()
def _group() -> None:
    """Check a results store; recover a damaged one's episodes."""


@app.command("check", epilog=c.example("accord store check runs/demo.db",
                                        "accord store check runs/demo.db --repair fixed.db",
                                        "accord store check runs/demo.db --json"))
def check_cmd(path: Path = typer.Argument(..., help="results store (SQLite file)"),
              repair: Path | None = typer.Option(None, "--repair", metavar="OUT",
                                                 help="Copy every readable episode (and "
                                                 "run, session, approval) into the new "
                                                 "store OUT; PATH is never changed."),
              as_json: bool = c.json_option()) -> None:
    """Check a results store: SQLite's integrity check, then every episode read row by row.

    Exit status: 0 the store is whole (with --repair: the copy is written), 1 damage was
    found, 2 PATH is not an accord store or cannot be read. Episodes on pages SQLite can no
    longer reach at all (neither the table nor its indexes name them) cannot be counted.
    """
    from accord.bench.store import StoreError
    from accord.bench.storecheck import check_store, repair_store

    try:
        report = check_store(path) if repair is None else repair_store(path, repair)
    except StoreError as exc:
        raise c.fail(str(exc)) from None
    if report.not_a_store is not None:
        raise c.fail(f"{path} is not an accord store ({report.not_a_store})")
    data = report.to_dict()
    if repair is not None:
        data["repaired"] = {"out": str(repair), "episodes": report.readable,
                            "lost": report.lost,
                            "trajectories_lost": report.trajectories_lost}
    if as_json:
        c.emit_json(data)
    else:
        _print(report, repair)
    if repair is None and not report.ok:
        raise typer.Exit(c.EXIT_FAILED)


def _print(report: object, repair: Path | None) -> None:
    from accord.bench.storecheck import CheckReport

    assert isinstance(report, CheckReport)
    con = c.console()
    sqlite = "ok" if report.integrity == ["ok"] else "; ".join(report.integrity[:5])
    con.print(f"{c.plain(report.path)}: format {report.format}"
              + (" (read-only media: read immutable)" if report.immutable else ""))
    con.print(f"SQLite integrity: {c.plain(sqlite)}")
    con.print(f"episodes: {report.episodes} found, {report.readable} readable, "
              f"{report.lost} unreadable; trajectories unreadable: "
              f"{report.trajectories_lost}")
    for line in report.unreadable[:10]:
        con.print(f"  - {c.plain(line)}")
    if len(report.unreadable) > 10:
        con.print(f"  ... {len(report.unreadable) - 10} more (--json lists up to 20)")
    if repair is not None:
        con.print(f"repaired copy: {c.plain(repair)} with {report.readable} episode(s)"
                  + (f"; {report.lost} lost" if report.lost else ""))
    elif report.ok:
        con.print("the store is whole")
    else:
        con.print(f"damaged: recover the readable episodes with `accord store check "
                  f"{c.plain(report.path)} --repair NEW.db`")


__all__ = ["app", "check_cmd"]
