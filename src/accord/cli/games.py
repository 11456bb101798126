"""``accord games``: list, solve and play the classic games (seed 003).

Register in ``accord.cli.main`` as the ``games`` sub-command group (``app`` below).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import typer
import yaml
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from accord.agents.spec import AgentSpecError, parse_agent_list
from accord.domains.base import EpisodeSpec, RunContext
from accord.domains.games import (
    GameFileError,
    GamesDomain,
    action_distribution,
    catalog_entry,
    catalog_names,
    load_catalog_game,
    plot_action_distribution,
    rate,
    render_game,
    resolve_game,
    solution_json,
    solve_game,
)
from accord.domains.games.describe import fmt_number
from accord.domains.games.model import NormalFormGame

app = typer.Typer(name="games", help="Classic games: list the catalog, solve games, play them "
                  "with code or LLM agents.", no_args_is_help=True)


def _fail(message: str, code: int = 2) -> typer.Exit:
    Console(stderr=True, soft_wrap=True).print(f"[bold red]error:[/] {escape(message)}",
                                               highlight=False)
    return typer.Exit(code)


def _params(items: list[str] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items or []:
        key, eq, raw = item.partition("=")
        if not eq or not key.strip():
            raise _fail(f"--param {item!r} must look like name=value (e.g. jackpot=1000)")
        out[key.strip()] = yaml.safe_load(raw)
    return out


@app.command("list")
def list_games(as_json: bool = typer.Option(False, "--json", help="print one JSON object")
               ) -> None:
    """List the catalog games."""
    rows: list[dict[str, Any]] = []
    for name in catalog_names():
        game = load_catalog_game(name)
        size = (" x ".join(str(len(a)) for a in game.actions)
                if isinstance(game, NormalFormGame) else "tree")
        rows.append({"name": name, "type": game.type, "players": list(game.players),
                     "size": size, "coordination": catalog_entry(name).coordination,
                     "parameters": {k: fmt_number(v) for k, v in game.info.parameters.items()},
                     "description": game.info.description})
    if as_json:
        typer.echo(json.dumps({"games": rows}))
        return
    table = Table()
    table.add_column("name", no_wrap=True, min_width=23)
    table.add_column("type", no_wrap=True, min_width=9)
    table.add_column("size", no_wrap=True, min_width=5)
    table.add_column("coord.", no_wrap=True, min_width=6)
    table.add_column("description", overflow="ellipsis", no_wrap=True, max_width=30)
    for r in rows:
        params = "".join(f" [{k}={v}]" for k, v in r["parameters"].items())
        table.add_row(r["name"], r["type"], r["size"], "yes" if r["coordination"] else "",
                      (params + " " + r["description"]).strip())
    Console().print(table)


def _profiles(title: str, items: list[list[str]], console: Console) -> None:
    shown = "; ".join("(" + ", ".join(p) + ")" for p in items) or "none"
    console.print(f"[bold]{title}:[/] {shown}", highlight=False)


@app.command()
def solve(
    target: str = typer.Argument(..., help="catalog name or game file (.json/.yaml)"),
    as_json: bool = typer.Option(False, "--json", help="print exactly one JSON object"),
    param: list[str] | None = typer.Option(None, "--param", "-p",
                                           help="game parameter NAME=VALUE (repeatable)"),
    mixed: bool = typer.Option(True, "--mixed/--no-mixed",
                               help="two-player games: also compute mixed equilibria"),
) -> None:
    """Equilibria and Pareto optima of a game."""
    try:
        game = resolve_game(target, _params(param))
        sol = solve_game(game, mixed=mixed)
    except (GameFileError, ValueError) as exc:
        raise _fail(str(exc)) from None
    data = solution_json(sol)
    if as_json:
        if sol.mixed_skipped:
            Console(stderr=True).print(f"[yellow]warning:[/] {sol.mixed_skipped}")
        typer.echo(json.dumps(data))
        return
    console = Console()
    console.print(render_game(game), highlight=False)
    _profiles("pure Nash equilibria" if sol.type == "normal" else
              "Nash equilibrium outcomes", data["pure_nash"], console)
    _profiles("Pareto optimal", data["pareto_optimal"], console)
    _profiles("Pareto-optimal equilibria", data["pareto_optimal_nash"], console)
    if sol.mixed_nash is not None:
        for eq in sol.mixed_nash:
            parts = ["{" + ", ".join(f"{a}: {fmt_number(p)}" for a, p in strat.items() if p)
                     + "}" for strat in eq]
            console.print(f"[bold]mixed equilibrium:[/] {' / '.join(parts)}", highlight=False)
    if sol.mixed_skipped:
        console.print(f"[yellow]{sol.mixed_skipped}[/]")
    for e in sol.spe or []:
        console.print(f"[bold]subgame-perfect equilibrium:[/] path {' -> '.join(e.path)}, "
                      f"payoff ({', '.join(fmt_number(v) for v in e.payoff)})",
                      highlight=False)


@app.command()
def play(
    target: str = typer.Argument(..., help="catalog name or game file (.json/.yaml)"),
    agents: str = typer.Option(..., "--agents", "-a",
                               help="agent specs, one per player (a single spec plays "
                               "every player): rational, random, fixed:ACTION, llm:MODEL, "
                               "llm-workflow:MODEL"),
    negotiation_rounds: int = typer.Option(0, "--negotiation-rounds", "-k", min=0,
                                           help="rounds of cheap talk before playing"),
    first_speaker: str | None = typer.Option(None, "--first-speaker",
                                             help="player who speaks first (default: first)"),
    repeat: int = typer.Option(1, "--repeat", "-n", min=1, help="number of episodes"),
    seed: int = typer.Option(0, "--seed", help="seed of the first episode (then +1 each)"),
    param: list[str] | None = typer.Option(None, "--param", "-p",
                                           help="game parameter NAME=VALUE (repeatable)"),
    plot: Path | None = typer.Option(None, "--plot", help="save an action-distribution PNG"),
    as_json: bool = typer.Option(False, "--json", help="print exactly one JSON object"),
) -> None:
    """Play a game with code or LLM agents, optionally after cheap talk, and score the outcomes."""
    try:
        specs = tuple(parse_agent_list(agents))
    except AgentSpecError as exc:
        raise _fail(str(exc)) from None
    params: dict[str, Any] = {**_params(param), "negotiation_rounds": negotiation_rounds}
    if first_speaker is not None:
        params["first_speaker"] = first_speaker
    domain = GamesDomain()
    episodes, records, metrics = [], [], []
    try:
        for i in range(repeat):
            spec = EpisodeSpec("games", target, specs, params, seed + i)
            result = asyncio.run(domain.run_episode(spec, RunContext()))
            m = domain.metrics(spec, result)
            rec = result.record
            records.append(rec)
            metrics.append(m)
            episodes.append({"seed": seed + i, "status": result.status, "reason": result.reason,
                             "detail": result.detail,
                             "outcome": rec.get("profile") if rec["type"] == "normal"
                             else rec.get("path"),
                             "payoffs": rec.get("payoffs"), "messages": rec.get("messages"),
                             "metrics": m})
    except (GameFileError, ValueError, KeyError) as exc:
        raise _fail(str(exc).strip("'\"")) from None
    dist = action_distribution(records)
    summary = {"episodes": repeat, "nash_rate": rate(metrics, "nash"),
               "pareto_optimal_nash_rate": rate(metrics, "pareto_optimal_nash"),
               "pareto_optimal_rate": rate(metrics, "pareto_optimal"),
               "action_distribution": dist}
    if plot is not None:
        plot_action_distribution(dist, plot, title=f"{target} ({agents}, "
                                 f"{negotiation_rounds} negotiation rounds)")
    if as_json:
        typer.echo(json.dumps({"game": target, "agents": [str(s) for s in specs],
                               "negotiation_rounds": negotiation_rounds,
                               "episodes": episodes, "summary": summary}))
        return
    _print_play(episodes, summary, plot)


def _print_play(episodes: list[dict[str, Any]], summary: dict[str, Any],
                plot: Path | None) -> None:
    console = Console()
    for ep in episodes:
        for msg in ep["messages"] or []:
            console.print(f"  [dim]round {msg['round']}[/] {msg['speaker']}: {msg['text']}",
                          highlight=False)
        if ep["status"] != "agreement":
            console.print(f"seed {ep['seed']}: [red]{ep['status']}[/] ({ep['detail']})")
            continue
        pays = ", ".join(f"{p} {v}" for p, v in (ep["payoffs"] or {}).items())
        flags = " ".join(k for k in ("nash", "pareto_optimal_nash") if ep["metrics"].get(k))
        console.print(f"seed {ep['seed']}: ({', '.join(ep['outcome'])})  payoffs {pays}  "
                      f"{flags}", highlight=False)

    def pct(v: float | None) -> str:
        return "n/a" if v is None else f"{v:.0%}"

    console.print(f"[bold]{summary['episodes']} episode(s):[/] Nash {pct(summary['nash_rate'])}"
                  f", Pareto-optimal Nash {pct(summary['pareto_optimal_nash_rate'])}, "
                  f"Pareto optimal {pct(summary['pareto_optimal_rate'])}")
    for player, shares in summary["action_distribution"]["players"].items():
        console.print(f"  {player}: " + ", ".join(f"{a} {s:.0%}" for a, s in shares.items()),
                      highlight=False)
    if plot is not None:
        console.print(f"plot saved to {plot}")


@app.command()
def plot(store: Path = typer.Argument(..., help="results store of `accord bench` (.db)"),
         out: Path = typer.Option(Path("plots"), "--out", "-o", help="output folder"),
         run: str | None = typer.Option(None, "--run", help="only this run of the store"),
         group_by: str | None = typer.Option(None, "--group-by", "-g",
                                             help="cell fields, comma separated"),
         share: str | None = typer.Option(None, "--share",
                                          help="also plot this action's share against --x"),
         x: str = typer.Option("params.jackpot", "--x", help="numeric field for --share"),
         as_json: bool = typer.Option(False, "--json", help="print exactly one JSON object")
         ) -> None:
    """Action-distribution plots (one PNG per cell) and summary.json from a results store."""
    from accord.bench import Store, StoreError
    from accord.domains.games import plot_action_share, plot_study

    try:
        with Store.open(store, create=False) as st:
            rows = st.episodes(run)
    except StoreError as exc:
        raise _fail(str(exc)) from None
    try:
        summary = plot_study(rows, out, group_by=group_by.split(",") if group_by else None)
        if share:
            summary["share"] = plot_action_share(rows, out / f"share_{share}.png", action=share,
                                                 x=x)
    except KeyError as exc:
        raise _fail(str(exc).strip("'\"")) from None
    if not summary["episodes"]:
        raise _fail(f"{store} holds no finished games episodes")
    if as_json:
        typer.echo(json.dumps(summary, default=str))
        return
    for cell in summary["cells"]:
        typer.echo(f"{out / cell['file']}  n={cell['episodes']}  nash={cell['nash_rate']}")
    typer.echo(f"{len(summary['cells'])} plot(s) and summary.json in {out}")
