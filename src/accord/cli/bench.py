"""``accord bench``, ``accord results`` and ``accord show``: run sweeps, read the store.

Registered on the root app as plain commands::

    app.command("bench")(bench_command)
    app.command("results")(results_command)
    app.command("show")(show_command)

``python -m accord.cli.bench`` runs the same three commands standalone.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from accord.agents.spec import AgentSpecError
from accord.bench import (
    AggregateError,
    BenchOptions,
    BenchReport,
    ConfigError,
    Store,
    StoreError,
    aggregate,
    episode_rows,
    expand,
    load_config,
    print_table,
    run_bench,
    select,
    store_path,
    to_csv,
    to_json,
    to_markdown,
    write_parquet,
)
from accord.bench.tables import dumps, rich_table
from accord.cli.render import print_transcript
from accord.core.trajectory import Trajectory

#: exit codes: 0 every planned episode done, 1 some failed, 2 bad input, 130 interrupted
EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 1, 2, 130
FORMATS = ("table", "csv", "md", "json", "parquet")
#: after a run, print the grouped table only up to this many groups
MAX_SUMMARY_GROUPS = 24
CACHE_MODES = ("off", "rw", "replay")


def _fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    Console(stderr=True, soft_wrap=True).print(f"[bold red]error:[/] {escape(message)}",
                                               highlight=False)
    return typer.Exit(code)


def _summary(console: Console, rep: BenchReport) -> None:
    n = rep.done + rep.failed
    rate = n / rep.run_seconds if rep.run_seconds > 0 else 0.0
    console.print(
        f"[bold]{rep.run}[/]: {rep.planned} episodes planned, {rep.already_done} already done"
        + (f", {rep.skipped_failed} failed before (not retried)" if rep.skipped_failed else "")
        + f"; ran {rep.done + rep.failed} of {rep.queued}: [green]{rep.done} done[/], "
        + (f"[red]{rep.failed} failed[/]" if rep.failed else "0 failed")
        + f" in {rep.run_seconds:.1f} s ({rate:.1f} ep/s); store {rep.store}", highlight=False)
    if rep.first_error is not None:
        eid, line = rep.first_error
        console.print(f"first failure {eid}: {escape(line)}\n  inspect: accord show "
                      f"{rep.store} {eid}"
                      f"; rerun with --retry-failed", highlight=False)
    if rep.stale:
        console.print(f"note: {rep.stale} stored episodes of run {rep.run!r} are not in this "
                      "config any more; they are kept and included by accord results",
                      highlight=False)
    if rep.interrupted:
        console.print("[yellow]interrupted[/]: finished episodes are stored; run the same "
                      "command again to resume", highlight=False)


def bench_command(
    config: Path = typer.Argument(..., help="experiment spec (YAML), e.g. configs/demo.yaml"),
    store: Path | None = typer.Option(None, "--store", help="results store (default: the "
                                      "config's 'store', else runs/<name>.db)"),
    concurrency: int | None = typer.Option(None, "--concurrency", "-c", min=1,
                                           help="episodes in flight (local default 8; "
                                           "process: CPU count; ray: cluster CPUs)"),
    executor: str | None = typer.Option(None, "--executor", "-x", help="local | process | "
                                        "ray | ray:ADDRESS | ray://ADDRESS"),
    retry_failed: bool = typer.Option(False, "--retry-failed",
                                      help="run failed episodes again"),
    retry_errors: bool = typer.Option(False, "--retry-errors", help="also rerun finished "
                                      "episodes whose outcome is 'error' (agent crashes)"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bar or summary"),
    cache: Path | None = typer.Option(None, "--cache", help="LLM cache file"),
    cache_mode: str | None = typer.Option(None, "--cache-mode", help="LLM cache: off | rw | "
                                          "replay"),
    data: Path | None = typer.Option(None, "--data", help="data directory for domains"),
    limit: int | None = typer.Option(None, "--limit", min=0,
                                     help="run at most N of the pending episodes"),
    dry_run: bool = typer.Option(False, "--dry-run", help="expand and count, run nothing"),
) -> None:
    """Run (or resume) every episode of an experiment spec into a SQLite store."""
    if cache_mode is not None and cache_mode not in CACHE_MODES:
        raise _fail(f"--cache-mode must be one of {', '.join(CACHE_MODES)}, got {cache_mode!r}")
    llm: dict[str, Any] = {}
    if cache is not None:
        llm["cache"] = str(cache)
    if cache_mode is not None:
        llm["cache_mode"] = cache_mode
    console = Console()
    try:
        cfg = load_config(config)
        plan = expand(cfg)
    except (ConfigError, AgentSpecError) as exc:
        raise _fail(str(exc)) from None
    merged = {**(cfg.llm or {}), **llm}
    if merged.get("cache_mode") == "replay" and not merged.get("cache"):
        raise _fail("--cache-mode replay needs a cache to replay: --cache PATH (or llm.cache "
                    "in the config)")
    options = BenchOptions(store=store, executor=executor, concurrency=concurrency,
                           retry_failed=retry_failed, retry_errors=retry_errors, quiet=quiet,
                           llm=llm, data=None if data is None else str(data), limit=limit)
    if dry_run:
        _dry_run(console, cfg.name, plan, store_path(cfg, options), options)
        return
    try:
        rep = run_bench(cfg, options, plan)
    except (StoreError, ValueError, RuntimeError) as exc:
        raise _fail(str(exc)) from None
    if not quiet:
        _summary(console, rep)
        with Store.open(rep.store, create=False) as st:
            agg = aggregate(st.episodes(cfg.name))
        if len(agg.groups) <= MAX_SUMMARY_GROUPS:
            print_table(console, agg, title=cfg.name)
        else:
            console.print(f"{len(agg.groups)} groups; see: accord results {rep.store} "
                          "--group-by FIELD,...", highlight=False)
    if rep.interrupted:
        raise typer.Exit(EXIT_INTERRUPTED)
    if rep.failed or rep.skipped_failed:
        raise typer.Exit(EXIT_FAILED)


def _dry_run(console: Console, name: str, plan: Any, path: Path, options: BenchOptions) -> None:
    statuses: dict[str, tuple[str, str | None]] = {}
    if path.exists():
        with Store.open(path, create=False) as st:
            statuses = st.statuses(name)
    queue, done, failed = select(plan, statuses, options.retry_failed, options.retry_errors)
    console.print(f"[bold]{name}[/]: {len(plan.episodes)} episodes"
                  + (f" ({plan.duplicates} duplicates dropped)" if plan.duplicates else "")
                  + f"; {done} done, {failed} failed, {len(queue)} to run; store {path}",
                  highlight=False)


def _open(store: Path) -> Store:
    try:
        return Store.open(store, create=False)
    except StoreError as exc:
        raise _fail(str(exc)) from None


def _split(text: str | None) -> list[str] | None:
    if not text:
        return None
    return [p.strip() for p in text.split(",") if p.strip()]


def _print_layout(store: Path, run: str | None, layout: str, fmt: str) -> None:
    """``accord results --layout NAME``: a domain's own table layout over the store."""
    from accord.domains import all_domains

    layouts = {name: fn for dom in all_domains().values() for name, fn in dom.layouts().items()}
    fn = layouts.get(layout)
    if fn is None:
        raise _fail(f"unknown layout {layout!r}; layouts: {', '.join(sorted(layouts)) or 'none'}")
    if fmt not in ("table", "json"):
        raise _fail("--layout prints --format table or json")
    with _open(store) as st:
        episodes = [e.to_dict() for e in st.episodes(run)]
    try:
        text, data = fn(episodes)
    except ValueError as exc:
        raise _fail(f"{store}: {exc}", code=1) from None
    if fmt == "json":
        typer.echo(json.dumps(data, default=str))
    else:
        typer.echo(text, nl=False)


def results_command(
    store: Path = typer.Argument(..., help="results store, e.g. runs/demo.db"),
    run: str | None = typer.Option(None, "--run", help="one run of the store (default: all)"),
    group_by: str | None = typer.Option(None, "--group-by", "-g", help="comma-separated "
                                        "fields: domain, scenario, agents, agent0, seed, "
                                        "a param name, a categorical metric ..."),
    metrics: str | None = typer.Option(None, "--metrics", "-m",
                                       help="comma-separated metrics (default: all numeric)"),
    fmt: str = typer.Option("table", "--format", "-f", help="table | csv | md | json | "
                            "parquet"),
    output: Path | None = typer.Option(None, "--output", "-o", help="write to a file"),
    error: str = typer.Option("sd", "--error", help="spread shown in tables: sd | se"),
    per_episode: bool = typer.Option(False, "--per-episode",
                                     help="one row per episode instead of per group"),
    layout: str | None = typer.Option(None, "--layout", help="a domain's paper-style tables "
                                      "instead of the grouped table, e.g. task-exchange "
                                      "(seed 000 Tables 1 and 2)"),
) -> None:
    """Aggregate a results store: mean ± SD/SE, counts and rates per group."""
    if layout is not None:
        _print_layout(store, run, layout, fmt)
        return
    if fmt not in FORMATS:
        raise _fail(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if error not in ("sd", "se"):
        raise _fail(f"--error must be sd or se, got {error!r}")
    if fmt == "parquet" and output is None:
        raise _fail("--format parquet needs --output PATH")
    if per_episode and fmt not in ("csv", "json", "parquet"):
        raise _fail("--per-episode works with --format csv, json or parquet")
    with _open(store) as st:
        runs = st.runs()
        if run is not None and run not in {r["name"] for r in runs}:
            raise _fail(f"no run {run!r} in {store}; runs: "
                        f"{', '.join(r['name'] for r in runs) or 'none'}")
        episodes = st.episodes(run)
    try:
        agg = aggregate(episodes, _split(group_by), _split(metrics))
    except AggregateError as exc:
        raise _fail(str(exc)) from None
    if run is not None:
        runs = [r for r in runs if r["name"] == run]
    rows = episode_rows(episodes) if per_episode else None
    text: str | None = None
    if fmt == "json":
        obj = to_json(agg, episodes, runs, str(store))
        if rows is not None:
            obj["rows"] = rows
        text = dumps(obj) + "\n"
    elif fmt == "csv":
        from accord.bench.tables import flat_rows

        text = to_csv(rows if rows is not None else flat_rows(agg))
    elif fmt == "md":
        text = to_markdown(agg, error)
    elif fmt == "parquet":
        from accord.bench.tables import flat_rows

        assert output is not None
        try:
            write_parquet(rows if rows is not None else flat_rows(agg), output)
        except RuntimeError as exc:
            raise _fail(str(exc)) from None
        return
    else:
        _print_results(store, run, episodes, agg, error, output)
        return
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")


def _print_results(store: Path, run: str | None, episodes: list[Any], agg: Any, error: str,
                   output: Path | None) -> None:
    counts = {s: sum(e.status == s for e in episodes) for s in ("done", "failed", "pending")}
    title = (f"{run or store}: {len(episodes)} episodes, {counts['done']} done, "
             f"{counts['failed']} failed, {counts['pending']} pending")
    if output is None:
        print_table(Console(), agg, error, title)
        return
    with output.open("w", encoding="utf-8") as fh:
        Console(file=fh, width=200, no_color=True).print(rich_table(agg, error, title))


def show_command(
    store: Path = typer.Argument(..., help="results store, e.g. runs/demo.db"),
    episode_id: str = typer.Argument(..., help="episode id (a unique prefix is enough)"),
    run: str | None = typer.Option(None, "--run", help="the run, when ids are ambiguous"),
    as_json: bool = typer.Option(False, "--json", help="print exactly one JSON object"),
) -> None:
    """Print one episode: its spec, outcome, metrics and transcript (or error)."""
    with _open(store) as st:
        try:
            ep = st.find(episode_id, run)
        except StoreError as exc:
            raise _fail(str(exc)) from None
        jsonl = st.trajectory(ep.run, ep.id)
    log = Trajectory.from_jsonl(jsonl) if jsonl else Trajectory()
    if as_json:
        obj = {**ep.to_dict(), "trajectory": [e.to_dict() for e in log]}
        sys.stdout.write(dumps(obj) + "\n")
        return
    console = Console()
    spec = ep.spec
    console.print(f"[bold]{ep.id}[/] (run {ep.run}): {spec.get('domain')}/"
                  f"{spec.get('scenario')} · {ep.labels.get('lineup')} · seed "
                  f"{spec.get('seed')}" + (f" · repeat {spec['repeat']}" if spec.get("repeat")
                                           else ""), highlight=False)
    if spec.get("params"):
        console.print(f"params: {json.dumps(spec['params'], default=str)}", highlight=False)
    console.print(f"status: {ep.status}" + (f", outcome: {ep.outcome}" if ep.outcome else "")
                  + (f", {ep.wall_time:.3f} s" if ep.wall_time is not None else "")
                  + f", attempts: {ep.attempts}", highlight=False)
    if len(log):
        console.rule("transcript")
        print_transcript(console, log)
    if ep.summary:
        s = ep.summary
        console.rule("outcome")
        console.print(f"{s.get('status')}" + (f" ({s['reason']})" if s.get("reason") else "")
                      + f", {s.get('rounds')} rounds", highlight=False)
        console.print_json(dumps(s.get("record") or {}))
    if ep.metrics:
        t = Table("metric", "value", title="metrics")
        for k, v in ep.metrics.items():
            t.add_row(k, "–" if v is None else f"{v:.4g}" if isinstance(v, float) else str(v))
        console.print(t)
    if ep.usage:
        console.print_json(dumps({"usage": ep.usage}))
    if ep.error:
        console.rule("[red]error")
        console.print(ep.error, highlight=False, markup=False)


app = typer.Typer(name="accord-bench", help="Run sweeps and read results stores.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
app.command("bench")(bench_command)
app.command("results")(results_command)
app.command("show")(show_command)


if __name__ == "__main__":
    app()
