"""``accord series``: the same parties play N episodes, remembering earlier ones (see
:mod:`accord.bench.series`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import typer

from accord.cli import common as c
from accord.core.numbers import figure, rate, value_text

SERIES_EXAMPLES = c.example(
    "accord series bargaining/buyer-seller --agents llm:mock/negotiator,boulware -n 5",
    "accord series bargaining/buyer-seller -a llm:openai/gpt-4.1-mini,boulware -n 20 "
    "--critic code --save runs/series.db",
    "accord series games/stag-hunt -a llm:mock/games,rational -n 4 --no-memory --json")


def series_command(
    target: str = typer.Argument(..., metavar="TARGET", help="DOMAIN/SCENARIO or a scenario "
                                 "file, as for accord run."),
    agents: str = typer.Option(..., "--agents", "-a", metavar="SPECS", help="The line-up, "
                               "one spec per party (the same in every episode)."),
    episodes: int = typer.Option(5, "--episodes", "-n", min=1, metavar="N", help="Episodes "
                                 "in the series (seeds SEED, SEED+1, ...)."),
    memory: bool = typer.Option(True, "--memory/--no-memory", help="Give each LLM party a "
                                "summary of its earlier episodes (what it observed)."),
    keep: int = typer.Option(0, "--keep", min=0, metavar="N", help="Earlier episodes a party "
                             "remembers (0: all)."),
    critic: str | None = typer.Option(None, "--critic", metavar="code|llm:MODEL", help="After "
                                      "each episode a critic writes feedback each party's "
                                      "next episode carries."),
    critic_for: list[str] = typer.Option([], "--critic-for", metavar="ROLE", help="The "
                                         "parties the critic advises (repeatable; default "
                                         "all)."),
    seed: int = c.seed_option(),
    max_rounds: int | None = typer.Option(None, "--max-rounds", help="Round cap."),
    param: list[str] = typer.Option([], "--param", "-p", metavar="KEY=VALUE",
                                    help="A domain parameter (repeatable; VALUE read as YAML)."),
    save: Path | None = typer.Option(None, "--save", metavar="STORE", help="Store the "
                                     "episodes (run accord-series) for accord results "
                                     "--series, show and serve."),
    as_json: bool = c.json_option(),
    data: Path | None = c.data_option(),
    cache: Path | None = c.cache_option(),
    cache_mode: str = c.cache_mode_option(),
    llm_option: list[str] = c.llm_option_option(),
    llm_timeout: float | None = c.llm_timeout_option(),
) -> None:
    """Repeated play: the same parties meet N times, each LLM party remembering its
    earlier episodes (outcomes, its own results, the other side's offers; never the other
    side's private values), optionally coached by a critic between episodes. Prints each
    episode and the series' trends: agreement, surplus, share drift (exploitation) and
    offer diversity (0 = every episode repeats the same offers)."""
    from accord.agents.spec import AgentSpecError, parse_agent_list
    from accord.bench.series import SeriesRequest, run_series, save_series, series_metrics
    from accord.bench.store import StoreError
    from accord.cli.run import domain_params, parse_params, resolve_target
    from accord.domains import get_domain

    llm = c.llm_settings(cache, cache_mode, options=c.parse_llm_options(llm_option),
                         timeout=llm_timeout)
    name, rest = resolve_target(target)
    try:
        dom = get_domain(name)
        spec = dom.run_spec(rest, parse_agent_list(agents),
                            domain_params(dom, {"max_rounds": max_rounds}, parse_params(param)),
                            seed)
        req = SeriesRequest(spec, episodes, memory, keep, critic, tuple(critic_for) or None)
        sid, played = run_series(req, llm, None if data is None else str(data))
        if save is not None:
            save_series(save, sid, req, played)
    except (ValueError, KeyError, TypeError, AgentSpecError, OSError, StoreError) as exc:
        raise c.fail(str(exc.args[0]) if isinstance(exc, KeyError) and exc.args
                     else str(exc)) from None
    rows = [_row(ep.index, ep.id, ep.result.summary(), ep.metrics, ep.feedback)
            for ep in played]
    metrics = series_metrics([{"summary": ep.result.summary(), "metrics": ep.metrics,
                               "events": ep.result.trajectory.events} for ep in played])
    if as_json:
        c.emit_json({"series": sid, "episodes": [
            {**r, "memory_in": ep.memory, "feedback": ep.feedback}
            for r, ep in zip(rows, played, strict=True)], "metrics": metrics,
            **({"saved": {"store": str(save), "run": "accord-series"}} if save else {})})
        return
    console = c.console()
    print_series(console, sid, rows, metrics)
    if save is not None:
        c.console(stderr=True).print(f"stored the series in {c.plain(save)} (run "
                                     f"accord-series); accord results {c.plain(save)} --series "
                                     "shows it again")


def _row(index: int, eid: str, summary: Mapping[str, Any], metrics: Mapping[str, Any] | None,
         feedback: Mapping[str, str]) -> dict[str, Any]:
    from accord.bench.lineage import party_values

    return {"episode": index + 1, "id": eid, "status": summary.get("status"),
            "reason": summary.get("reason"), "rounds": summary.get("rounds"),
            "values": party_values(summary, metrics), "feedback": dict(feedback)}


def print_series(console: Any, sid: str, rows: Sequence[Mapping[str, Any]],
                 metrics: Mapping[str, Any]) -> None:
    """A series' episodes and its trends, rounded for people."""
    from rich.table import Table

    names: list[str] = []
    for r in rows:
        names += [n for n in r["values"] if n not in names]
    t = Table("#", "id", "outcome", "rounds", *names, title=f"series {sid[:8]}")
    for r in rows:
        outcome = str(r["status"]) + (f" ({r['reason']})" if r.get("reason") else "")
        t.add_row(str(r["episode"]), r["id"][:8], c.plain(outcome), str(r["rounds"]),
                  *(value_text(r["values"][n]) if n in r["values"] else "–" for n in names))
    console.print(t)
    m = Table("trend", "value", title="over the series")
    for k, v in metrics.items():
        m.add_row(c.plain(k.replace("_", " ")), "–" if v is None else
                  rate(v) if k.endswith("_rate") and isinstance(v, (int, float))
                  else figure(v) if isinstance(v, float) else c.plain(v))
    console.print(m)
    last = next((r for r in reversed(rows) if r.get("feedback")), None)
    if last is not None:
        for role, text in last["feedback"].items():
            console.print(f"critic to {c.plain(role)} after episode {last['episode']}: "
                          f"{c.plain(text)}", highlight=False)


def print_stored_series(store: Path, as_json: bool) -> None:
    """``accord results STORE --series``: every stored series, its episodes and trends."""
    import json

    from accord.bench.series import series_metrics
    from accord.bench.store import Store, StoreError

    try:
        with Store.open_readonly(store) as st:
            groups: dict[str, list[Any]] = {}
            for e in st.episodes():
                info = e.spec.get("series")
                if isinstance(info, Mapping) and info.get("id"):
                    groups.setdefault(str(info["id"]), []).append(e)
            found = []
            for sid, eps in groups.items():
                eps.sort(key=lambda e: int(e.spec["series"].get("index", 0)))
                events = [[json.loads(line) for line in (st.trajectory(e.run, e.id) or "")
                           .splitlines() if line.strip()] for e in eps]
                metrics = series_metrics([{"summary": e.summary or {}, "metrics": e.metrics,
                                           "events": ev} for e, ev in zip(eps, events,
                                                                          strict=True)])
                rows = [_row(int(e.spec["series"].get("index", 0)), e.id, e.summary or {},
                             e.metrics, ((e.summary or {}).get("series") or {})
                             .get("feedback") or {}) for e in eps]
                found.append((sid, rows, metrics))
    except StoreError as exc:
        raise c.fail(str(exc)) from None
    if as_json:
        c.emit_json({"series": [{"id": sid, "episodes": rows, "metrics": m}
                                for sid, rows, m in found]})
        return
    console = c.console()
    if not found:
        console.print(f"no series in {c.plain(store)}: play one with accord series TARGET "
                      "--agents SPECS -n N --save STORE")
    for sid, rows, m in found:
        print_series(console, sid, rows, m)


__all__ = ["SERIES_EXAMPLES", "print_series", "print_stored_series", "series_command"]
