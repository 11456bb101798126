"""``accord dond``: Deal-or-No-Deal data statistics, download and play.

Thin: parses options, calls :mod:`accord.domains.deal_or_no_deal`, prints. The data
location is ``--data`` / ``--dest``, else ``ACCORD_DATA``, else the per-user folder.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from accord.cli import common as c
from accord.domains.deal_or_no_deal.cli_select import (
    HARDEST_HELP,
    sample_file,
    sample_option,
    select_points,
    selection_option,
)

if TYPE_CHECKING:
    from rich.console import Console

    from accord.agents.spec import AgentSpec
    from accord.domains.deal_or_no_deal import Datapoint
    from accord.protocols.engine import EpisodeResult

app = c.group_app(
    "dond", "Deal or No Deal: data statistics, download and play.")

#: the agent kinds of ``dond play`` (kept in sync with the domain's registry by a test)
AGENT_KINDS_HELP = "dataset-human, greedy, llm, llm-workflow, workflow"

_fail = c.fail


def _data(data: Path | None) -> str | None:
    return None if data is None else str(data)


def _rate(x: Any) -> str:
    return "-" if x is None else f"{x:.4f}" if isinstance(x, float) else str(x)


def _table9(console: Console, title: str, rows: Sequence[dict[str, Any]]) -> None:
    """Table 9 with one line per difficulty level (the JSON keeps one entry per column)."""
    from rich.table import Table

    t = Table("difficulty", "datapoints", "agreement", "envy-free", "Pareto-optimal",
              "EF and PO", title=title)
    for r in rows:
        t.add_row(str(r["difficulty"]), str(r["datapoints"]), *(_rate(r[k]) for k in (
            "agreement", "envy_free", "pareto_optimal", "envy_free_and_pareto_optimal")))
    console.print(t)


def _num(x: Any, places: int) -> str:
    return "-" if x is None else f"{x:.{places}f}"


def _table10(console: Console, out: dict[str, Any]) -> None:
    """The Best and Human rows in Table 10's layout, over the datapoints with an EF
    allocation, then the humans over every datapoint."""
    from rich.table import Table

    t = Table("row", "rounds", "agreement", "alice", "bob", "PO", "EF", "total",
              title=f"Table 10 layout: over the {out['with_envy_free']} datapoints that "
                    "admit an envy-free allocation")
    b, h = out["best"], out["human"]
    t.add_row("Best", "-", "1.0000", _num(b["alice"], 2), _num(b["bob"], 2), "1.0000",
              "1.0000", _num(b["total"], 2))
    for name, row in (("Human", h), (f"Human, all {out['datapoints']}", out["human_all"])):
        t.add_row(name, _num(row["rounds"], 2), _num(row["agreement"], 4),
                  _num(row["alice"], 2), _num(row["bob"], 2), _num(row["pareto_optimal"], 4),
                  _num(row["envy_free"], 4), _num(row["total"], 2))
    console.print(t)
    console.print(f"Best: rule '{out['best_rule']['name']}', {out['best_rule']['rule']}.")


@app.command(epilog=c.example(
    "accord dond stats --data DIR/test.txt --selection seed --json",
    "accord dond stats --data DIR --sample sample50.txt",
    "accord dond stats --data DIR --selection seed --hardest 50"))
def stats(
    data: Path | None = c.data_option(),
    split: str = typer.Option("test", "--split", help="test | val"),
    selection: str | None = selection_option(),
    sample: Path | None = sample_option(),
    hardest: int | None = typer.Option(None, "--hardest", help=HARDEST_HELP),
    best_rule: str = typer.Option("authors", "--best-rule", help="which best allocation "
                                  "when several tie: authors (the first with Alice's counts "
                                  "ascending, the seed's Best row) | even (the most even "
                                  "split)"),
    exact_levels: bool = typer.Option(False, "--exact-levels", help="also print the human "
                                      "outcome per exact difficulty level over every "
                                      "datapoint (JSON difficulty_table: per level instead "
                                      "of cumulative)"),
    as_json: bool = c.json_option(),
) -> None:
    """Datapoints, envy-free availability, the Best and Human rows (Table 10's layout) and
    Table 9 (human outcome by difficulty, the seed's exclusions applied)."""
    from accord.core.names import unknown_name
    from accord.domains.deal_or_no_deal import dataset_stats
    from accord.domains.deal_or_no_deal.rules import BEST_RULES

    if best_rule not in BEST_RULES:
        raise _fail(unknown_name("best rule", best_rule, BEST_RULES))
    if sample is not None:
        sample = sample_file(sample, _data(data))
    points, name = select_points(_data(data), split, hardest, None, selection, sample,
                           in_split=False)
    if not points:
        raise c.fail("no datapoints selected: the data file holds none")
    out = {"selection": name, **(
        {"sample": str(sample)} if sample is not None else {}), "hardest": hardest,
        **dataset_stats(points, cumulative=not exact_levels,
                        best_rule=best_rule)}  # type: ignore[arg-type]
    if as_json:
        c.emit_json(out)
        return
    console = c.console()
    console.print(f"{out['datapoints']} datapoints (selection {name}"
                  f"{'' if hardest is None else f', --hardest {hardest}'}), "
                  f"{out['with_envy_free']} admit an envy-free allocation")
    _table10(console, out)
    ex = out["exclusions"]
    _table9(console, f"Table 9: human outcome by difficulty (d >= level), over the "
                     f"{ex['kept']} datapoints left by the seed's exclusions (repetition "
                     f"{ex['repetition']}, all counts even {ex['all_even']}, max covered "
                     f"{ex['max_covered']})", out["table9"])
    if exact_levels:
        _table9(console, "human outcome per difficulty level, every datapoint",
                out["difficulty_table"])


@app.command("download", epilog=c.example("accord dond download",
                                           "accord dond download --data ~/data --json"))
def download_command(
    data: Path | None = typer.Option(None, "--data", help="Data root or folder to fetch into "
                                     "(else ACCORD_DATA, else the per-user data folder)."),
    dest: Path | None = c.alias_option("--dest"),
    base_url: str | None = typer.Option(None, "--base-url", help="Upstream folder URL "
                                        "(http(s):// or file://), ending in /."),
    force: bool = typer.Option(False, "--force", help="Fetch even when a valid copy exists."),
    as_json: bool = c.json_option(),
) -> None:
    """Fetch test.txt, val.txt, data.txt and sample50.txt and verify their SHA-256 sums.

    The dialogues are CC BY-NC 4.0 (Lewis et al., 2017): non-commercial use, with
    attribution. Offline, copy the files into a folder and point --data at it.
    """
    from accord.domains.deal_or_no_deal import download
    from accord.domains.deal_or_no_deal.fetch import ChecksumError, FetchError

    where = c.pick(data, dest, "--dest", "--data")
    err = c.console(stderr=True)
    try:
        reports = download(_data(where), base_url=base_url, force=force,
                           progress=None if as_json else lambda m: err.print(c.plain(m)))
    except FetchError as exc:  # offline, or a wrong URL: say how to do without the network
        raise _fail(f"download failed: {exc}. {_offline_hint()}", 1) from exc
    except (ChecksumError, OSError, KeyError) as exc:
        raise _fail(f"download failed: {exc}", 1) from exc
    if as_json:
        c.emit_json({"files": [{"name": r.name, "path": str(r.path), "status": r.status,
                                "sha256": r.sha256} for r in reports]})
        return
    console = c.console()
    for r in reports:
        console.print(f"{r.status:8} {c.plain(r.path)} (sha256 {r.sha256[:12]}...)")
    console.print("License: CC BY-NC 4.0 (non-commercial use, with attribution).")


def _offline_hint() -> str:
    """How to install the data without reaching upstream (files copied by other means)."""
    from accord.domains.deal_or_no_deal.fetch import _file_urls, upstream

    meta = upstream()
    base = str(meta["base_url"])
    urls = _file_urls(meta)
    under = [n for n, u in urls.items() if u == base.rstrip("/") + "/" + n]
    elsewhere = [f"{n} (from {u})" for n, u in urls.items() if n not in under]
    files = ", ".join([*under[:-1], f"{under[-1]} (from {base})"] if under else []) \
        + "".join(f" and {e}" for e in elsewhere)
    return (f"Offline? Copy {files} into one folder by other means, then either verify and "
            "install them with `accord dond download --base-url file:///path/to/folder/`, or "
            "use them where they are with ACCORD_DATA=/path/to/folder (or --data "
            "/path/to/folder)")


def _specs(agents: str) -> list[AgentSpec]:
    from accord.agents.spec import AgentSpecError, parse_agent_list
    from accord.core.names import unknown_name
    from accord.domains.deal_or_no_deal.agents import AGENT_KINDS

    try:
        specs = parse_agent_list(agents)
    except AgentSpecError as exc:
        raise _fail(str(exc)) from exc
    if len(specs) != 2:
        raise _fail(f"--agents needs two specs (alice,bob), got {len(specs)}")
    for s in specs:
        if s.kind not in AGENT_KINDS:
            raise _fail(unknown_name("agent kind", s.kind, AGENT_KINDS))
    return specs


def _no_person(specs: Sequence[AgentSpec], agents: str, data: Path | None) -> None:
    """``dond play`` runs every datapoint unattended through the experiment runner (many
    episodes, several at once, resumed on a rerun), so it seats no person: say which
    commands do, with the user's own line-up."""
    from accord.bench.expand import SEATED_KINDS

    seated = [s.kind for s in specs if s.kind in SEATED_KINDS]
    if not seated:
        return
    where = "" if data is None else f" --data {c.plain(str(data))}"
    raise _fail(
        f"--agents {seated[0]}: `accord dond play` negotiates many datapoints unattended "
        "(through the experiment runner, several at once), so it seats no person. To play a "
        "datapoint yourself at this terminal and keep it for `accord results STORE --layout "
        f"dond` (the Human rows), run: accord run deal-or-no-deal/test/L7 --agents "
        f"{c.plain(agents)}{where} --save runs/people.db (any datapoint id: test/L<line> or "
        "test/<n>); in the browser: accord serve --play")


async def _play_all(points: Sequence[Datapoint], specs: Sequence[AgentSpec], rounds: int,
                    seed: int, first: str, concurrency: int,
                    llm: dict[str, Any] | None = None) -> list[EpisodeResult]:
    import asyncio

    from accord.domains.deal_or_no_deal import play_datapoint

    gate = asyncio.Semaphore(concurrency)

    async def one(dp: Datapoint) -> EpisodeResult:
        async with gate:
            return await play_datapoint(dp, specs, rounds=rounds, seed=seed, first=first,
                                        ctx={"llm": llm or {}})

    return list(await asyncio.gather(*(one(dp) for dp in points)))


def _check_agents(specs: Sequence[AgentSpec], points: Sequence[Datapoint]) -> None:
    """Build the line-up once so bad agent options are a usage error, not N failed episodes."""
    from accord.agents.spec import AgentSpecError
    from accord.domains.deal_or_no_deal.agents import make_agents

    if not points:
        return
    try:
        make_agents(specs, points[0], 0)
    except (AgentSpecError, ValueError, TypeError) as exc:
        raise _fail(str(exc)) from None


def _play_through_runner(points: Sequence[Datapoint], specs: Sequence[AgentSpec], rounds: int,
                         seed: int, first: str, concurrency: int, llm: dict[str, Any],
                         data: str | None, store: str | None, quiet: bool,
                         retry: bool = False
                         ) -> tuple[list[tuple[dict[str, Any], int, str]], str]:
    """Run the episodes through the experiment runner ([B]): stored, resumable, concurrent.

    Returns ``(record, rounds, status)`` per datapoint in plan order, and the store path.
    """
    import hashlib
    import json

    from accord.bench import BenchOptions, Store, parse_config, run_bench

    key = json.dumps([[str(s) for s in specs], rounds, first, seed, [dp.id for dp in points]])
    name = "dond-play-" + hashlib.sha256(key.encode()).hexdigest()[:10]
    cfg = parse_config({"name": name, "domain": "deal-or-no-deal",
                        "scenarios": [dp.id for dp in points],
                        "agents": [[str(s) for s in specs]],
                        "params": {"rounds": rounds, "first": first}, "seeds": [seed]},
                       "<accord dond play>")
    report = run_bench(cfg, BenchOptions(store=store, concurrency=concurrency, quiet=quiet,
                                         llm=llm, data=data, retry_failed=retry,
                                         retry_errors=retry))
    with Store.open(report.store, create=False) as st:
        rows = st.episodes(name)
    out: list[tuple[dict[str, Any], int, str]] = []
    for row in rows:
        if row.summary is None:  # the runner recorded a failure (with its error text)
            out.append(({"error": row.error or "failed", "episode": row.id}, 0, "error"))
        else:
            rec = dict(row.summary["record"])
            if row.summary["status"] == "error":
                rec.setdefault("error", row.summary.get("detail") or "error")
                rec.setdefault("episode", row.id)
            out.append((rec, int(row.summary["rounds"]), str(row.summary["status"])))
    return out, str(report.store)


@app.command(epilog=c.example(
    "accord dond play --data DIR --agents workflow,workflow --limit 50",
    "accord dond play --data DIR --agents llm-workflow:openai/gpt-4.1-mini,workflow "
    "--selection seed --hardest 50 --cache runs/llm.db",
    "accord dond play --data DIR --agents workflow,workflow --sample sample50.txt"))
def play(
    agents: str = typer.Option(..., "--agents", "-a", metavar="SPECS",
        help="Two agent specs alice,bob, e.g. "
                               f"workflow,greedy (kinds: {AGENT_KINDS_HELP}; to play "
                               "yourself: accord run deal-or-no-deal/ID --agents human,...)."),
    data: Path | None = c.data_option(),
    split: str = typer.Option("test", "--split", help="test | val"),
    selection: str | None = selection_option(),
    sample: Path | None = sample_option(),
    hardest: int | None = typer.Option(None, "--hardest", help=HARDEST_HELP),
    limit: int | None = typer.Option(None, "--limit", help="at most N datapoints"),
    rounds: int = typer.Option(20, "--rounds", help="round cap R"),
    seed: int = typer.Option(0, "--seed", help="random seed"),
    first: str = typer.Option("alice", "--first", help="who opens: alice | bob | data"),
    concurrency: int = typer.Option(8, "--concurrency", help="episodes in flight"),
    details: bool = typer.Option(False, "--details", help="JSON: add one row per episode"),
    as_json: bool = c.json_option(),
    quiet: bool = c.quiet_option("No progress bar: only the summary tables (errors still "
                                 "go to stderr; --json is unaffected)."),
    cache: Path | None = c.cache_option(),
    cache_mode: str = c.cache_mode_option(),
    llm_timeout: float | None = c.llm_timeout_option(),
    store_out: Path | None = c.out_option("Results store (default runs/dond-play-<hash>.db; "
                                          "a rerun resumes)."),
    store: Path | None = c.alias_option("--store"),
    retry: bool = typer.Option(False, "--retry", help="rerun episodes that failed or ended "
                               "in an error (e.g. after an endpoint outage)"),
) -> None:
    """Negotiate every selected datapoint through the experiment runner and report outcome
    and estimation metrics (episodes are stored, so a rerun resumes)."""
    from rich.table import Table

    from accord.core.names import counted
    from accord.domains.deal_or_no_deal.metrics import (
        belief_traces,
        difficulty_table,
        episode_metrics,
        estimation_by_round,
        summarize,
    )

    out_store = c.pick(store_out, store, "--store", "--out")
    llm = c.llm_settings(cache, cache_mode, timeout=llm_timeout)
    specs = _specs(agents)
    _no_person(specs, agents, data)
    if rounds < 1 or concurrency < 1:
        raise _fail("--rounds and --concurrency must be at least 1")
    if first not in ("alice", "bob", "data"):
        raise _fail(f"--first must be alice, bob or data, got {first!r}")
    points, chosen = select_points(_data(data), split, hardest, limit, selection, sample)
    _check_agents(specs, points)
    results, store_path = _play_through_runner(
        points, specs, rounds, seed, first, concurrency, llm, _data(data),
        None if out_store is None else str(out_store), quiet=as_json or quiet, retry=retry)
    failures = [rec for rec, _, status in results if status == "error"]
    good = [(rec, n) for rec, n, status in results if status != "error" and "scenario" in rec]
    rows = [episode_metrics(rec, n) for rec, n in good]
    out: dict[str, Any] = {
        "agents": [str(s) for s in specs],
        "selection": chosen,
        "store": store_path,
        "summary": summarize(rows),
        # Tables 10-14 average over the datapoints that admit an envy-free allocation
        "summary_with_envy_free": summarize([m for m in rows if m["best_total"] is not None]),
        "errors": sum(1 for _, _, status in results if status == "error"),
        "difficulty_table": difficulty_table([(m["difficulty"], m) for m in rows]),
        "estimation_by_round": estimation_by_round(belief_traces(rec for rec, _ in good)),
    }
    if details:
        out["episodes"] = [{"datapoint": rec["scenario"], "status": status, **m}
                           for (rec, _, status), m in
                           zip([r for r in results if r[2] != "error" and "scenario" in r[0]],
                               rows, strict=True)]
    if failures:
        first_err = str(failures[0].get("error", "")).strip().splitlines()
        out["first_error"] = {"episode": failures[0].get("episode"),
                              "error": first_err[-1] if first_err else ""}
    if as_json:
        c.emit_json(out)
        if failures:
            raise typer.Exit(1)
        return
    console = c.console()
    s = out["summary"]
    # a line, not the table's title: a title wraps to the narrow table's width
    console.print(f"[bold]{c.plain(' vs '.join(out['agents']))}[/]: "
                  f"{counted(s['episodes'], 'episode')}", highlight=False)
    t = Table("metric", "mean")
    for key in ("rounds", "agreement", "alice", "bob", "pareto_optimal", "envy_free", "total",
                "best_total"):
        t.add_row(key, _rate(s[key]))
    console.print(t)
    ef = out["summary_with_envy_free"]
    if ef["episodes"] != s["episodes"]:
        console.print(f"over the {ef['episodes']} datapoints that admit an envy-free "
                      "allocation (the seed's Tables 10-14): " + ", ".join(
                          f"{k}={_rate(ef[k])}" for k in ("agreement", "alice", "bob",
                                                         "pareto_optimal", "envy_free",
                                                         "total")))
    if s["estimation"]:
        e = s["estimation"]
        console.print(f"valuation estimation (both workflow sides; beliefs from "
                      f"{s.get('estimation_source') or 'code'}"
                      + (f", {s['belief_unstated']} unreadable statement(s)"
                         if s.get("belief_unstated") else "") + "): " + ", ".join(
            f"{k}={_rate(e[k])}" for k in e))
    _table9(console, "outcome by difficulty", out["difficulty_table"])
    if out["errors"]:
        fe = out["first_error"]
        console.print(f"[yellow]{out['errors']} episode(s) ended in an error and are left out "
                      f"of the means[/]; first: {c.plain(fe['error'])}\n  inspect: accord "
                      f"show {c.plain(store_path)} {fe['episode']}; rerun with --retry")
    if not quiet:
        console.print(f"episodes stored in {c.plain(store_path)} (a rerun resumes; "
                      f"`accord results {c.plain(store_path)} --episodes` lists them, "
                      "`accord show` prints one)")
    if failures:
        raise typer.Exit(1)


@app.command(epilog=c.example("accord dond meta --data DIR --use workflow --raw greedy"))
def meta(
    use: str = typer.Option("workflow", "--use", help="agent spec for 'use the workflow'"),
    raw: str = typer.Option("greedy", "--raw", help="agent spec for 'do not use it'"),
    data: Path | None = c.data_option(),
    split: str = typer.Option("test", "--split", help="test | val"),
    selection: str | None = selection_option(),
    sample: Path | None = sample_option(),
    hardest: int | None = typer.Option(50, "--hardest", help=HARDEST_HELP + "; the seed "
                                       "takes 50"),
    limit: int | None = typer.Option(None, "--limit", help="at most N datapoints"),
    rounds: int = typer.Option(20, "--rounds", help="round cap R"),
    seed: int = typer.Option(0, "--seed", help="random seed"),
    as_json: bool = c.json_option(),
    cache: Path | None = c.cache_option(),
    cache_mode: str = c.cache_mode_option(),
    llm_timeout: float | None = c.llm_timeout_option(),
) -> None:
    """The meta-game of the Deal-or-No-Deal study (section 5.6): play the four pairings,
    build the 2x2 payoff matrix and solve it."""
    import asyncio

    from rich.table import Table

    from accord.domains.deal_or_no_deal.meta import STRATEGIES, solve_meta_game
    from accord.domains.deal_or_no_deal.metrics import episode_metrics, summarize

    llm = c.llm_settings(cache, cache_mode, timeout=llm_timeout)
    specs = {"workflow": _specs(f"{use},{use}")[0], "raw": _specs(f"{raw},{raw}")[0]}
    points, _ = select_points(_data(data), split, hardest, limit, selection, sample)
    payoffs: dict[tuple[str, str], tuple[float, float]] = {}
    for a in STRATEGIES:
        for b in STRATEGIES:
            results = asyncio.run(_play_all(points, [specs[a], specs[b]], rounds, seed, "alice",
                                            8, llm))
            s = summarize([episode_metrics(r.record, r.rounds) for r in results])
            payoffs[(a, b)] = (float(s["alice"] or 0.0), float(s["bob"] or 0.0))
    sol = solve_meta_game(payoffs)
    out = {"use": str(specs["workflow"]), "raw": str(specs["raw"]), "datapoints": len(points),
           **sol.to_dict()}
    if as_json:
        c.emit_json(out)
        return
    t = Table("alice \\ bob", *STRATEGIES, title=f"mean payoffs (alice, bob) over {len(points)} "
              "datapoints")
    for a in STRATEGIES:
        t.add_row(a, *(f"{payoffs[(a, b)][0]:.2f}, {payoffs[(a, b)][1]:.2f}" for b in STRATEGIES))
    console = c.console()
    console.print(t)
    console.print(f"pure Nash equilibria: {out['pure_nash']}; dominant: {out['dominant']}; "
                  f"Pareto-optimal profiles: {out['pareto_optimal']}; dilemma: {out['dilemma']}")
