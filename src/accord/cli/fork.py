"""``accord fork``: re-run a stored episode from round k (see :mod:`accord.bench.fork`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import typer

from accord.bench.lineage import changes_text, comparison_rows, fork_groups, party_values
from accord.bench.lineage import comparison_row as _row
from accord.bench.lineage import value_names as _value_names
from accord.cli import common as c
from accord.core.numbers import value_text

FORK_EXAMPLES = c.example(
    "accord fork runs/demo.db 3fa9 --at 5 --party buyer=conceder",
    "accord fork runs/demo.db 3fa9 --at 3 --agents llm:mock/a,boulware --repeat 4 --save "
    "runs/forks.db",
    "accord fork runs/demo.db 3fa9 --at 2 --param stagnation_rounds=0 --json")


def fork_command(
    store: Path = typer.Argument(..., metavar="STORE", help="Results store holding the "
                                 "episode, e.g. runs/demo.db."),
    episode_id: str = typer.Argument(..., metavar="EPISODE", help="Episode id (a unique "
                                     "prefix is enough)."),
    at: int = typer.Option(..., "--at", min=1, metavar="ROUND", help="The round the fork "
                           "starts in: rounds before it are the parent's, replayed."),
    agents: str | None = typer.Option(None, "--agents", "-a", metavar="SPECS", help="A "
                                      "whole new line-up, one spec per seat."),
    party: list[str] = typer.Option([], "--party", metavar="SEAT=SPEC", help="Another agent "
                                    "on one seat (its role name, e.g. buyer, or its "
                                    "position 1, 2, ...); repeatable."),
    param: list[str] = typer.Option([], "--param", "-p", metavar="KEY=VALUE", help="Change "
                                    "a domain parameter (repeatable; VALUE read as YAML)."),
    repeat: int = c.repeat_option(1, "Forks to run (seeds SEED, SEED+1, ...)."),
    seed: int | None = c.seed_option(None, "The fork's seed (default: the parent's)."),
    run: str | None = typer.Option(None, "--run", help="The parent's run, when ids are "
                                   "ambiguous."),
    save: Path | None = typer.Option(None, "--save", metavar="STORE", help="Store the forks "
                                     "(run accord-fork) with their parent, for accord show, "
                                     "results --forks and serve."),
    as_json: bool = c.json_option(),
    quiet: bool = c.quiet_option("No transcript of the fork: only the comparison table "
                                 "(errors still go to stderr)."),
    data: Path | None = c.data_option(),
    cache: Path | None = c.cache_option(),
    cache_mode: str = c.cache_mode_option(),
    llm_option: list[str] = c.llm_option_option(),
    llm_timeout: float | None = c.llm_timeout_option(),
) -> None:
    """Re-run a stored episode from round ROUND with other agents, models or parameters.

    The parent's moves before ROUND are replayed through the protocol (a log the protocol
    refuses is an error) and each seat's agent takes those turns as it would have (an LLM
    agent gets the parent's conversation, its seat's earlier replies as its own, from the
    log, with no model call); from ROUND on the seats play live. With the parent's agents
    and seed the fork reproduces the parent.
    """
    from accord.bench.fork import ForkError, ForkRequest, load_parent, run_forks, save_forks
    from accord.bench.store import StoreError
    from accord.cli.run import parse_params

    if agents is not None and party:
        raise c.fail("give either --agents (a whole line-up) or --party SEAT=SPEC, not both")
    seats: dict[str, str] = {}
    for item in party:
        key, eq, value = item.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise c.fail(f"--party {item!r}: expected SEAT=SPEC, e.g. buyer=conceder")
        seats[key.strip()] = value.strip()
    llm = c.llm_settings(cache, cache_mode, options=c.parse_llm_options(llm_option),
                         timeout=llm_timeout)
    req = ForkRequest(at, tuple(a.strip() for a in agents.split(",")) if agents else None,
                      seats, parse_params(param), repeat, seed)
    try:
        parent = load_parent(store, episode_id, run)
        forks = run_forks(parent, req, llm, None if data is None else str(data))
        if save is not None:
            save_forks(save, forks)
    except (ForkError, StoreError, ValueError, KeyError, OSError) as exc:
        raise c.fail(str(exc.args[0]) if isinstance(exc, KeyError) and exc.args
                     else str(exc)) from None
    rows = [_row("parent", parent.id, parent.row.lineup, parent.row.summary,
                 parent.row.metrics)]
    for f in forks:
        from accord.bench.lineups import Lineup

        rows.append(_row(f"fork {f.info['repeat'] + 1}", f.id, Lineup(f.spec.agents).label(),
                         f.result.summary(), f.metrics))
    if as_json:
        c.emit_json({"parent": {"store": str(store), "run": parent.row.run, "id": parent.id},
                     "at": at, "changes": forks[0].info["changes"], "comparison": rows,
                     "forks": [{"id": f.id, **f.info, **f.result.summary(),
                                "metrics": f.metrics} for f in forks],
                     **({"saved": {"store": str(save), "run": "accord-fork"}} if save else {})})
        return
    console = c.console()
    if not quiet and len(forks) == 1:
        from accord.cli.render import print_transcript

        console.rule(f"fork of {parent.id} from round {at}")
        print_transcript(console, forks[0].result.trajectory)
    print_comparison(console, rows, at)
    if save is not None:
        c.console(stderr=True).print(f"stored {len(forks)} fork(s) in {c.plain(save)} (run "
                                     "accord-fork); accord results "
                                     f"{c.plain(save)} --forks compares them")


def print_comparison(console: Any, rows: list[dict[str, Any]], at: int | None = None) -> None:
    """A parent and its forks side by side: line-up, outcome, rounds, each party's value."""
    from rich.table import Table

    names = _value_names(rows)
    title = "parent and fork" + ("s" if len(rows) > 2 else "") + \
        (f" (the fork starts in round {at})" if at is not None else "")
    t = Table("episode", "id", "line-up", "outcome", "rounds", *names, title=title)
    for r in rows:
        outcome = ("–" if r["status"] is None else str(r["status"])) + (
            f" ({r['reason']})" if r.get("reason") else "")
        t.add_row(c.plain(r["episode"]), r["id"][:8], c.plain(r["lineup"]), c.plain(outcome),
                  "–" if r["rounds"] is None else str(r["rounds"]),
                  *(value_text(r["values"][n]) if n in r["values"] else "–"
                    for n in names))
    console.print(t)




def print_forks(store: Path, as_json: bool) -> None:
    """``accord results STORE --forks``: each parent beside its forks."""
    from accord.bench.store import Store, StoreError

    try:
        with Store.open_readonly(store) as st:
            episodes = st.episodes()
    except StoreError as exc:
        raise c.fail(str(exc)) from None
    groups = [(p if p is not None else _parent_elsewhere(pid, fs), pid, fs)
              for p, pid, fs in fork_groups(episodes)]
    if as_json:
        c.emit_json({"forks": [{"parent": pid, "rows": comparison_rows(p, pid, fs)}
                               for p, pid, fs in groups]})
        return
    console = c.console()
    if not groups:
        console.print(f"no forks in {c.plain(store)}: make some with accord fork STORE "
                      "EPISODE --at ROUND ... --save STORE")
        return
    for p, pid, fs in groups:
        print_comparison(console, comparison_rows(p, pid, fs))


def _parent_elsewhere(parent_id: str, forks: list[Any]) -> Any | None:
    """A parent kept in the store its forks name as their source (a bench ``fork:``
    sweep), when that store is still there."""
    from accord.bench.store import Store, StoreError

    for f in forks:
        source = (f.spec.get("fork") or {}).get("source")
        if isinstance(source, str) and Path(source).is_file():
            try:
                with Store.open_readonly(source) as st:
                    return st.find(parent_id)
            except StoreError:
                continue
    return None


def show_fork(console: Any, store: Path, ep: Any) -> None:
    """``accord show`` of a fork: where it branches from, and its parent beside it."""
    from accord.bench.store import Store, StoreError

    info = ep.spec.get("fork")
    if not isinstance(info, Mapping):
        return
    said = changes_text(info.get("changes"))
    console.print(f"fork of {c.plain(info.get('parent'))} (run {c.plain(info.get('parent_run'))}"
                  f") from round {info.get('at')}" + (f"; changed {c.plain(said)}" if said
                                                      else "; same seats and parameters"),
                  highlight=False)
    parent: Any | None
    try:
        with Store.open_readonly(store) as st:
            parent = st.find(str(info.get("parent")))
    except StoreError:
        parent = _parent_elsewhere(str(info.get("parent")), [ep])
    if parent is None:
        return
    print_comparison(console, comparison_rows(parent, parent.id, [ep]), info.get("at"))


__all__ = ["FORK_EXAMPLES", "comparison_rows", "fork_command", "fork_groups", "party_values",
           "print_comparison", "print_forks", "show_fork"]
