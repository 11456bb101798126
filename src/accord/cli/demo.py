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


def llm_tour(console: Console) -> None:
    """An LLM party (in-process mock model: the same code path as a real endpoint)."""
    console.print(Rule("bargaining with an LLM party: procurement (llm:mock/negotiator vs "
                       "tit-for-tat)"))
    console.print("[dim]The LLM agent builds its system prompt, parses tagged replies and runs "
                  "its guards exactly as with a real model; 'mock/negotiator' answers in "
                  "process. Point it at any endpoint with e.g. "
                  "--agents llm:openai/gpt-4.1-mini,tit-for-tat.[/]")
    scenario = resolve_scenario("procurement")
    result = asyncio.run(run_negotiation(scenario, ["llm:mock/negotiator", "tit-for-tat"],
                                         seed=0))
    print_transcript(console, result.trajectory)
    print_negotiation_record(console, result.summary())
    usage = result.usage.get("procurement", {})
    if usage:
        console.print(f"LLM usage: {usage.get('calls')} calls, {usage.get('prompt_tokens')} "
                      f"prompt tokens ({usage.get('cached_tokens', 0)} cached), "
                      f"{usage.get('completion_tokens')} completion tokens")


#: further tour sections as domains land: callables taking the console
SECTIONS = [bargaining_tour, llm_tour]


def tour(console: Console, quick: bool = False) -> None:
    """Run every tour section."""
    console.print("[bold]accord[/] — an offline tour (no API key, no server)\n")
    for section in SECTIONS[: 1 if quick else None]:
        section(console)
    console.print("\nNext: [bold]accord scenarios[/], [bold]accord run bargaining/procurement "
                  "--agents linear,tit-for-tat[/], [bold]accord analyze bargaining/split[/].")
