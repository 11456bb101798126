"""``accord run`` and ``accord analyze``: one episode or one scenario analysis."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape

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
    Console(stderr=True, soft_wrap=True).print(f"[bold red]error:[/] {escape(message)}",
                                               highlight=False)
    return typer.Exit(code)


CACHE_MODES = ("off", "rw", "replay")


def llm_settings(cache: Path | str | None, cache_mode: str) -> dict[str, Any]:
    """LLM settings from ``--cache``/``--cache-mode``, refusing combinations that would
    silently spend money (replay with no cache to replay from) or mean nothing."""
    if cache_mode not in CACHE_MODES:
        raise fail(f"--cache-mode must be one of {', '.join(CACHE_MODES)}, got {cache_mode!r}")
    if cache is None:
        if cache_mode == "replay":
            raise fail("--cache-mode replay needs --cache PATH (the recorded cache to replay)")
        return {}
    if cache_mode == "replay" and not Path(cache).exists():
        raise fail(f"--cache-mode replay: no cache at {cache}; record it first with "
                   "--cache-mode rw")
    return {"cache": str(cache), "cache_mode": cache_mode}


def check_log_path(log: Path | None) -> None:
    """Fail before running (and before any paid call) when ``--log`` cannot be written."""
    if log is None:
        return
    if log.is_dir():
        raise fail(f"--log {log} is a directory; give a file path")
    if not log.parent.exists():
        raise fail(f"--log {log}: folder {log.parent} does not exist")


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
    except (ScenarioError, AgentSpecError, ParamError, ValueError) as exc:
        # ValueError: protocol or agent construction refused its settings (the episode
        # itself turns every error into a record, never an exception)
        raise fail(str(exc)) from None
    if log is not None:
        result.trajectory.write(log)
    summary = result.summary()
    if as_json:
        sys.stdout.write(json.dumps(bargaining_json(summary), allow_nan=False) + "\n")
        _exit_on_error(result.status)
        return
    console = Console()
    console.print(f"[bold]{scenario.name}[/]: {', '.join(scenario.party_names)} "
                  f"({', '.join(str(s) for s in specs)}), {scenario.space.size} outcomes")
    print_transcript(console, result.trajectory)
    print_negotiation_record(console, summary)
    if log is not None:
        console.print(f"trajectory log: {log}")
    _exit_on_error(result.status)


def _exit_on_error(status: str) -> None:
    """An episode that ended in status ``error`` is reported, then exits 1 (for scripts)."""
    if status == "error":
        raise typer.Exit(1)


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


def _episode_id(spec: Any) -> str:
    import hashlib

    return hashlib.sha256(json.dumps(spec.to_dict(), sort_keys=True).encode()).hexdigest()[:16]


def _summarizer(domain: str) -> Any:
    if domain == "task-exchange":
        from accord.cli.task_exchange import summarize

        return summarize
    if domain == "deliberation":
        from accord.cli.deliberation import summarize as summarize_deliberation

        return summarize_deliberation
    return None


def run_domain(domain: str, rest: str, *, agents: str, seed: int, max_rounds: int | None,
               log: Path | None, as_json: bool, strategy: str, instance: int, tools: bool,
               llm: dict[str, Any]) -> None:
    """``accord run DOMAIN/SCENARIO`` for the domains other than bargaining."""
    from accord.agents.spec import parse_agent_list
    from accord.domains import EpisodeSpec, RunContext, get_domain

    params: dict[str, Any] = {}
    scenario = rest
    if domain == "task-exchange":
        params["strategy"] = strategy
        if max_rounds is not None:
            params["turn_limit"] = max_rounds
    elif domain == "deliberation":
        setting, _, idx = rest.partition("/")
        scenario = setting
        params.update(instance=int(idx) if idx.isdigit() else instance, tools=tools)
        if max_rounds is not None:
            params["max_rounds"] = max_rounds
    elif domain == "deal-or-no-deal" and max_rounds is not None:
        params["rounds"] = max_rounds
    summarize = _summarizer(domain)
    try:
        dom = get_domain(domain)
        spec = EpisodeSpec(domain, scenario, tuple(parse_agent_list(agents)), params, seed)
        validate = getattr(dom, "validate", None)
        if validate is not None:
            validate(spec)
        result = asyncio.run(dom.run_episode(spec, RunContext(episode_id=_episode_id(spec),
                                                              llm=llm)))
    except (ValueError, KeyError, AgentSpecError, FileNotFoundError) as exc:
        raise fail(str(exc.args[0]) if isinstance(exc, KeyError) else str(exc)) from None
    if log is not None:
        result.trajectory.write(log)
    out = summarize(spec, result) if summarize else {**result.summary(),
                                                     "metrics": dom.metrics(spec, result)}
    if as_json:
        sys.stdout.write(json.dumps(out, default=str) + "\n")
        _exit_on_error(result.status)
        return
    console = Console()
    console.print(f"[bold]{domain}/{rest}[/]: {', '.join(str(a) for a in spec.agents)}")
    print_transcript(console, result.trajectory)
    from rich.table import Table

    t = Table("field", "value")
    for key, val in out.items():
        t.add_row(str(key), json.dumps(val, default=str) if isinstance(val, (dict, list))
                  else str(val))
    console.print(t)
    _exit_on_error(result.status)
