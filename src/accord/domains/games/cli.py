"""``accord games``: list, solve and play the classic games (seed 003).

Register in ``accord.cli.main`` as the ``games`` sub-command group (``app`` below).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from accord.cli import common as c

if TYPE_CHECKING:
    from rich.console import Console

app = c.group_app(
    "games", "Classic games: list the catalog, solve games, play them with code or LLM agents.")

_fail = c.fail


def _params(items: list[str] | None) -> dict[str, Any]:
    from accord.core.safeload import LoadError, parse_yaml, short

    out: dict[str, Any] = {}
    for item in items or []:
        key, eq, raw = item.partition("=")
        if not eq or not key.strip():
            raise _fail(f"--param {short(item)} must look like name=value (e.g. jackpot=1000)")
        try:
            out[key.strip()] = parse_yaml(raw, f"--param {key.strip()[:100]}").data
        except LoadError as exc:
            raise _fail(str(exc)) from None
    return out


@app.command("list", epilog=c.example("accord games list", "accord games list --json"))
def list_games(as_json: bool = c.json_option()) -> None:
    """List the catalog games."""
    from rich.table import Table

    from accord.domains.games import catalog_names, load_catalog_game
    from accord.domains.games.catalog import catalog_entry
    from accord.domains.games.describe import fmt_number
    from accord.domains.games.model import NormalFormGame

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
        c.emit_json({"games": rows})
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
                      c.plain((params + " " + r["description"]).strip()))
    c.console().print(table)


def _profiles(title: str, items: list[list[str]], console: Console) -> None:
    shown = "; ".join("(" + ", ".join(p) + ")" for p in items) or "none"
    console.print(f"[bold]{title}:[/] {c.plain(shown)}")


def _resolve(target: str, params: dict[str, Any]) -> Any:
    """A catalog game or a game file; unknown names get a close-match suggestion."""
    from accord.domains.games import GameFileError, resolve_game

    try:
        return resolve_game(target, params)
    except (GameFileError, ValueError) as exc:
        raise _fail(str(exc)) from None
    except KeyError as exc:
        raise _fail(str(exc.args[0])) from None


@app.command(epilog=c.example("accord games solve prisoners-dilemma --json",
                              "accord games solve draco", "accord games solve my-game.json"))
def solve(
    target: str = typer.Argument(..., metavar="TARGET",
        help="catalog name or game file (.json/.yaml)"),
    as_json: bool = c.json_option(),
    param: list[str] | None = typer.Option(None, "--param", "-p",
                                           help="game parameter NAME=VALUE (repeatable)"),
    mixed: bool = typer.Option(True, "--mixed/--no-mixed",
                               help="two-player games: also compute mixed equilibria"),
    time_limit: float = typer.Option(60.0, "--time-limit", min=0.0,
                                     help="CPU seconds for the mixed equilibria; past them "
                                     "the ones found so far are shown, marked incomplete"),
) -> None:
    """Equilibria and Pareto optima of a game."""
    import time

    from accord.domains.games import solve_game
    from accord.domains.games.analysis import solution_json
    from accord.domains.games.describe import fmt_number, render_game
    from accord.solvers.budget import TimeBudget

    game = _resolve(target, _params(param))
    try:  # CPU time: the budget measures the solver's work, not how busy the machine is
        sol = solve_game(game, mixed=mixed, budget=TimeBudget(time_limit, time.process_time))
    except ValueError as exc:
        raise _fail(str(exc)) from None
    data = solution_json(sol)
    partial = None
    if sol.mixed_complete is False:
        found = len(sol.mixed_nash or [])
        partial = (f"time limit of {time_limit:g} CPU seconds reached: {found} mixed "
                   f"{'equilibrium' if found == 1 else 'equilibria'} found so far (each one "
                   "exact), there may be more; raise --time-limit for all of them")
    notes = [n for n in (*sol.notes, partial) if n]  # the skipped parts are in sol.notes
    if as_json:
        for note in notes:
            c.warn(note)
        c.emit_json(data)
        return
    console = c.console()
    console.print(c.plain(render_game(game)))
    _profiles("pure Nash equilibria" if sol.type == "normal" else
              "Nash equilibrium outcomes", data["pure_nash"], console)
    if data["pareto_optimal"] is not None:
        _profiles("Pareto optimal", data["pareto_optimal"], console)
    _profiles("Pareto-optimal equilibria", data["pareto_optimal_nash"], console)
    if sol.mixed_nash is not None:
        for eq in sol.mixed_nash:
            parts = ["{" + ", ".join(f"{a}: {fmt_number(p)}" for a, p in strat.items() if p)
                     + "}" for strat in eq]
            console.print(f"[bold]mixed equilibrium:[/] {c.plain(' / '.join(parts))}")
    for note in notes:
        console.print(f"[yellow]{c.plain(note)}[/]")
    for e in sol.spe or []:
        console.print(f"[bold]subgame-perfect equilibrium:[/] path "
                      f"{c.plain(' -> '.join(e.path))}, "
                      f"payoff ({', '.join(fmt_number(v) for v in e.payoff)})")


@app.command(epilog=c.example(
    "accord games play stag-hunt --agents rational,rational --negotiation-rounds 2 "
    "--repeat 10",
    "accord games play prisoners-dilemma --agents llm:openai/gpt-4.1-mini --cache runs/llm.db"))
def play(
    target: str = typer.Argument(..., metavar="TARGET",
        help="catalog name or game file (.json/.yaml)"),
    agents: str = typer.Option(..., "--agents", "-a",
                               help="agent specs, one per player (a single spec plays "
                               "every player): rational, random, fixed:ACTION, llm:MODEL, "
                               "llm-workflow:MODEL"),
    negotiation_rounds: int = typer.Option(0, "--negotiation-rounds", "-k", min=0,
                                           help="rounds of cheap talk before playing"),
    first_speaker: str | None = typer.Option(None, "--first-speaker",
                                             help="player who speaks first (default: first)"),
    repeat: int = c.repeat_option(),
    seed: int = c.seed_option(help="Seed of the first episode (then +1 each)."),
    param: list[str] | None = typer.Option(None, "--param", "-p",
                                           help="game parameter NAME=VALUE (repeatable)"),
    plot: Path | None = typer.Option(None, "--plot", help="save an action-distribution PNG"),
    as_json: bool = c.json_option(),
    quiet: bool = c.quiet_option("No line per episode: only the summary (errors still go "
                                 "to stderr; --json is unaffected)."),
    cache: Path | None = c.cache_option(),
    cache_mode: str = c.cache_mode_option(),
    llm_timeout: float | None = c.llm_timeout_option(),
) -> None:
    """Play a game with code or LLM agents, optionally after cheap talk, and score the outcomes."""
    import asyncio

    from accord.agents.spec import AgentSpecError, parse_agent_list
    from accord.cli.run import _episode_id
    from accord.domains.base import EpisodeSpec, RunContext
    from accord.domains.games import GameFileError, GamesDomain, action_distribution
    from accord.domains.games.metrics import plot_action_distribution, rate

    llm = c.llm_settings(cache, cache_mode, timeout=llm_timeout)
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
            ctx = RunContext(episode_id=_episode_id(spec), llm=llm)
            result = asyncio.run(domain.run_episode(spec, ctx))
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
    except (GameFileError, ValueError) as exc:
        raise _fail(str(exc)) from None
    except KeyError as exc:
        raise _fail(str(exc.args[0])) from None
    dist = action_distribution(records)
    summary = {"episodes": repeat, "completed": sum(bool(m["completed"]) for m in metrics),
               "coordinated_rate": rate(metrics, "coordinated"),
               "nash_rate": rate(metrics, "nash"),
               "pareto_optimal_nash_rate": rate(metrics, "pareto_optimal_nash"),
               "pareto_optimal_rate": rate(metrics, "pareto_optimal"),
               "action_distribution": dist}
    if plot is not None:
        plot_action_distribution(dist, plot, title=f"{target} ({agents}, "
                                 f"{negotiation_rounds} negotiation rounds)")
    if as_json:
        c.emit_json({"game": target, "agents": [str(s) for s in specs],
                     "negotiation_rounds": negotiation_rounds,
                     "episodes": episodes, "summary": summary})
        return
    _print_play(episodes, summary, plot, quiet,
                sequential=bool(records) and records[0].get("type") == "extensive")


def flag_words(metrics: dict[str, Any], sequential: bool = False) -> str:
    """What an episode's true flags say, in words (``coordinated, a Nash equilibrium,
    Pareto-optimal Nash``), as the summary line and the other domains put them; a sequential
    game's equilibrium path is a subgame-perfect one."""
    words = []
    if metrics.get("coordinated") is not None:
        words.append("coordinated" if metrics["coordinated"] else "miscoordinated")
    if metrics.get("nash"):
        words.append("a subgame-perfect path" if sequential else "a Nash equilibrium")
    if metrics.get("pareto_optimal_nash"):
        words.append("Pareto-optimal subgame-perfect" if sequential
                     else "Pareto-optimal Nash")
    return ", ".join(words)


def _print_play(episodes: list[dict[str, Any]], summary: dict[str, Any],
                plot: Path | None, quiet: bool = False, sequential: bool = False) -> None:
    console = c.console()
    for ep in [] if quiet else episodes:
        for msg in ep["messages"] or []:
            console.print(f"  [dim]round {msg['round']}[/] {c.plain(msg['speaker'])}: "
                          f"{c.plain(msg['text'])}")
        if ep["status"] != "completed":
            console.print(f"seed {ep['seed']}: [red]{c.plain(ep['status'])}[/] "
                          f"({c.plain(ep['detail'])})")
            continue
        pays = ", ".join(f"{p} {v}" for p, v in (ep["payoffs"] or {}).items())
        flags = flag_words(ep["metrics"], sequential)
        console.print(f"seed {ep['seed']}: ({c.plain(', '.join(ep['outcome']))})  payoffs "
                      f"{c.plain(pays)}" + (f"; {flags}" if flags else ""))

    def pct(v: float | None) -> str:
        return "n/a" if v is None else f"{v:.0%}"

    coord = summary["coordinated_rate"]
    console.print(f"[bold]{summary['episodes']} episode(s), {summary['completed']} completed:"
                  "[/]" + ("" if coord is None else f" coordinated {pct(coord)},")
                  + f" Nash {pct(summary['nash_rate'])}"
                  f", Pareto-optimal Nash {pct(summary['pareto_optimal_nash_rate'])}, "
                  f"Pareto optimal {pct(summary['pareto_optimal_rate'])}")
    for player, shares in summary["action_distribution"]["players"].items():
        console.print(f"  {c.plain(player)}: " + c.plain(", ".join(
            f"{a} {s:.0%}" for a, s in shares.items())))
    if plot is not None:
        console.print(f"plot saved to {c.plain(plot)}")


@app.command(epilog=c.example("accord games plot runs/games_tables5_8.db --out plots"))
def plot(store: Path = typer.Argument(..., help="results store of `accord bench` (.db)"),
         out: Path = c.out_option("Output folder for the PNGs and summary.json.",
                                  default=Path("plots")),
         run: str | None = typer.Option(None, "--run", help="only this run of the store"),
         group_by: str | None = typer.Option(None, "--group-by", "-g",
                                             help="cell fields, comma separated"),
         share: str | None = typer.Option(None, "--share",
                                          help="also plot this action's share against --x"),
         x: str = typer.Option("params.jackpot", "--x", help="numeric field for --share"),
         as_json: bool = c.json_option()) -> None:
    """Action-distribution plots (one PNG per cell) and summary.json from a results store."""
    from accord.bench import Store, StoreError
    from accord.domains.games.studies import plot_action_share, plot_study

    try:
        with Store.open_readonly(store) as st:
            rows = st.episodes(run)
    except StoreError as exc:
        raise _fail(str(exc)) from None
    try:
        summary = plot_study(rows, out, group_by=group_by.split(",") if group_by else None)
        if share:
            summary["share"] = plot_action_share(rows, out / f"share_{share}.png", action=share,
                                                 x=x)
    except KeyError as exc:
        raise _fail(str(exc.args[0])) from None
    if not summary["episodes"]:
        raise _fail(f"{store} holds no finished games episodes")
    if as_json:
        c.emit_json(summary)
        return
    for cell in summary["cells"]:
        typer.echo(f"{out / cell['file']}  n={cell['episodes']}  nash={cell['nash_rate']}")
    typer.echo(f"{len(summary['cells'])} plot(s) and summary.json in {out}")
