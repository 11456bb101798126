"""``accord run`` and ``accord analyze``: one episode or one scenario analysis.

Imported when one of those commands runs (not at ``accord --help`` time).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import typer

from accord.cli import common as c


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
                   out: Path | None, as_json: bool, params: dict[str, Any],
                   llm: dict[str, Any] | None = None, quiet: bool = False,
                   max_outcomes: int | None = None) -> None:
    """Run one bargaining episode and print it."""
    from accord.agents.spec import AgentSpecError, parse_agent_list
    from accord.core.outcomes import DEFAULT_MAX_OUTCOMES
    from accord.domains.bargaining import (
        ScenarioError,
        check_params,
        resolve_scenario,
        run_negotiation,
    )
    from accord.domains.bargaining.runner import ParamError

    try:
        scenario = resolve_scenario(target, max_outcomes or DEFAULT_MAX_OUTCOMES)
        specs = parse_agent_list(agents)
        if max_rounds is not None:
            params["max_rounds"] = max_rounds
        check_params(params)
        from accord.domains import EpisodeSpec

        spec = EpisodeSpec("bargaining", target.removeprefix("bargaining/"), tuple(specs),
                           dict(params), seed)
        result = asyncio.run(run_negotiation(scenario, specs, params=params, seed=seed,
                                              ctx={"llm": llm or {},
                                                   "episode_id": _episode_id(spec),
                                                   "seat": _seat(specs, as_json)}))
    except (ScenarioError, AgentSpecError, ParamError, ValueError) as exc:
        # ValueError: protocol or agent construction refused its settings (the episode
        # itself turns every error into a record, never an exception)
        raise c.fail(str(exc)) from None
    if out is not None:
        c.write_trajectory(result.trajectory, out)
    summary = result.summary()
    if as_json:
        c.emit_json(bargaining_json(summary))
        _exit_on_error(result.status)
        return
    from accord.cli.render import print_negotiation_record, print_transcript

    console = c.console()
    if not quiet:
        console.print(f"[bold]{c.plain(scenario.name)}[/]: "
                      f"{c.plain(', '.join(scenario.party_names))} "
                      f"({c.plain(', '.join(str(s) for s in specs))}), "
                      f"{scenario.space.size} outcomes")
        print_transcript(console, result.trajectory)
    print_negotiation_record(console, summary)
    if out is not None and not quiet:
        console.print(f"trajectory log: {c.plain(out)}")
    _exit_on_error(result.status)


def _seat(specs: Any, as_json: bool) -> Any:
    """A terminal seat when a person plays (``human`` in the line-up), else ``None``.

    With ``--json`` the prompts go to stderr so stdout stays one JSON document.
    """
    if not any(getattr(s, "kind", None) == "human" for s in specs):
        return None
    from accord.play.terminal import TerminalSeat

    return TerminalSeat(c.console(stderr=as_json))


def _exit_on_error(status: str) -> None:
    """An episode that ended in status ``error`` is reported, then exits 1 (for scripts)."""
    if status == "error":
        raise typer.Exit(c.EXIT_FAILED)


def analyze_target(target: str, as_json: bool, max_outcomes: int | None) -> None:
    """``accord analyze``: the frontier and the bargaining solutions of one scenario."""
    from accord.core.outcomes import DEFAULT_MAX_OUTCOMES
    from accord.domains.bargaining import ScenarioError, analyze, resolve_scenario

    cap = DEFAULT_MAX_OUTCOMES if max_outcomes is None else max_outcomes
    try:
        scenario = resolve_scenario(target, cap)  # refused before any array is allocated
    except ScenarioError as exc:
        raise c.fail(str(exc)) from None
    if scenario.space.size > cap:
        raise c.fail(f"{scenario.name}: {scenario.space.size} outcomes is more than the "
                     f"analysis cap of {cap}; raise it with --max-outcomes N (memory grows "
                     "with outcomes x parties)")
    data = analyze(scenario)
    if as_json:
        c.emit_json(data)
        return
    from rich.table import Table

    console = c.console()
    console.print(f"[bold]{c.plain(data['scenario'])}[/]: {data['outcomes']} outcomes, "
                  f"{data['individually_rational']} individually rational, "
                  f"{len(data['pareto'])} Pareto-optimal")
    parties = data["parties"]
    t = Table("point", "outcome", *[c.plain(p) for p in parties])
    for key in ("nash", "kalai", "kalai_smorodinsky", "max_welfare"):
        pt = data[key]
        if pt is None:
            t.add_row(key, "none (no individually rational outcome)", *["-"] * len(parties))
        else:
            t.add_row(key, c.plain(", ".join(f"{k}={v}" for k, v in pt["outcome"].items())),
                      *[f"{pt['utilities'][p]:.3f}" for p in parties])
    console.print(t)
    f = Table("Pareto-optimal outcome", *[c.plain(p) for p in parties])
    for pt in data["pareto"]:
        f.add_row(c.plain(", ".join(f"{k}={v}" for k, v in pt["outcome"].items())),
                  *[f"{pt['utilities'][p]:.3f}" for p in parties])
    console.print(f)


def _episode_id(spec: Any) -> str:
    """The episode's id (:func:`accord.domains.ids.episode_id`, as ``accord bench`` gives it)."""
    from accord.domains.ids import episode_id

    return str(episode_id(spec))


def _summarizer(domain: str) -> Any:
    if domain == "task-exchange":
        from accord.cli.task_exchange import summarize

        return summarize
    if domain == "deliberation":
        from accord.cli.deliberation import summarize as summarize_deliberation

        return summarize_deliberation
    return None


def run_domain(domain: str, rest: str, *, agents: str, seed: int, max_rounds: int | None,
               out: Path | None, as_json: bool, strategy: str, instance: int, tools: bool,
               llm: dict[str, Any], quiet: bool = False, data: Path | None = None) -> None:
    """``accord run DOMAIN/SCENARIO`` for the domains other than bargaining."""
    from accord.agents.spec import AgentSpecError, parse_agent_list
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
    elif domain == "games" and max_rounds is not None:  # the cheap-talk rounds before play
        params["negotiation_rounds"] = max_rounds
    summarize = _summarizer(domain)
    try:
        dom = get_domain(domain)
        spec = EpisodeSpec(domain, scenario, tuple(parse_agent_list(agents)), params, seed)
        validate = getattr(dom, "validate", None)
        ctx = RunContext(episode_id=_episode_id(spec), llm=llm,
                         data=None if data is None else str(data),
                         extra={"seat": _seat(spec.agents, as_json)})
        if validate is not None:
            validate(spec)
        result = asyncio.run(dom.run_episode(spec, ctx))
    except (ValueError, KeyError, AgentSpecError, FileNotFoundError) as exc:
        raise c.fail(str(exc.args[0]) if isinstance(exc, KeyError) else str(exc)) from None
    if out is not None:
        c.write_trajectory(result.trajectory, out)
    record = summarize(spec, result) if summarize else {**result.summary(),
                                                        "metrics": dom.metrics(spec, result)}
    if as_json:
        c.emit_json(record)
        _exit_on_error(result.status)
        return
    from accord.cli.render import print_record_fields, print_transcript

    console = c.console()
    if not quiet:
        console.print(f"[bold]{c.plain(domain)}/{c.plain(rest)}[/]: "
                      f"{c.plain(', '.join(str(a) for a in spec.agents))}")
        print_transcript(console, result.trajectory)
    print_record_fields(console, record)
    _exit_on_error(result.status)
