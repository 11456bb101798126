"""``accord demo``: a short offline tour of what accord does."""

from __future__ import annotations

import asyncio
from typing import Any

from rich.console import Console
from rich.rule import Rule

from accord.cli.render import print_negotiation_record, print_transcript, readable, scalar_text
from accord.domains.bargaining import analyze, resolve_scenario, run_negotiation

#: the mediator section's parameters: the mediator is asked first when the rule fires, so
#: it acts (under walk-first a party below its BATNA would walk before it is asked)
MEDIATED: dict[str, Any] = {"mediator": "midpoint", "stagnation_rounds": 3,
                            "stagnation_order": "mediator-first"}


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
                  f"Nash point: {readable(nash['outcome'])} -> utilities "
                  f"{readable(nash['utilities'])}")
    console.print(Rule("bargaining: sprint-planning, three parties with a mediator"))
    console.print("[dim]Three Boulware parties hold their opening packages; after "
                  f"{MEDIATED['stagnation_rounds']} rounds without a concession the stagnation "
                  "rule asks the midpoint mediator for a package before anybody may walk "
                  "(--mediator midpoint --stagnation-rounds 3 "
                  "--stagnation-order mediator-first).[/]")
    sprint = resolve_scenario("sprint-planning")
    res3 = asyncio.run(run_negotiation(sprint, ["boulware", "boulware", "boulware"],
                                       params=MEDIATED, seed=0))
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


def _domain_episode(console: Console, domain: str, scenario: str, agents: str,
                    params: dict[str, object]) -> dict[str, Any]:
    """Run one episode of ``domain``, print its transcript and return its summary."""
    from accord.agents.spec import parse_agent_list
    from accord.domains import EpisodeSpec, RunContext, get_domain

    dom = get_domain(domain)
    spec = EpisodeSpec(domain, scenario, tuple(parse_agent_list(agents)), params, 0)
    result = asyncio.run(dom.run_episode(spec, RunContext()))
    print_transcript(console, result.trajectory)
    return dom.summary(spec, result)


def task_exchange_tour(console: Console) -> None:
    """Seed 000: utility-aware task decomposition and exchange, with per-turn validation."""
    console.print(Rule("task exchange (seed 000): competitive scenario, utility-aware agents"))
    out = _domain_episode(console, "task-exchange", "competitive",
                          "utility-aware,utility-aware", {"strategy": "utility-aware"})
    console.print(f"status {out['status']} after {out['turns']} turns; utilities "
                  f"{readable(out['utilities'])}; social welfare {out['social_welfare']:.2f}; "
                  f"L2 to Pareto {out['l2_to_pareto']:.3f}")


def deliberation_tour(console: Console) -> None:
    """Seed 001: deliberation under partial observability, scored against the ILP optimum."""
    console.print(Rule("deliberation (seed 001): task allocation, three agents, leader decides"))
    out = _domain_episode(console, "deliberation", "task-allocation", "share,share,share",
                          {"instance": 0})
    console.print(f"reward {readable(out['reward'])} of optimum {readable(out['max_reward'])} "
                  f"(NR {readable(out['nr'])}); valid {'yes' if out['valid'] else 'no'}")


def dond_tour(console: Console) -> None:
    """Seed 003 section 5: Deal or No Deal, when the data is installed."""
    from accord.domains.deal_or_no_deal import DOMAIN

    ids = DOMAIN.scenarios()
    console.print(Rule("deal or no deal (seed 003): Bayesian workflow agents on a real dialogue"))
    if not ids:
        console.print(f"[dim]skipped: {getattr(DOMAIN, 'scenarios_hint', 'no data')}[/]")
        return
    out = _domain_episode(console, "deal-or-no-deal", ids[0], "workflow,workflow", {})
    shares = (out.get("record") or {}).get("shares")
    console.print(f"status {out['status']}" + (f"; shares {readable(shares)}" if shares else ""))


def games_tour(console: Console) -> None:
    """Seed 003 sections 3-4: a classic game with pre-play talk, and its exact equilibria."""
    from accord.domains.games import load_catalog_game, solve_game
    from accord.domains.games.analysis import solution_json

    console.print(Rule("classic games (seed 003): battle of the sexes, 2 rounds of talk"))
    out = _domain_episode(console, "games", "battle-of-the-sexes", "rational,rational",
                          {"negotiation_rounds": 2})
    console.print(f"payoffs {readable(out['record'].get('payoffs'))}")
    sol = solution_json(solve_game(load_catalog_game("battle-of-the-sexes")))
    pure = "; ".join(" and ".join(map(str, p)) for p in sol["pure_nash"]) or "none"
    mixed = "; ".join(" against ".join(
        "(" + ", ".join(f"{a} {scalar_text(q)}" for a, q in profile.items()) + ")"
        for profile in eq) for eq in sol.get("mixed_nash") or []) or "none"
    console.print(f"pure Nash equilibria: {pure}. Mixed: {mixed}.")


#: further tour sections as domains land: callables taking the console
SECTIONS = [bargaining_tour, llm_tour, games_tour, task_exchange_tour, deliberation_tour,
            dond_tour]


def tour(console: Console, quick: bool = False) -> None:
    """Run every tour section."""
    console.print("[bold]accord[/] — an offline tour (no API key, no server)\n")
    for section in SECTIONS[: 1 if quick else None]:
        section(console)
    console.print("\nNext: [bold]accord scenarios[/], [bold]accord run bargaining/procurement "
                  "--agents linear,tit-for-tat[/], [bold]accord analyze bargaining/split[/].")
