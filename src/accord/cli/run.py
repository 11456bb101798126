"""``accord run`` and ``accord analyze``: one episode or one scenario analysis."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from accord.agents.spec import AgentSpecError, parse_agent_list
from accord.cli.render import print_negotiation_record, print_transcript
from accord.domains.bargaining import (
    ScenarioError,
    analyze,
    check_params,
    resolve_scenario,
    run_negotiation,
)
from accord.domains.bargaining.runner import ParamError


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print a clear error on stderr and return the exit to raise."""
    Console(stderr=True).print(f"[bold red]error:[/] {message}", highlight=False)
    return typer.Exit(code)


def bargaining_json(summary: dict[str, Any]) -> dict[str, Any]:
    """The ``accord run --json`` contract for bargaining episodes."""
    rec = summary["record"]
    return {
        "status": summary["status"],
        "reason": summary["reason"],
        "agreement": rec.get("agreement") if summary["status"] == "agreement" else None,
        "utilities": rec.get("utilities", {}),
        "batna": rec.get("batna", {}),
        "rounds": summary["rounds"],
        "flags": summary["flags"],
        "who": summary.get("who"),
        "detail": summary.get("detail"),
    }


def run_bargaining(target: str, agents: str, seed: int, max_rounds: int | None,
                   log: Path | None, as_json: bool, params: dict[str, Any],
                   llm: dict[str, Any] | None = None) -> None:
    """Run one bargaining episode and print it."""
    try:
        scenario = resolve_scenario(target)
        specs = parse_agent_list(agents)
        if max_rounds is not None:
            params["max_rounds"] = max_rounds
        check_params(params)
        result = asyncio.run(run_negotiation(scenario, specs, params=params, seed=seed,
                                              ctx={"llm": llm or {}}))
    except (ScenarioError, AgentSpecError, ParamError) as exc:
        raise fail(str(exc)) from None
    if log is not None:
        result.trajectory.write(log)
    summary = result.summary()
    if as_json:
        sys.stdout.write(json.dumps(bargaining_json(summary)) + "\n")
        return
    console = Console()
    console.print(f"[bold]{scenario.name}[/]: {', '.join(scenario.party_names)} "
                  f"({', '.join(str(s) for s in specs)}), {scenario.space.size} outcomes")
    print_transcript(console, result.trajectory)
    print_negotiation_record(console, summary)
    if log is not None:
        console.print(f"trajectory log: {log}")


def analyze_command(
    target: str = typer.Argument(..., help="bargaining/<scenario> or PATH.yaml"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Pareto frontier and Nash, Kalai, Kalai-Smorodinsky and max-welfare points."""
    try:
        data = analyze(resolve_scenario(target))
    except ScenarioError as exc:
        raise fail(str(exc)) from None
    if as_json:
        sys.stdout.write(json.dumps(data) + "\n")
        return
    from rich.table import Table

    console = Console()
    console.print(f"[bold]{data['scenario']}[/]: {data['outcomes']} outcomes, "
                  f"{data['individually_rational']} individually rational, "
                  f"{len(data['pareto'])} Pareto-optimal")
    parties = data["parties"]
    t = Table("point", "outcome", *parties)
    for key in ("nash", "kalai", "kalai_smorodinsky", "max_welfare"):
        pt = data[key]
        if pt is None:
            t.add_row(key, "none (no individually rational outcome)", *["-"] * len(parties))
        else:
            t.add_row(key, ", ".join(f"{k}={v}" for k, v in pt["outcome"].items()),
                      *[f"{pt['utilities'][p]:.3f}" for p in parties])
    console.print(t)
    f = Table("Pareto-optimal outcome", *parties)
    for pt in data["pareto"]:
        f.add_row(", ".join(f"{k}={v}" for k, v in pt["outcome"].items()),
                  *[f"{pt['utilities'][p]:.3f}" for p in parties])
    console.print(f)
