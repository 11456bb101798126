"""``accord bench``, ``accord results`` and ``accord show``: run sweeps, read the store.

Registered on the root app as plain commands::

    app.command("bench")(bench_command)
    app.command("results")(results_command)
    app.command("show")(show_command)

``python -m accord.cli.bench`` runs the same three commands standalone.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from accord.cli import common as c

if TYPE_CHECKING:
    from rich.console import Console

    from accord.bench import BenchOptions, BenchReport, Store

EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = c.EXIT_FAILED, c.EXIT_USAGE, c.EXIT_INTERRUPTED
FORMATS = ("table", "csv", "md", "json", "parquet")
#: after a run, print the grouped table only up to this many groups
MAX_SUMMARY_GROUPS = 24

BENCH_EXAMPLES = c.example(
    "accord bench demo                          # a shipped spec (accord configs list)",
    "accord bench my-spec.yaml --out runs/my.db # kill it and rerun: it resumes",
    "accord bench demo --concurrency 32 --executor process",
    "accord bench demo --json --quiet           # a JSON summary for scripts")
RESULTS_EXAMPLES = c.example(
    "accord results runs/demo.db --group-by scenario,agents",
    "accord results runs/demo.db --episodes     # one line per episode, with its id",
    "accord results runs/demo.db --json > demo.json",
    "accord results runs/demo.db -f csv --per-episode -o episodes.csv")
SHOW_EXAMPLES = c.example("accord show runs/demo.db 3fa9", "accord show runs/demo.db 3fa9 --json")

_fail = c.fail


def _summary(console: Console, rep: BenchReport) -> None:
    n = rep.done + rep.failed
    rate = n / rep.run_seconds if rep.run_seconds > 0 else 0.0
    console.print(
        f"[bold]{c.plain(rep.run)}[/]: {rep.planned} episodes planned, {rep.already_done} "
        "already done"
        + (f", {rep.skipped_failed} failed before (not retried)" if rep.skipped_failed else "")
        + f"; ran {rep.done + rep.failed} of {rep.queued}: [green]{rep.done} done[/], "
        + (f"[red]{rep.failed} failed[/]" if rep.failed else "0 failed")
        + f" in {rep.run_seconds:.1f} s ({rate:.1f} ep/s); store {c.plain(rep.store)}")
    if rep.first_error is not None:
        eid, line = rep.first_error
        console.print(f"first failure or error {eid}: {c.plain(line)}\n  inspect: accord show "
                      f"{c.plain(rep.store)} {eid}; rerun with --retry-failed (a failed "
                      "episode) or --retry-errors (one that ended in status error)")
    if rep.stale:
        console.print(f"note: {rep.stale} stored episodes of run {c.plain(repr(rep.run))} are "
                      "not in this config any more; they are kept and included by accord "
                      "results")
    if rep.interrupted:
        console.print("[yellow]interrupted[/]: finished episodes are stored; run the same "
                      "command again to resume")


def _report_json(rep: BenchReport, errored: int) -> dict[str, Any]:
    """The ``accord bench --json`` summary."""
    return {"run": rep.run, "store": str(rep.store), "planned": rep.planned,
            "already_done": rep.already_done, "queued": rep.queued, "done": rep.done,
            "failed": rep.failed, "skipped": rep.skipped_failed, "errored": errored,
            "duplicates": rep.duplicates, "stale": rep.stale,
            "wall_seconds": round(rep.seconds, 3), "run_seconds": round(rep.run_seconds, 3),
            "interrupted": rep.interrupted, "warnings": list(rep.warnings),
            "first_error": None if rep.first_error is None else
            {"episode": rep.first_error[0], "error": rep.first_error[1]}}


def bench_command(
    config: str = typer.Argument(..., metavar="SPEC",
        help="Experiment spec: a YAML file or the name of a "
                                 "shipped spec (accord configs list)."),
    out: Path | None = c.out_option("Results store to write (default: the config's 'store', "
                                    "else runs/<name>.db); a rerun resumes it."),
    store: Path | None = c.alias_option("--store"),
    concurrency: int | None = typer.Option(None, "--concurrency", "-c", min=1,
                                           help="Episodes in flight (local default 8; "
                                           "process: CPU count; ray: cluster CPUs)."),
    executor: str | None = typer.Option(None, "--executor", "-x", help="local | process | "
                                        "ray | ray:ADDRESS | ray://ADDRESS; Ray options "
                                        "?cpus=F&chunk=N (CPUs and episodes per task)"),
    retry_failed: bool = typer.Option(False, "--retry-failed",
                                      help="Run failed episodes again."),
    retry_errors: bool = typer.Option(False, "--retry-errors", help="Also rerun finished "
                                      "episodes whose outcome is 'error' (agent crashes)."),
    quiet: bool = c.quiet_option(),
    as_json: bool = c.json_option(),
    cache: Path | None = c.cache_option(),
    cache_mode: str | None = c.cache_mode_option(None),
    llm_option: list[str] = c.llm_option_option(),
    llm_timeout: float | None = c.llm_timeout_option(),
    log_prompts: bool = c.log_prompts_option(),
    data: Path | None = c.data_option(),
    limit: int | None = typer.Option(None, "--limit", min=0,
                                     help="Run at most N of the pending episodes."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Expand and count, run nothing."),
    lineup: str | None = typer.Option(None, "--lineup", metavar="NAME", help="Run the "
                                      "spec's named line-up lineups.NAME instead of its "
                                      "agents (e.g. seed001: the seed's published models), "
                                      "as run <name>-NAME."),
    max_episodes: int | None = typer.Option(None, "--max-episodes", min=1, metavar="N",
                                            help="Refuse specs that plan more episodes than "
                                            "this (default 10^6)."),
) -> None:
    """Run (or resume) every episode of an experiment spec into a SQLite store.

    Exit status: 0 every planned episode done, 1 some failed (or every episode ended in
    an error), 2 bad input, 130 interrupted.
    """
    from accord import configs
    from accord.agents.spec import AgentSpecError
    from accord.bench import BenchOptions, ConfigError, expand, load_config, run_bench

    out = c.pick(out, store, "--store", "--out")
    try:
        cfg = load_config(configs.resolve(config), max_episodes=max_episodes, lineup=lineup)
        plan = expand(cfg)
    except KeyError as exc:
        raise c.fail(str(exc.args[0])) from None
    except (ConfigError, AgentSpecError) as exc:
        raise c.fail(str(exc)) from None
    llm = c.llm_settings(cache, cache_mode, cfg.llm, options=c.parse_llm_options(llm_option),
                         timeout=llm_timeout, log_prompts=log_prompts)
    options = BenchOptions(store=None if out is None else str(out), executor=executor,
                           concurrency=concurrency,
                           retry_failed=retry_failed, retry_errors=retry_errors,
                           quiet=quiet or as_json, llm=llm,
                           data=None if data is None else str(data), limit=limit)
    from accord.bench.seeds import plan_warnings

    warnings = plan_warnings(cfg)
    for line in warnings:  # before the run, on stderr (stdout may carry JSON)
        c.warn(line)
    if dry_run:
        _dry_run(cfg, plan, options, as_json, warnings)
        return
    try:
        rep = run_bench(cfg, options, plan)
    except (ValueError, RuntimeError) as exc:  # StoreError is a ValueError
        raise c.fail(str(exc)) from None
    errored = _errored(rep)
    if as_json:
        c.emit_json(_report_json(rep, errored))
    elif not quiet:
        _print_after_run(cfg.name, rep)
    if rep.interrupted:
        raise typer.Exit(EXIT_INTERRUPTED)
    if rep.failed or rep.skipped_failed:
        raise typer.Exit(EXIT_FAILED)
    local = _local_faults(rep) if errored else 0
    if local:
        c.warn(f"{local} episode(s) of this invocation ended in status error because of a "
               "local fault (disk, file or memory), not the agents; fix it and rerun with "
               f"--retry-errors (see accord show {rep.store} ID)")
        raise typer.Exit(EXIT_FAILED)
    if rep.done and errored == rep.done:
        if not as_json:
            c.warn(f"every episode of this invocation ({rep.done}) ended in status error; "
                   f"see accord show {rep.store} ID")
        raise typer.Exit(EXIT_FAILED)


def _errored(rep: BenchReport) -> int:
    """Episodes run by this invocation whose outcome was ``error`` (an agent or endpoint
    failure recorded as a clean record)."""
    from accord.bench import Store

    if not rep.done:
        return 0
    with Store.open(rep.store, create=False) as st:
        recent = st.recent_outcomes(rep.run, rep.done)
    return sum(1 for o in recent if o == "error")


#: words in an episode's error detail that mean a fault of this machine, not of the agents
LOCAL_FAULTS = ("OSError", "PermissionError", "sqlite3", "OperationalError", "DatabaseError",
                "CacheError", "MemoryError", "No space left", "disk is full",
                "Read-only file system", "disk I/O error")


def _local_faults(rep: BenchReport) -> int:
    """Episodes of this invocation that ended in error because of a local fault."""
    from accord.bench import Store

    with Store.open(rep.store, create=False) as st:
        rows = st.select("run=? AND outcome='error'", (rep.run,), order="finished DESC",
                         limit=rep.done)
    count = 0
    for row in rows:
        detail = " ".join(str(x) for x in ((row.summary or {}).get("detail"), row.error)
                          if x)
        count += any(word in detail for word in LOCAL_FAULTS)
    return count


def _print_after_run(name: str, rep: BenchReport) -> None:
    from accord.bench import Store, aggregate_stream, print_table

    console = c.console()
    _summary(console, rep)
    with Store.open(rep.store, create=False) as st:
        agg = aggregate_stream(lambda: st.iter_episodes(name, summaries=False))
    if len(agg.groups) <= MAX_SUMMARY_GROUPS:
        print_table(console, agg, title=name)
    else:
        console.print(f"{len(agg.groups)} groups; see: accord results {c.plain(rep.store)} "
                      "--group-by FIELD,...")


def _dry_run(cfg: Any, plan: Any, options: BenchOptions, as_json: bool,
             warnings: list[str]) -> None:
    from accord.bench import Store, select, store_path

    name = cfg.name
    statuses: dict[str, tuple[str, str | None]] = {}
    path = store_path(cfg, options)
    if path.exists():
        with Store.open(path, create=False) as st:
            statuses = st.statuses(name)
    queue, done, failed = select(plan, statuses, options.retry_failed, options.retry_errors)
    if as_json:
        c.emit_json({"run": name, "store": str(path), "planned": len(plan.episodes),
                     "duplicates": plan.duplicates, "done": done, "failed": failed,
                     "to_run": len(queue), "warnings": warnings})
        return
    c.console().print(f"[bold]{c.plain(name)}[/]: {len(plan.episodes)} episodes"
                      + (f" ({plan.duplicates} duplicates dropped)" if plan.duplicates else "")
                      + f"; {done} done, {failed} failed, {len(queue)} to run; store "
                      f"{c.plain(path)}")


def _open(store: Path) -> Store:
    """A store opened for reading (read-only media included: see
    :meth:`~accord.bench.store.Store.open_readonly`)."""
    from accord.bench import Store, StoreError

    try:
        st = Store.open_readonly(store)
    except StoreError as exc:
        raise c.fail(str(exc)) from None
    if st.stale_wal:
        c.warn(f"{store} is on read-only media with a {store}-wal file whose newest commits "
               "cannot be read here; copy the store and its -wal file somewhere writable to "
               "see them")
    return st


def _split(text: str | None) -> list[str] | None:
    if not text:
        return None
    return [p.strip() for p in text.split(",") if p.strip()]


def _dond_with_human_data(data: Path) -> Any:
    """The ``dond`` layout with Table 10's ``Human (data set)`` row read from ``data``."""
    from accord.domains.deal_or_no_deal.layout import dond_layout
    from accord.domains.deal_or_no_deal.location import DataNotFoundError
    from accord.domains.deal_or_no_deal.selection import datapoints_for

    def layout(episodes: list[dict[str, Any]]) -> tuple[str, Any]:
        ids = [str((e.get("spec") or {}).get("scenario")) for e in episodes
               if (e.get("spec") or {}).get("domain") == "deal-or-no-deal"]
        try:
            points = datapoints_for(ids, data)
        except DataNotFoundError as exc:  # the loader's message names --data: name ours
            looked = exc.file if exc.file is not None else data
            raise c.fail(
                f"--human-data {data}: no Deal-or-No-Deal data there (looked for {looked}); "
                "give --human-data the folder holding test.txt or a data root holding "
                f"dealornodeal/, or fetch the data with `accord dond download --data {data}`"
            ) from None
        except (OSError, KeyError) as exc:  # unreadable data, or a datapoint it lacks
            raise c.fail(f"--human-data {data}: {str(exc).strip(chr(39))}") from None
        return dond_layout(episodes, points)

    return layout


def _print_layout(store: Path, run: str | None, layout: str, fmt: str,
                  compare: bool = False, paper_models: list[str] | None = None,
                  human_data: Path | None = None) -> None:
    """``accord results --layout NAME``: a domain's own table layout over the store (with
    ``compare``, the seed's published figures beside the reproduced ones; with
    ``human_data``, the dond layout's Human row from the data set)."""
    from accord.core.names import unknown_name
    from accord.domains import all_domains

    layouts = {name: fn for dom in all_domains().values() for name, fn in dom.layouts().items()}
    fn = layouts.get(layout)
    if fn is None:
        raise c.fail(unknown_name("layout", layout, layouts))
    if fmt not in ("table", "json"):
        raise c.fail("--layout prints --format table or json")
    if human_data is not None:
        if layout != "dond":
            raise c.fail(f"--human-data works with --layout dond, not --layout {layout}")
        fn = _dond_with_human_data(human_data)
    with _open(store) as st:
        episodes = [e.to_dict() for e in st.episodes(run)]
    try:
        text, data = fn(episodes)
    except ValueError as exc:
        raise c.fail(f"{store}: {exc}", code=1) from None
    if compare:
        from accord.bench.published import (
            PublishedError,
            format_comparison,
            parse_aliases,
        )
        from accord.bench.published import compare as compare_published

        try:
            cmp = compare_published(layout, data, parse_aliases(paper_models or []))
        except PublishedError as exc:
            raise c.fail(str(exc)) from None
        text += "\n" + format_comparison(cmp)
        data = {"layout": data, "published": cmp}
    if fmt == "json":
        c.emit_json(data)
    else:
        typer.echo(text, nl=False)


def results_command(
    store: Path = typer.Argument(..., metavar="STORE",
        help="Results store, e.g. runs/demo.db."),
    run: str | None = typer.Option(None, "--run", help="One run of the store (default: all)."),
    group_by: str | None = typer.Option(None, "--group-by", "-g", help="Comma-separated "
                                        "fields: domain, scenario, agents, agent0, seed, "
                                        "a param name, a categorical metric ..."),
    metrics: str | None = typer.Option(None, "--metrics", "-m",
                                       help="Comma-separated metrics (default: all numeric). "
                                       "Also by name: safety rates (utility_leak, "
                                       "sycophancy, error_rate, invalid_rate), the value "
                                       "left on the table (value_left) and gaps to the "
                                       "optimum (gap_pareto, gap_nash, welfare_left, "
                                       "gap_pure_ne, gap_mixed_ne, gap_po_ne, gap_best, "
                                       "gap_optimum, optimum_ratio)."),
    fmt: str = typer.Option("table", "--format", "-f", help="table | csv | md | json | "
                            "parquet"),
    as_json: bool = typer.Option(False, "--json", help="The same as --format json: exactly "
                                 "one JSON document on stdout."),
    out: Path | None = c.out_option("Write to this file instead of stdout."),
    output: Path | None = c.alias_option("--output"),
    error: str = typer.Option("sd", "--error", help="Spread shown in tables: sd | se."),
    per_episode: bool = typer.Option(False, "--per-episode",
                                     help="One row per episode instead of per group."),
    episodes_list: bool = typer.Option(False, "--episodes", help="List the episodes: id, "
                                       "scenario, agents, status, outcome and key metrics."),
    layout: str | None = typer.Option(None, "--layout", help="A domain's paper-style tables "
                                      "instead of the grouped table, e.g. task-exchange "
                                      "(Tables 1 and 2 of the task-exchange study) or "
                                      "deliberation (Tables 2, 3, 4, 7 and correlations), "
                                      "games (Tables 5-8 and the data of Figures 5-12) or "
                                      "dond (Tables 10-13, 17-18, Human rows)."),
    compare_published: bool = typer.Option(False, "--compare-published", help="With "
                                           "--layout: print the seed's published figure "
                                           "beside each reproduced one, with the "
                                           "difference (--json: under 'published')."),
    paper_model: list[str] = typer.Option([], "--paper-model", metavar="MODEL=NAME",
                                          help="With --compare-published: set a model of "
                                          "the store beside a paper column, e.g. "
                                          "mock/games=Sonnet (repeatable)."),
    forks: bool = typer.Option(False, "--forks", help="Each forked episode's parent beside "
                               "its forks (accord fork ... --save): outcome, rounds, each "
                               "party's value."),
    series: bool = typer.Option(False, "--series", help="Each stored series (accord series "
                                "... --save): its episodes and trends."),
    human_data: Path | None = typer.Option(None, "--human-data", metavar="DIR",
                                           help="With --layout dond: add Table 10's Human "
                                           "row from the DealOrNoDeal data at DIR (the "
                                           "humans' own outcome of the store's datapoints, "
                                           "the paper's source)."),
) -> None:
    """Aggregate a results store: mean ± SD/SE, counts and rates per group."""
    from accord.bench import (
        AggregateError,
        aggregate,
        aggregate_stream,
        episode_rows,
        to_csv,
        to_json,
        to_markdown,
        write_parquet,
    )
    from accord.bench.tables import dumps

    out = c.pick(out, output, "--output", "--out")
    if as_json:
        if fmt not in ("table", "json"):
            raise c.fail(f"--json and --format {fmt} disagree; give one")
        fmt = "json"
    if (compare_published or paper_model or human_data) and layout is None:
        raise c.fail("--compare-published, --paper-model and --human-data work with --layout "
                     "(games, dond or deliberation; --human-data: dond)")
    if layout is not None:
        _print_layout(store, run, layout, fmt, compare_published, paper_model, human_data)
        return
    if forks:
        from accord.cli.fork import print_forks

        print_forks(store, fmt == "json")
        return
    if series:
        from accord.cli.series import print_stored_series

        print_stored_series(store, fmt == "json")
        return
    if fmt not in FORMATS:
        raise c.fail(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if error not in ("sd", "se"):
        raise c.fail(f"--error must be sd or se, got {error!r}")
    if fmt == "parquet" and out is None:
        raise c.fail("--format parquet needs --out PATH")
    if per_episode and fmt not in ("csv", "json", "parquet"):
        raise c.fail("--per-episode works with --format csv, json or parquet")
    # only per-episode output needs every row at once; grouped tables stream the store
    whole = episodes_list or per_episode or fmt == "json"
    episodes: list[Any] = []
    with _open(store) as st:
        runs = st.runs()
        if run is not None and run not in {r["name"] for r in runs}:
            raise c.fail(f"no run {run!r} in {store}; runs: "
                         f"{', '.join(r['name'] for r in runs) or 'none'}")
        gate: dict[tuple[str, str], dict[str, Any]] = {}
        if whole:
            episodes = st.episodes(run)
            from accord.bench import approvals

            gate = {k: a.to_dict() for k, a in approvals.of_episodes(
                st.conn, [(e.run, e.id) for e in episodes]).items()}
        if episodes_list:
            _list_episodes(episodes, fmt, out, gate)
            return
        from accord.bench.aggregate import NEEDS_SUMMARY

        # the leak and sycophancy rates read each episode's flags from its summary
        summaries = bool(NEEDS_SUMMARY.intersection(_split(metrics) or ()))
        try:
            agg = (aggregate(episodes, _split(group_by), _split(metrics)) if whole else
                   aggregate_stream(lambda: st.iter_episodes(run, summaries=summaries),
                                    _split(group_by),
                                    _split(metrics)))
        except AggregateError as exc:
            raise c.fail(str(exc)) from None
    if run is not None:
        runs = [r for r in runs if r["name"] == run]
    rows = episode_rows(episodes) if per_episode else None
    text: str | None = None
    if fmt == "json":
        obj = to_json(agg, episodes, runs, str(store))
        if gate:
            for item in obj["episodes"]:
                item["approval"] = gate.get((item["run"], item["id"]))
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

        assert out is not None
        try:
            write_parquet(rows if rows is not None else flat_rows(agg), out)
        except RuntimeError as exc:
            raise c.fail(str(exc)) from None
        return
    else:
        _print_results(store, run, agg, error, out)
        return
    if out is None:
        sys.stdout.write(text)
    else:
        out.write_text(text, encoding="utf-8")


#: metrics shown by ``accord results --episodes`` when an episode has them
KEY_METRICS = ("agreement", "rounds", "welfare", "nash_distance", "utility_leak", "nr",
               "reward", "social_welfare", "total", "coordinated", "nash", "pareto_optimal",
               "envy_free")


def _list_episodes(episodes: list[Any], fmt: str, out: Path | None,
                   gate: dict[tuple[str, str], dict[str, Any]] | None = None) -> None:
    """``accord results --episodes``: one row per episode, id first."""
    from accord.bench.aggregate import episode_fields
    from accord.bench.tables import dumps, to_csv

    rows = []
    for e in episodes:
        f = episode_fields(e)
        row = {"id": e.id, "run": e.run, "scenario": f["scenario"], "agents": f["agents"],
               "seed": f["seed"], "status": e.status, "outcome": e.outcome}
        for m in KEY_METRICS:
            if e.metrics and m in e.metrics:
                row[m] = e.metrics[m]
        row["error"] = (e.error or "").strip().splitlines()[-1] if e.error else None
        if gate:
            row["approval"] = (gate.get((e.run, e.id)) or {}).get("state")
        rows.append(row)
    if fmt in ("json", "csv"):
        text = dumps({"episodes": rows}) + "\n" if fmt == "json" else to_csv(rows)
        if out is None:
            sys.stdout.write(text)
        else:
            out.write_text(text, encoding="utf-8")
        return
    if fmt != "table":
        raise c.fail("--episodes prints --format table, csv or json")
    from rich.table import Table

    from accord.cli.render import scalar_text
    from accord.core.names import counted

    cols = list(dict.fromkeys(k for r in rows for k in r))
    t = Table(title=counted(len(rows), "episode"))
    for k in cols:  # an id is copied whole into `accord show`: never wrapped
        t.add_column(k, no_wrap=k == "id", min_width=len(k))
    for r in rows:
        t.add_row(*(c.plain(scalar_text(r.get(k))) for k in cols))
    if out is None and c.is_terminal():
        c.console().print(t)
        return
    from rich.console import Console

    # piped or written to a file, the listing is for grep: each row whole on one line
    # (the table is only as wide as its content; there is no rule to stretch)
    with (open(out, "w", encoding="utf-8") if out else contextlib.nullcontext(sys.stdout)
          ) as fh:
        Console(file=fh, width=c.FILE_WIDTH, no_color=True, highlight=False).print(t)


def _print_results(store: Path, run: str | None, agg: Any, error: str,
                   out: Path | None) -> None:
    from accord.bench import print_table
    from accord.bench.tables import rich_table
    from accord.core.names import counted

    counts = {s: sum(getattr(g, s) for g in agg.groups) for s in ("done", "failed", "pending")}
    total = sum(g.episodes for g in agg.groups)
    title = (f"{run or store}: {counted(total, 'episode')}, {counts['done']} done, "
             f"{counts['failed']} failed, {counts['pending']} pending")
    if out is None:
        print_table(c.console(), agg, error, title)
        return
    from rich.console import Console

    with out.open("w", encoding="utf-8") as fh:
        Console(file=fh, width=200, no_color=True).print(rich_table(agg, error, title))


def show_command(
    store: Path = typer.Argument(..., metavar="STORE",
        help="Results store, e.g. runs/demo.db."),
    episode_id: str = typer.Argument(..., help="Episode id (a unique prefix is enough; "
                                     "accord results STORE --episodes lists them)."),
    run: str | None = typer.Option(None, "--run", help="The run, when ids are ambiguous."),
    as_json: bool = c.json_option(),
) -> None:
    """Print one episode: its spec, outcome, metrics and transcript (or error)."""
    import json

    from accord.bench import StoreError
    from accord.bench.tables import dumps
    from accord.cli.render import print_transcript
    from accord.core.trajectory import Trajectory

    with _open(store) as st:
        try:
            ep = st.find(episode_id, run)
        except StoreError as exc:
            raise c.fail(str(exc)) from None
        jsonl = st.trajectory(ep.run, ep.id)
        from accord.bench import approvals

        appr = approvals.get(st.conn, ep.run, ep.id)
    log = Trajectory.from_jsonl(jsonl) if jsonl else Trajectory()
    if as_json:
        obj = {**ep.to_dict(), "approval": None if appr is None else appr.to_dict(),
               "trajectory": [e.to_dict() for e in log]}
        sys.stdout.write(dumps(obj) + "\n")
        return
    from rich.table import Table

    console = c.console()
    spec = ep.spec
    console.print(f"[bold]{ep.id}[/] (run {c.plain(ep.run)}): {c.plain(spec.get('domain'))}/"
                  f"{c.plain(spec.get('scenario'))} · {c.plain(ep.labels.get('lineup'))} · "
                  f"seed {spec.get('seed')}"
                  + (f" · repeat {spec['repeat']}" if spec.get("repeat") else ""))
    if spec.get("params"):
        console.print("params: " + c.plain(", ".join(
            f"{k}={v if isinstance(v, (str, int, float)) else json.dumps(v, default=str)}"
            for k, v in spec["params"].items())), highlight=False)
    if spec.get("fork"):
        from accord.cli.fork import show_fork

        show_fork(console, store, ep)
    console.print(f"status: {ep.status}" + (f", outcome: {ep.outcome}" if ep.outcome else "")
                  + (f", {ep.wall_time:.3f} s" if ep.wall_time is not None else "")
                  + f", attempts: {ep.attempts}")
    if appr is not None:
        import time

        console.print(f"approval: [bold]{appr.state}[/]"
                      + (f" {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime(appr.decided))}"
                         f" ({c.plain(appr.decided_by)})" if appr.decided else "")
                      + (f": {c.plain(appr.comment)}" if appr.comment else "")
                      + ("; decide with accord approve STORE ID [--reject --comment TEXT]"
                         if appr.state == "pending" else ""))
    if len(log):
        console.rule("transcript")
        print_transcript(console, log)
    from accord.cli.render import scalar_text
    from accord.core.names import counted

    if ep.summary:
        from accord.cli.render import print_record_fields

        s = ep.summary
        console.rule("outcome")
        console.print(f"{c.plain(s.get('status'))}"
                      + (f" ({c.plain(s['reason'])})" if s.get("reason") else "")
                      + (f", {counted(s['rounds'], 'round')}"
                         if isinstance(s.get("rounds"), int) else ""))
        if s.get("reason") == "stagnation" and s.get("detail"):  # says which option to change
            console.print(c.plain(s["detail"]), highlight=False)
        print_record_fields(console, s.get("record") or {})
    if ep.metrics:
        t = Table("metric", "value", title="metrics")
        for k, v in ep.metrics.items():
            t.add_row(c.plain(k), "–" if v is None else c.plain(scalar_text(v)))
        console.print(t)
    if ep.usage:
        from accord.cli.render import print_record_fields

        print_record_fields(console, {"usage": ep.usage})
    if ep.error:
        console.rule("[red]error")
        console.print(c.plain(ep.error))


__all__ = ["bench_command", "results_command", "show_command"]
