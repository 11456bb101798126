"""``accord task-exchange ...`` commands and the target runner used by ``accord run``.

Thin: parses arguments, calls the task-exchange library, prints. ``run_target`` is what
``accord run task-exchange/<scenario> --agents A,B [--strategy ...] [--json]`` calls.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import typer

from accord.agents.spec import parse_agent_list
from accord.domains.base import EpisodeSpec, RunContext
from accord.protocols.engine import EpisodeResult
from accord.domains.task_exchange import (
    AGENT_KINDS,
    DOMAIN,
    PATTERNS,
    STRATEGIES,
    build_agent,
    build_protocol,
    builtin_scenarios,
    episode_metrics,
    get_scenario,
    initial_row,
    play,
    render_system_prompt,
    render_trajectories_png,
    scenario_front,
)

app = typer.Typer(name="task-exchange", no_args_is_help=True,
                  help="Utility-aware task decomposition and exchange (seed 000).")


def summarize(spec: EpisodeSpec, result: EpisodeResult) -> dict[str, Any]:
    """The JSON object of ``accord run task-exchange/<scenario>`` for a finished episode.

    Keys: ``status`` (agreed | disagreed | error), ``turns``, ``invalid`` (pattern -> count),
    ``utilities`` (role -> normalised utility, null on error), ``social_welfare``,
    ``l2_to_pareto`` and ``allocation`` (null on error), plus run details.
    """
    sc = get_scenario(spec.scenario)
    m = episode_metrics(sc, result.record, result.trajectory)
    invalid = {reason: m[f"invalid_{reason}"] for reason in PATTERNS}
    invalid["other"] = m["invalid_other"]
    specs = [str(a) for a in spec.agents]
    return {
        "domain": "task-exchange",
        "scenario": sc.name,
        "strategy": spec.params.get("strategy", "utility-aware"),
        "agents": dict(zip(sc.roles, specs, strict=True)),
        "seed": spec.seed,
        "status": result.record["status"],
        "turns": result.record["turns"],
        "invalid": invalid,
        "attempts": m["attempts"],
        "utilities": {r: m[f"utility_{r}"] for r in sc.roles},
        "social_welfare": m["social_welfare"],
        "l2_to_pareto": m["l2_to_pareto"],
        "allocation": result.record["allocation"],
        "initial": initial_row(sc),
        "reason": result.reason,
        "who": result.who,
        "detail": result.detail,
    }


def run_target(scenario: str, agents: list[str], strategy: str = "utility-aware",
               seed: int = 0, llm: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run one episode and return the JSON object of ``accord run task-exchange/<scenario>``."""
    spec = EpisodeSpec("task-exchange", scenario, tuple(parse_agent_list(",".join(agents))),
                       {"strategy": strategy}, seed)
    result = asyncio.run(DOMAIN.run_episode(spec, RunContext(llm=llm or {})))
    return summarize(spec, result)


def _agents(text: str) -> list[str]:
    specs = [str(s) for s in parse_agent_list(text)]
    if len(specs) != 2:
        raise typer.BadParameter(f"task-exchange needs exactly 2 agents, got {len(specs)}")
    return specs


@app.command("list")
def list_cmd(as_json: bool = typer.Option(False, "--json", help="Print one JSON object.")) -> None:
    """List the built-in scenarios with their initial utilities and Pareto fronts."""
    out: dict[str, dict[str, Any]] = {}
    for name in builtin_scenarios():
        sc = get_scenario(name)
        out[name] = {"title": sc.title, "roles": list(sc.roles), "initial": initial_row(sc),
                     "pareto_front": [[float(a), float(b)] for a, b in scenario_front(sc)]}
    if as_json:
        typer.echo(json.dumps({"scenarios": out, "agent_kinds": list(AGENT_KINDS),
                               "strategies": list(STRATEGIES)}))
        return
    for name, info in out.items():
        ini = info["initial"]
        utils = ", ".join(f"{r} {u:.2f}" for r, u in ini["utilities"].items())
        typer.echo(f"{name}: {info['title']}")
        typer.echo(f"  initial: {utils}; SW {ini['social_welfare']:.2f}; "
                   f"L2 to Pareto {ini['l2_to_pareto']:.3f}")
        typer.echo("  Pareto front: " + " ".join(f"({a:.2f}, {b:.2f})"
                                                 for a, b in info["pareto_front"]))
    typer.echo(f"agent kinds: {', '.join(AGENT_KINDS)}; strategies: {', '.join(STRATEGIES)}")


@app.command("run")
def run_cmd(scenario: str = typer.Argument(..., help="Built-in scenario name or .yaml path."),
            agents: str = typer.Option("utility-aware,utility-aware", "--agents",
                                       help="Two agent specs, comma separated."),
            strategy: str = typer.Option("utility-aware", "--strategy",
                                         help="utility-aware | baseline"),
            seed: int = typer.Option(0, "--seed"),
            as_json: bool = typer.Option(False, "--json", help="Print one JSON object.")) -> None:
    """Run one episode (the same as ``accord run task-exchange/<scenario>``)."""
    out = run_target(scenario, _agents(agents), strategy, seed)
    if as_json:
        typer.echo(json.dumps(out))
        return
    typer.echo(f"{out['scenario']} [{strategy}] {out['status']} after {out['turns']} turns")
    if out["allocation"]:
        for role, a in out["allocation"].items():
            typer.echo(f"  {role}: {a['mask']} u={out['utilities'][role]:.2f}  {a['description']}")
        typer.echo(f"  SW {out['social_welfare']:.2f}; L2 to Pareto {out['l2_to_pareto']:.3f}")
    else:
        typer.echo(f"  error: {out['detail']}")
    bad = {k: v for k, v in out["invalid"].items() if v}
    typer.echo(f"  invalid attempts: {bad or 'none'}")


@app.command("prompt")
def prompt_cmd(scenario: str = typer.Argument(...),
               role: str = typer.Option(None, "--role", help="Defaults to the first role."),
               strategy: str = typer.Option("utility-aware", "--strategy")) -> None:
    """Print the standing Figure 7 prompt one agent would receive."""
    sc = get_scenario(scenario)
    typer.echo(render_system_prompt(sc.view(role or sc.roles[0]), strategy), nl=False)


@app.command("plot")
def plot_cmd(scenario: str = typer.Argument(...),
             out: Path = typer.Option(..., "--out", help="PNG file to write."),
             agents: str = typer.Option("utility-aware,utility-aware", "--agents"),
             strategy: str = typer.Option("utility-aware", "--strategy"),
             runs: int = typer.Option(5, "--runs", min=1),
             seed: int = typer.Option(0, "--seed")) -> None:
    """Run episodes and draw their proposal trajectories in the utility plane (Figure 2)."""
    specs = _agents(agents)
    records = []
    for k in range(runs):
        protocol = build_protocol(scenario, {"strategy": strategy})
        result = asyncio.run(play(protocol, [build_agent(s) for s in specs], seed + k))
        records.append(result.record)
    sc = get_scenario(scenario)
    title = f"{sc.name} - {strategy} - {' vs '.join(specs)}"
    out.write_bytes(render_trajectories_png(sc, records, title))
    typer.echo(f"wrote {out}")


__all__ = ["app", "run_target"]
