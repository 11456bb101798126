"""The ``accord`` command: thin wiring from arguments to the library."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from accord import __version__
from accord.cli.bench import bench_command, results_command, show_command
from accord.cli.run import (
    analyze_command,
    check_log_path,
    fail,
    llm_settings,
    run_bargaining,
    run_domain,
)

app = typer.Typer(
    name="accord",
    help="Negotiation and deliberation between agents: run, analyse and benchmark.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

#: sub-command groups: (module, attribute); each module defines a typer app
SUBAPPS: tuple[tuple[str, str], ...] = (
    ("accord.cli.dond", "app"),
    ("accord.cli.task_exchange", "app"),
    ("accord.cli.deliberation", "app"),
    ("accord.cli.cache", "app"),
    ("accord.cli.games", "app"),
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"accord {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="print the version and exit")) -> None:
    """accord: negotiation and deliberation between agents."""


@app.command()
def scenarios() -> None:
    """List the built-in scenarios of every domain."""
    from accord.domains import all_domains

    t = Table("domain", "scenarios")
    for name, dom in sorted(all_domains().items()):
        items = dom.scenarios()
        shown = ", ".join(items[:12]) + (f", ... ({len(items)} in all)" if len(items) > 12 else "")
        if not items:
            shown = getattr(dom, "scenarios_hint", "none installed")
        t.add_row(name, shown)
    Console().print(t)


@app.command()
def run(
    target: str = typer.Argument(..., help="DOMAIN/SCENARIO (e.g. bargaining/buyer-seller) "
                                 "or a bargaining scenario PATH.yaml"),
    agents: str = typer.Option(..., "--agents", "-a", help="comma-separated agent specs, "
                               "one per party, e.g. boulware,conceder"),
    seed: int = typer.Option(0, "--seed", help="random seed"),
    max_rounds: int | None = typer.Option(None, "--max-rounds", help="round cap"),
    log: Path | None = typer.Option(None, "--log", help="write the trajectory as JSONL"),
    as_json: bool = typer.Option(False, "--json", help="print exactly one JSON object"),
    mediator: str | None = typer.Option(None, "--mediator", help="mediator spec, e.g. midpoint"),
    judge: str | None = typer.Option(None, "--judge", help="termination judge spec (rules)"),
    stagnation_rounds: int | None = typer.Option(
        None, "--stagnation-rounds", help="rounds without concession before the stagnation "
        "rule fires (0 disables; default 3)"),
    acceptance: int | None = typer.Option(None, "--acceptance",
                                          help="k-of-n acceptance (default unanimous)"),
    strategy: str = typer.Option("utility-aware", "--strategy",
                                 help="task-exchange: utility-aware | baseline"),
    instance: int = typer.Option(0, "--instance", help="deliberation: instance number"),
    tools: bool = typer.Option(False, "--tools", help="deliberation: give agents tools"),
    cache: Path | None = typer.Option(None, "--cache", help="LLM cache file (SQLite)"),
    cache_mode: str = typer.Option("rw", "--cache-mode", help="LLM cache: off | rw | replay"),
    max_offers: int | None = typer.Option(None, "--max-offers", help="cap on offers made"),
    wall_clock: float | None = typer.Option(None, "--wall-clock",
                                            help="wall-clock limit in seconds"),
) -> None:
    """Run one episode and print its transcript and record (or JSON)."""
    domain, _, rest = target.partition("/")
    llm = llm_settings(cache, cache_mode)
    check_log_path(log)
    if domain == "bargaining" or (domain not in RUN_DOMAINS
                                  and target.endswith((".yaml", ".yml"))):
        params: dict[str, Any] = {}
        for key, val in (("mediator", mediator), ("judge", judge),
                         ("stagnation_rounds", stagnation_rounds), ("acceptance", acceptance),
                         ("max_offers", max_offers), ("wall_clock", wall_clock)):
            if val is not None:
                params[key] = val
        run_bargaining(target, agents, seed, max_rounds, log, as_json, params, llm)
        return
    if domain not in RUN_DOMAINS:
        raise fail(f"unknown domain {domain!r} in {target!r}; use one of "
                   f"{', '.join(['bargaining', *RUN_DOMAINS])}, or a scenario PATH.yaml")
    run_domain(domain, rest, agents=agents, seed=seed, max_rounds=max_rounds, log=log,
               as_json=as_json, strategy=strategy, instance=instance, tools=tools, llm=llm)


#: domains ``accord run DOMAIN/...`` accepts besides bargaining (games also have
#: ``accord games play``, deal-or-no-deal ``accord dond play`` for whole data sets)
RUN_DOMAINS: tuple[str, ...] = ("task-exchange", "deliberation", "deal-or-no-deal", "games")

app.command("analyze")(analyze_command)
app.command("bench")(bench_command)
app.command("results")(results_command)
app.command("show")(show_command)


@app.command()
def demo(quick: bool = typer.Option(False, "--quick", help="shorter tour")) -> None:
    """The built-in offline tour: no API key, no server."""
    from accord.cli.demo import tour

    tour(Console(), quick=quick)


def _register_subapps() -> None:
    for module, attr in SUBAPPS:
        sub = getattr(importlib.import_module(module), attr)
        app.add_typer(sub)


_register_subapps()


def main() -> None:
    """Console-script entry point."""
    app()
