"""``accord import FORMAT PATH``: another tool's scenario files as accord scenario YAML."""

from __future__ import annotations

from pathlib import Path

import typer

from accord.cli import common as c

IMPORT_EXAMPLES = c.example(
    "accord import genius path/to/anac-domain-folder --out scenarios/",
    "accord import genius domain.xml,party1.xml,party2.xml",
    "accord import geniusweb profileA.json,profileB.json --json",
    "accord run genius:path/to/anac-domain-folder --agents boulware,conceder",
    "accord import negotiationarena NegotiationArena/example_logs/buysell/1707347676639",
    "accord import negotiationarena-log NegotiationArena/example_logs --out runs/na.db",
    "accord import llm-deliberation LLM-Deliberation/games_descriptions/base --out scenarios/")

#: the pseudo-format that imports NegotiationArena logs as episodes (into the --out store)
LOG_FORMAT = "negotiationarena-log"


def import_command(
    fmt: str = typer.Argument(..., metavar="FORMAT", help="genius, geniusweb, "
                              "negotiationarena, llm-deliberation (alias scorable-games), "
                              "or a format an installed package adds; "
                              f"{LOG_FORMAT} imports logs as episodes into the --out store."),
    path: str = typer.Argument(..., metavar="PATH", help="A folder, or FILE,FILE,... "),
    out: Path = c.out_option("Folder to write the scenario YAML file into (with "
                             f"{LOG_FORMAT}: the results store, e.g. runs/na.db).",
                             default=Path(".")),
    force: bool = typer.Option(False, "--force", help="Replace a scenario file of the same "
                               "name in the --out folder."),
    max_outcomes: int | None = typer.Option(None, "--max-outcomes", min=1, metavar="N",
                                            help="Accept a domain of more outcomes than the "
                                            "default cap (as accord run's --max-outcomes)."),
    as_json: bool = c.json_option(),
) -> None:
    """Import another tool's negotiation domain as an accord bargaining scenario file (or,
    with negotiationarena-log, its logs as read-only episodes of a results store)."""
    if fmt == LOG_FORMAT:  # --out is the store (the CLI's one spelling for results)
        _import_logs(path, out if out != Path(".") else None, as_json)
        return
    from accord.core.outcomes import DEFAULT_MAX_OUTCOMES
    from accord.domains.bargaining.load import ScenarioError, parse_text
    from accord.formats import FormatError, import_path, scenario_yaml, write_scenario
    from accord.formats.write import file_name

    try:
        imported = import_path(fmt, path)
        # the text to be written, read as accord will read the file: refuse what cannot load
        scenario = parse_text(scenario_yaml(imported), f"{fmt}:{path}",
                              DEFAULT_MAX_OUTCOMES if max_outcomes is None else max_outcomes)
    except (FormatError, ScenarioError) as exc:
        raise c.fail(str(exc)) from None
    target = out / file_name(imported.data)
    if target.exists() and not force:
        raise c.fail(f"{target} exists (an earlier import, perhaps edited since); give "
                     "--force to replace it or --out another folder")
    try:
        written = write_scenario(imported, out)
    except OSError as exc:
        raise c.fail(f"--out {out}: cannot write {target.name}: "
                     f"{exc.strerror or exc}", c.EXIT_FAILED) from None
    if as_json:
        c.emit_json({"format": fmt, "source": path, "written": str(written),
                     "scenario": scenario.name, "parties": list(scenario.party_names),
                     "outcomes": scenario.space.size, "notes": list(imported.notes)})
        return
    console = c.console()
    console.print(f"wrote {c.plain(written)}: scenario {c.plain(scenario.name)} with "
                  f"{len(scenario.space.issues)} issues, {scenario.space.size} outcomes, "
                  f"parties {c.plain(', '.join(scenario.party_names))}")
    for note in imported.notes:
        console.print(f"[yellow]note[/]: {c.plain(note)}")


def _import_logs(path: str, store: Path | None, as_json: bool) -> None:
    """``accord import negotiationarena-log PATH --out STORE``."""
    from accord.bench.store import StoreError
    from accord.formats import FormatError
    from accord.formats.negotiationarena_log import import_logs

    if store is None:
        raise c.fail(f"{LOG_FORMAT} needs --out STORE (the results store to import into, "
                     "e.g. runs/na.db)")
    try:
        done = import_logs(path, store)
    except FormatError as exc:
        raise c.fail(str(exc)) from None
    except StoreError as exc:
        raise c.fail(f"--out {store}: {exc}", c.EXIT_FAILED) from None
    if as_json:
        c.emit_json({"store": str(store), "episodes": done})
        return
    console = c.console()
    for d in done:
        deal = (", ".join(f"{k}={v}" for k, v in d["agreement"].items())
                if d["agreement"] else "no deal")
        console.print(f"{d['episode']}: {c.plain(d['source'])}: {d['status']} ({deal}, "
                      f"{d['turns']} turns)")
    console.print(f"imported {len(done)} NegotiationArena log(s) into {c.plain(store)} "
                  f"(run {done[0]['run']}; read-only: accord show {c.plain(store)} "
                  f"{done[0]['episode'][:6]})")
