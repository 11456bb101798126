"""``accord deliberation ...``: solve, list, check, generate and run deliberation instances.

``run_target`` is the library entry point behind ``accord run deliberation/<setting>``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from accord.cli import common as c

app = c.group_app(
    "deliberation", "Deliberative collaboration under partial observability: menu design "
    "and task allocation.")


#: default ``--time-limit`` of ``accord deliberation solve`` (seconds)
DEFAULT_SOLVE_SECONDS = 60.0  # = accord.domains.deliberation.ilp.DEFAULT_TIME_LIMIT


def _fail(message: str) -> None:
    raise c.fail(message)


def _setting(setting: str) -> None:
    from accord.core.names import unknown_name
    from accord.domains.deliberation import SETTINGS

    if setting not in SETTINGS:
        _fail(unknown_name("setting", setting, SETTINGS))


def run_target(setting: str, instance: int | str = 0, agents: list[str] | None = None,
               tools: bool = False, seed: int = 0, llm: dict[str, Any] | None = None,
               **params: Any) -> dict[str, Any]:
    """Run one deliberation episode and return its JSON-ready summary.

    ``setting`` is ``menu-numeric``, ``menu-semantic`` or ``task-allocation`` (a
    ``setting/N`` string also works); ``instance`` a shipped index or a path to an instance
    JSON file; ``agents`` agent specs (``share``, ``naive``, ``centralized``, ``oracle``,
    or kinds registered later such as LLM agents; default: ``share`` for every role);
    extra ``params`` go to the episode (``mode``, ``max_rounds``, ``max_chars``). Keys:
    ``reward``, ``max_reward``, ``nr``, ``nar``, ``valid``, ``hr``, ``nmae_pub``,
    ``decision`` plus ``status``, ``reason``, ``rounds``, ``mode``, ``instance``,
    ``tool_nr``, ``tool_compliance``.
    """
    import asyncio

    from accord.agents.spec import parse_agent_list
    from accord.cli.run import _episode_id
    from accord.domains.base import EpisodeSpec, RunContext
    from accord.domains.deliberation import DOMAIN, TaskInstance
    from accord.domains.deliberation.domain import resolve_instance

    base, _, idx = setting.partition("/")
    p: dict[str, Any] = dict(params)
    if isinstance(instance, str) and not instance.isdigit():
        p["instance_file"] = instance
    else:
        p["instance"] = int(idx or instance)
    p["tools"] = bool(tools)
    if agents is None:
        probe = resolve_instance(EpisodeSpec("deliberation", base, (), p, seed))
        n = len(probe.agents) if isinstance(probe, TaskInstance) else 2
        agents = ["share"] * n
    specs = tuple(parse_agent_list(",".join(agents)))
    spec = EpisodeSpec("deliberation", base, specs, p, seed)
    ctx = RunContext(episode_id=_episode_id(spec), llm=llm or {})  # LLM cache entries replay
    result = asyncio.run(DOMAIN.run_episode(spec, ctx))
    return DOMAIN.summary(spec, result)


@app.command(epilog=c.example("accord deliberation solve my-instance.json --json"))
def solve(path: Path = typer.Argument(..., help="Instance JSON file."),
          time_limit: float = typer.Option(
              DEFAULT_SOLVE_SECONDS, "--time-limit", metavar="SECONDS", min=0.001, max=1e6,
              help="Stop the ILP search after SECONDS and report the best decision found, "
                   "marked not proven optimal (JSON: optimal false). The shipped instances "
                   "solve in milliseconds; a hostile one within the size caps runs for "
                   "minutes or more."),
          as_json: bool = c.json_option()) -> None:
    """Solve an instance exactly (ILP with HiGHS) and print the optimal reward and decision."""
    from accord.domains.deliberation import DataError, load_instance, optimum
    from accord.solvers.ilp import ILPError, check_time_limit

    try:
        check_time_limit(time_limit)
    except ValueError as exc:
        _fail(f"--time-limit: {exc}")
    try:
        inst = load_instance(path)
    except DataError as exc:
        _fail(str(exc))
        return
    try:
        best = optimum(inst, time_limit)
    except ILPError as exc:
        _fail(f"{path}: {exc}")
        return
    decision: Any = list(best.decision) if isinstance(best.decision, tuple) else best.decision
    if as_json:
        c.emit_json({"reward": best.reward, "decision": decision, "optimal": best.optimal,
                     "time_limit": time_limit})
        return
    if best.optimal:
        typer.echo(f"{inst.setting} {inst.id or path}: optimal reward {best.reward:g}")
    else:
        typer.echo(f"{inst.setting} {inst.id or path}: best reward found {best.reward:g}, not "
                   f"proven optimal (the time limit of {time_limit:g} s ran out first)")
    if isinstance(decision, list):
        for dish in decision:
            typer.echo(f"  - {dish}")
    else:
        for task, agent in decision.items():
            typer.echo(f"  {task} -> {agent}")


@app.command("list", epilog=c.example("accord deliberation list",
                                       "accord deliberation list menu-semantic --json"))
def list_(setting: str = typer.Argument(None, help="Show the instances of one setting."),
          as_json: bool = c.json_option()) -> None:
    """List the settings and their shipped instances."""
    from accord.domains.deliberation.catalog import instance_count
    from accord.domains.deliberation.listing import SETTINGS

    if setting is None:  # a listing of files: no instance is parsed, no solver imported
        counts = {s: instance_count(s) for s in SETTINGS}
        if as_json:
            c.emit_json({"settings": counts})
        else:
            for s, n in counts.items():
                typer.echo(f"{s:16} {n} instances")
        return
    _setting(setting)
    from accord.domains.deliberation import MenuInstance, optimum, shipped_instance

    rows = []
    for i in range(instance_count(setting)):
        inst = shipped_instance(setting, i)
        size = len(inst.recipes) if isinstance(inst, MenuInstance) else len(inst.tasks)
        rows.append({"index": i, "id": inst.id, "size": size, "max_reward": optimum(inst).reward,
                     "domain": inst.extra.get("domain")})
    if as_json:
        c.emit_json({"setting": setting, "instances": rows})
        return
    from accord.core.numbers import figure

    for r in rows:  # every reward with two decimals, lined up (--json: full precision)
        extra = f" ({r['domain']})" if r["domain"] else ""
        typer.echo(f"{r['index']:3d}  {r['id']:22} size {r['size']:2d}  "
                   f"max reward {figure(r['max_reward']):>7}{extra}")


@app.command(epilog=c.example("accord deliberation check my-instance.json"))
def check(path: Path = typer.Argument(..., help="Instance JSON file.")) -> None:
    """Validate an instance file and its observation spec."""
    from accord.domains.deliberation import DataError, load_instance
    from accord.domains.deliberation.observations import check_observations

    try:
        inst = load_instance(path)
    except DataError as exc:
        _fail(str(exc))
        return
    problems = check_observations(inst) if inst.observations else []
    for p in problems:
        typer.echo(f"{path}: observations: {p}", err=True)
    if problems:
        raise typer.Exit(1)
    typer.echo(f"{path}: ok ({inst.setting})")


@app.command(epilog=c.example(
    "accord deliberation run menu-numeric --instance 3 --agents share,share --json",
    "accord deliberation run task-allocation --tools --agents llm:openai/gpt-4.1-mini"))
def run(setting: str = typer.Argument(..., help="menu-numeric | menu-semantic | task-allocation"),
        instance: str = typer.Option("0", "--instance", "-i", help="Index or JSON file."),
        agents: str = typer.Option(None, "--agents", "-a", help="Comma-separated agent specs."),
        tools: bool = typer.Option(False, "--tools", help="Give agents the Solver/Calculator."),
        mode: str = typer.Option(None, "--mode", help="deliberation | centralized | oracle"),
        max_rounds: int = typer.Option(6, "--max-rounds", help="Round cap."),
        max_chars: int = typer.Option(1000, "--max-chars", help="Longest message kept."),
        seed: int = c.seed_option(),
        as_json: bool = c.json_option(),
        cache: Path | None = c.cache_option(),
        cache_mode: str = c.cache_mode_option(),
        llm_timeout: float | None = c.llm_timeout_option()) -> None:
    """Run one episode and print its metrics."""
    params: dict[str, Any] = {"max_rounds": max_rounds, "max_chars": max_chars}
    if mode:
        params["mode"] = mode
    llm = c.llm_settings(cache, cache_mode, timeout=llm_timeout)
    try:
        out = run_target(setting, instance, agents.split(",") if agents else None, tools, seed,
                         llm=llm, **params)
    except (ValueError, KeyError) as exc:
        _fail(str(exc))
        return
    if as_json:
        c.emit_json(out)
    else:
        from accord.cli.render import print_record_fields

        print_record_fields(c.console(), out)
    if out["status"] == "error":
        raise typer.Exit(c.EXIT_FAILED)


@app.command(epilog=c.example("accord deliberation generate menu-numeric --out instances/"))
def generate(setting: str = typer.Argument(..., help="Setting to generate."),
             out: Path = c.out_option("Output folder (a SETTING/ folder is made in it).",
                                      required=True),
             seed: int = c.seed_option(None, "Generator seed (default: the shipped seed)."),
             candidates: int = typer.Option(None, "--candidates",
                                            help="Candidate instances to draw."),
             keep: int = typer.Option(None, "--keep", help="Instances to keep."),
             time_limit: float = typer.Option(
                 None, "--time-limit", metavar="SECONDS",
                 help="Stop drawing candidates after SECONDS and select from those drawn "
                      "(the set is then partial and says so; default: no limit).")) -> None:
    """Generate instances with the paper's selection principles (shipped set: default seed)."""
    from accord.domains.deliberation.generator import write_setting
    from accord.domains.deliberation.search_budget import SearchBudget, check_generate_options

    _setting(setting)
    try:
        check_generate_options(candidates, keep, seed, time_limit)
    except ValueError as exc:
        _fail(str(exc))
    budget = SearchBudget(time_limit)
    paths = write_setting(setting, out, seed, candidates=candidates, keep=keep, budget=budget)
    typer.echo(f"wrote {len(paths)} instances to {out / setting}")
    if budget.stopped:
        c.warn(f"partial: {budget.sentence()}")


@app.command("import", epilog=c.example(
    "accord deliberation import deliberative-collaboration-agents/data --out seed001/",
    "accord bench seed001/table2.yaml --out runs/seed001-table2.db",
    "accord deliberation solve seed001/task-allocation/seed001-task_allocation-level_1_and_2-"
    "game_0000.json"))
def import_(path: Path = typer.Argument(..., help="A game .pkl of the seed-001 authors, or "
                                        "a folder searched for them (recursively)."),
            out: Path = c.out_option("Folder to write SETTING/ID.json files and table2.yaml "
                                     "into.", default=Path(".")),
            setting: list[str] = typer.Option(
                None, "--setting", help="Only this setting (repeatable): menu-numeric, "
                "menu-semantic, task-allocation. A cooking game imports as both menu "
                "settings."),
            force: bool = typer.Option(False, "--force", help="Replace files of the same "
                                       "name in --out."),
            as_json: bool = c.json_option()) -> None:
    """Import the seed-001 authors' test games (pickles) as accord instance files.

    The pickles are read without running any code in them (only the authors' game classes,
    as plain records, and numpy's arrays are admitted); each instance is checked, and
    its stored optimum (x-seed001.max_reward) is what `accord deliberation solve` finds.
    """
    from accord.core.safepickle import PickleRefused
    from accord.domains.deliberation import DataError
    from accord.formats import FormatError
    from accord.formats.seed001 import import_games, table2_spec

    chosen = tuple(setting) if setting else ("menu-numeric", "menu-semantic",
                                             "task-allocation")
    for s in chosen:
        _setting(s)
    try:
        written, skipped = import_games(path, out, force, chosen)
    except (FormatError, PickleRefused, DataError) as exc:
        _fail(str(exc))
        return
    except OSError as exc:
        raise c.fail(f"--out {out}: cannot write: {exc.strerror or exc}",
                     c.EXIT_FAILED) from None
    spec = out / "table2.yaml"
    if written:
        spec.write_text(table2_spec(written), encoding="utf-8")
    counts = {s: len(files) for s, files in written.items()}
    if as_json:
        c.emit_json({"source": str(path), "out": str(out), "written": counts,
                     "files": {s: [str(f) for f in fs] for s, fs in written.items()},
                     "skipped": skipped, "bench_spec": str(spec) if written else None})
        return
    for why in skipped:
        c.warn(f"skipped {why}")
    if not written:
        typer.echo(f"{path}: no game of the chosen settings ({', '.join(chosen)})")
        return
    for s, n in counts.items():
        typer.echo(f"wrote {n} {s} instances to {out / s}")
    typer.echo(f"wrote {spec}: the paper's Table 2 layout on them "
               f"(accord bench {spec} --out runs/seed001-table2.db)")
