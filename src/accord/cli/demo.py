"""``accord demo``: a short offline tour of what accord does."""

from __future__ import annotations

import asyncio

from rich.console import Console
from rich.rule import Rule

from accord.cli.render import print_negotiation_record, print_transcript
from accord.domains.bargaining import analyze, resolve_scenario, run_negotiation


def bargaining_tour(console: Console) -> None:
    """A multi-issue negotiation ending in an agreement artefact, then the analysis."""
    console.print(Rule("bargaining: buyer-seller (boulware vs conceder)"))
    scenario = resolve_scenario("buyer-seller")
    result = asyncio.run(run_negotiation(scenario, ["boulware", "conceder"], seed=0))
    print_transcript(console, result.trajectory)
    print_negotiation_record(console, result.summary())
    info = analyze(scenario)
    nash = info["nash"]
    console.print(f"Pareto frontier: {len(info['pareto'])} of {info['outcomes']} outcomes; "
                  f"Nash point: {nash['outcome']} -> {nash['utilities']}")
    console.print(Rule("bargaining: sprint-planning, three parties with a mediator"))
    sprint = resolve_scenario("sprint-planning")
    res3 = asyncio.run(run_negotiation(sprint, ["boulware", "boulware", "boulware"],
                                       params={"mediator": "midpoint"}, seed=0))
    print_transcript(console, res3.trajectory)
    print_negotiation_record(console, res3.summary())


#: further tour sections as domains land: callables taking the console
SECTIONS = [bargaining_tour]


def tour(console: Console, quick: bool = False) -> None:
    """Run every tour section."""
    console.print("[bold]accord[/] — an offline tour (no API key, no server)\n")
    for section in SECTIONS[: 1 if quick else None]:
        section(console)
    console.print("\nNext: [bold]accord scenarios[/], [bold]accord run bargaining/procurement "
                  "--agents linear,tit-for-tat[/], [bold]accord analyze bargaining/split[/].")
