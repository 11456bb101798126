"""``accord task-exchange ...`` commands and the target runner used by ``accord run``.

Thin: parses arguments, calls the task-exchange library, prints. ``run_target`` is what
``accord run task-exchange/<scenario> --agents A,B [--strategy ...] [--json]`` calls.
``generate`` builds a new scenario with an LLM (Appendix A.1-A.2); ``tables`` prints the
Table 1 / Table 2 layouts from a results store of ``accord bench``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from accord.cli import common as c

app = c.group_app(
    "task-exchange", "Utility-aware task decomposition and exchange between two agents.")


def run_target(scenario: str, agents: list[str], strategy: str = "utility-aware",
               seed: int = 0, llm: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run one episode and return the JSON object of ``accord run task-exchange/<scenario>``."""
    import asyncio

    from accord.agents.spec import parse_agent_list
    from accord.cli.run import _episode_id
    from accord.domains.base import EpisodeSpec, RunContext
    from accord.domains.task_exchange import DOMAIN

    spec = EpisodeSpec("task-exchange", scenario, tuple(parse_agent_list(",".join(agents))),
                       {"strategy": strategy}, seed)
    result = asyncio.run(DOMAIN.run_episode(spec, RunContext(episode_id=_episode_id(spec),
                                                             llm=llm or {})))
    return DOMAIN.summary(spec, result)


def _agents(text: str) -> list[str]:
    from accord.agents.spec import AgentSpecError, parse_agent_list

    try:
        specs = [str(s) for s in parse_agent_list(text)]
    except AgentSpecError as exc:
        raise c.fail(str(exc)) from None
    if len(specs) != 2:
        raise c.fail(f"task-exchange needs exactly 2 agents, got {len(specs)}")
    return specs


@app.command("list", epilog=c.example("accord task-exchange list --json"))
def list_cmd(as_json: bool = c.json_option()) -> None:
    """List the built-in scenarios with their initial utilities and Pareto fronts."""
    from accord.domains.task_exchange import builtin_scenarios, get_scenario
    from accord.domains.task_exchange.domain import AGENT_KINDS
    from accord.domains.task_exchange.metrics import initial_row, scenario_front
    from accord.domains.task_exchange.protocol import STRATEGIES

    out: dict[str, dict[str, Any]] = {}
    for name in builtin_scenarios():
        sc = get_scenario(name)
        out[name] = {"title": sc.title, "roles": list(sc.roles), "initial": initial_row(sc),
                     "pareto_front": [[float(a), float(b)] for a, b in scenario_front(sc)]}
    if as_json:
        c.emit_json({"scenarios": out, "agent_kinds": list(AGENT_KINDS),
                     "strategies": list(STRATEGIES)})
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


@app.command("run", epilog=c.example(
    "accord task-exchange run competitive --agents utility-aware,utility-aware --json"))
def run_cmd(scenario: str = typer.Argument(..., help="Built-in scenario name or .yaml path."),
            agents: str = typer.Option("utility-aware,utility-aware", "--agents", "-a",
                                       help="Two agent specs, comma separated."),
            strategy: str = typer.Option("utility-aware", "--strategy",
                                         help="utility-aware | baseline"),
            seed: int = c.seed_option(),
            cache: Path | None = c.cache_option(),
            cache_mode: str = c.cache_mode_option(),
            llm_timeout: float | None = c.llm_timeout_option(),
            as_json: bool = c.json_option()) -> None:
    """Run one episode (the same as: accord run task-exchange/SCENARIO)."""
    llm = c.llm_settings(cache, cache_mode, timeout=llm_timeout)
    try:
        out = run_target(scenario, _agents(agents), strategy, seed, llm)
    except ValueError as exc:  # unknown scenario, kind or option; missing model or key
        raise c.fail(str(exc)) from None
    if as_json:
        c.emit_json(out)
        if out["status"] == "error":
            raise typer.Exit(c.EXIT_FAILED)
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
    if out["status"] == "error":
        raise typer.Exit(c.EXIT_FAILED)


@app.command("prompt", epilog=c.example("accord task-exchange prompt cooperative",
                                         "accord task-exchange prompt competitive --role Bob"))
def prompt_cmd(scenario: str = typer.Argument(..., help="Built-in scenario name or .yaml path."),
               role: str = typer.Option(None, "--role", help="Defaults to the first role."),
               strategy: str = typer.Option("utility-aware", "--strategy",
                                            help="utility-aware | baseline"),
               state: bool = typer.Option(False, "--state", help="include the <TX_SETUP> "
                                          "block the llm agent adds (as it sends it)")) -> None:
    """Print the standing Figure 7 prompt one agent would receive."""
    from accord.domains.task_exchange import get_scenario
    from accord.domains.task_exchange.llm.prompts import render_system_prompt
    from accord.domains.task_exchange.scenario import ScenarioError

    try:
        sc = get_scenario(scenario)
        view = sc.view(role or sc.roles[0])
    except ScenarioError as exc:
        raise c.fail(str(exc)) from None
    except KeyError as exc:  # an unknown --role
        raise c.fail(str(exc.args[0] if exc.args else exc)) from None
    typer.echo(render_system_prompt(view, strategy, machine_state=state), nl=False)


@app.command("plot", epilog=c.example("accord task-exchange plot competitive --out fig2.png"))
def plot_cmd(scenario: str = typer.Argument(..., help="Built-in scenario name or .yaml path."),
             out: Path = c.out_option("PNG file to write.", required=True),
             agents: str = typer.Option("utility-aware,utility-aware", "--agents", "-a",
                                        help="Two agent specs, comma separated."),
             strategy: str = typer.Option("utility-aware", "--strategy",
                                          help="utility-aware | baseline"),
             repeat: int = c.repeat_option(5, "Episodes to draw (seeds SEED, SEED+1, ...)."),
             runs: int | None = c.alias_option("--runs"),
             seed: int = c.seed_option()) -> None:
    """Run episodes and draw their proposal trajectories in the utility plane (Figure 2)."""
    import asyncio

    from accord.agents.spec import parse_agent_list
    from accord.domains.base import EpisodeSpec, RunContext
    from accord.domains.task_exchange import DOMAIN, get_scenario
    from accord.domains.task_exchange.plot import render_trajectories_png

    n = c.pick(None if repeat == 5 else repeat, runs, "--runs", "--repeat") or repeat
    c.check_out_path(out)
    specs = _agents(agents)
    records = []
    for k in range(n):
        spec = EpisodeSpec("task-exchange", scenario, tuple(parse_agent_list(",".join(specs))),
                           {"strategy": strategy}, seed + k)
        records.append(asyncio.run(DOMAIN.run_episode(spec, RunContext())).record)
    sc = get_scenario(scenario)
    title = f"{sc.name} - {strategy} - {' vs '.join(specs)}"
    out.write_bytes(render_trajectories_png(sc, records, title))
    typer.echo(f"wrote {out}")


@app.command("generate", epilog=c.example(
    "accord task-exchange generate --model openai/gpt-4.1-mini --out my.yaml --cache llm.db",
    "accord task-exchange generate --model mock/task-exchange-generator --out demo.yaml"))
def generate_cmd(
    model: str = typer.Option(..., "--model", help="model string, e.g. openai/gpt-4.1-mini"),
    out: Path = c.out_option("Scenario file to write (FILE.yaml); its tasks file goes next "
                             "to it as FILE.tasks.yaml.", required=True),
    preferences: str = typer.Option("cooperative", "--preferences", help="YAML file {name, "
                                    "title, agents: [{role, main_task, preference}]} or a "
                                    "built-in scenario whose agents to reuse"),
    tasks: Path | None = typer.Option(None, "--tasks", help="tasks file (atomic and main "
                                      "tasks; default: the built-in one)"),
    name: str | None = typer.Option(None, "--name", help="scenario name (default: the "
                                    "output file's stem)"),
    keep_descriptions: bool = typer.Option(False, "--keep-descriptions", help="reuse the "
                                           "tasks file's composite descriptions; only "
                                           "score them"),
    temperature: float | None = typer.Option(None, "--temperature",
                                             help="Sampling temperature of the model."),
    cache: Path | None = c.cache_option(),
    cache_mode: str = c.cache_mode_option(),
    llm_timeout: float | None = c.llm_timeout_option(),
    as_json: bool = c.json_option(),
) -> None:
    """Generate a scenario with an LLM: composite descriptions, then each agent's raw
    0-100 scores from its natural-language preference, normalised by its maximum."""
    import asyncio

    from accord.agents.llm_support import runtime_for
    from accord.domains.task_exchange import ScenarioError, generate_scenario, load_scenario
    from accord.domains.task_exchange.generation import scenario_to_yaml, universe_to_yaml
    from accord.domains.task_exchange.generators import load_preferences
    from accord.domains.task_exchange.load import DATA_DIR, load_task_list, load_universe
    from accord.domains.task_exchange.metrics import initial_row, scenario_front
    from accord.llm import GenerationConfig, LLMError

    llm = c.llm_settings(cache, cache_mode, timeout=llm_timeout)
    src = tasks or DATA_DIR / "tasks.yaml"
    try:
        prefs = load_preferences(preferences)
        uni_name, atomic, mains = load_task_list(src)
        descriptions = load_universe(src).descriptions if keep_descriptions else None
    except ScenarioError as exc:
        raise c.fail(str(exc)) from None
    scenario_name = name or out.stem
    settings: dict[str, Any] = {"cache": llm.get("cache"),
                                "cache_mode": llm.get("cache_mode", "rw")}
    config = GenerationConfig(temperature=temperature)
    scope = f"task-exchange-generate/{scenario_name}"

    async def main() -> Any:
        runtime = runtime_for(settings)
        client = runtime.client(model, config)
        try:
            return await generate_scenario(
                client, name=scenario_name, atomic=atomic, main_tasks=mains,
                agents=prefs["agents"], universe_name=f"{uni_name}-{scenario_name}",
                title=prefs.get("title", ""), turn_limit=int(prefs.get("turn_limit", 10)),
                descriptions=descriptions, config=config, scope=scope), \
                runtime.tracker.by_episode().get(scope)
        finally:
            await runtime.aclose()

    try:
        scenario, totals = asyncio.run(main())
    except (LLMError, ScenarioError, RuntimeError) as exc:
        raise c.fail(f"{type(exc).__name__}: {exc}", c.EXIT_FAILED) from None
    tasks_file = out.with_name(out.stem + ".tasks.yaml")
    out.parent.mkdir(parents=True, exist_ok=True)
    tasks_file.write_text(universe_to_yaml(scenario.universe), encoding="utf-8")
    out.write_text(scenario_to_yaml(scenario, tasks_file.name), encoding="utf-8")
    again = load_scenario(out)  # what was written loads back
    ini = initial_row(again)
    usage = totals.to_dict() if totals is not None else {}
    summary = {"scenario": str(out), "tasks": str(tasks_file), "name": again.name,
               "roles": list(again.roles), "composites": len(again.universe.descriptions),
               "initial": ini,
               "pareto_front": [[float(a), float(b)] for a, b in scenario_front(again)],
               "usage": usage}
    if as_json:
        c.emit_json(summary)
        return
    typer.echo(f"wrote {out} and {tasks_file}")
    utils = ", ".join(f"{r} {u:.2f}" for r, u in ini["utilities"].items())
    typer.echo(f"  initial: {utils}; SW {ini['social_welfare']:.2f}; "
               f"L2 to Pareto {ini['l2_to_pareto']:.3f}")


@app.command("tables", epilog=c.example("accord task-exchange tables runs/task_exchange_table1.db"))
def tables_cmd(store: Path = typer.Argument(..., help="results store of accord bench"),
               run: str | None = typer.Option(None, "--run", help="one run of the store"),
               as_json: bool = c.json_option()) -> None:
    """Print the Table 1 (a, b, c) and Table 2 layouts from a results store."""
    from accord.bench import Store, StoreError
    from accord.domains.task_exchange.domain import paper_table_layout

    try:
        with Store.open_readonly(store) as st:
            episodes = [e.to_dict() for e in st.episodes(run)]
    except StoreError as exc:
        raise c.fail(str(exc)) from None
    try:
        text, tables = paper_table_layout(episodes)
    except ValueError:
        raise c.fail(f"no finished task-exchange episodes in {store}"
                     + (f" (run {run})" if run else ""), c.EXIT_FAILED) from None
    if as_json:
        c.emit_json(tables)
        return
    typer.echo(text, nl=False)


__all__ = ["app", "generate_cmd", "run_target", "tables_cmd"]
