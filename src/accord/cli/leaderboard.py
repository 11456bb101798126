"""``accord leaderboard``: ratings of agents from one or more results stores (the
side-effect edge of :mod:`accord.bench.leaderboard`)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from accord.cli import common as c
from accord.core.numbers import figure, rate, score

if TYPE_CHECKING:  # the rating code (numpy, scipy) loads when the command runs
    from accord.bench.leaderboard import Leaderboard, Match
    from accord.bench.safety import SafetyTally

LEADERBOARD_EXAMPLES = c.example(
    "accord leaderboard runs/tournament.db",
    "accord leaderboard runs/a.db runs/b.db --by model --bootstrap 500 --seed 1",
    "accord leaderboard runs/tournament.db --method elo --format md",
    "accord leaderboard runs/tournament.db --method glicko2 --json")
FORMATS = ("table", "md", "csv", "json")


def _collect(stores: list[Path], run: str | None, by: str, safety: SafetyTally | None
             ) -> tuple[list[Match], dict[str, int], dict[str, int]]:
    """The matches of every store in turn (read from columns: see
    :mod:`accord.bench.leaderboard_scan`), domains and skip reasons summed in first-seen
    order, as one ``collect`` over all their episodes would give them."""
    from accord.bench.leaderboard_scan import store_matches
    from accord.cli.bench import _open

    matches: list[Match] = []
    domains: dict[str, int] = {}
    skipped: dict[str, int] = {}
    for path in stores:
        with _open(path) as st:
            if run is not None and run not in {r["name"] for r in st.runs()}:
                raise c.fail(f"no run {run!r} in {path}; runs: "
                             f"{', '.join(r['name'] for r in st.runs()) or 'none'}")
            got, doms, skips = store_matches(st, run, by, safety)
        matches += got
        for total, part in ((domains, doms), (skipped, skips)):
            for k, n in part.items():
                total[k] = total.get(k, 0) + n
    return matches, domains, skipped


def leaderboard_command(
    stores: list[Path] = typer.Argument(..., metavar="STORE...",
                                        help="One or more results stores."),
    run: str | None = typer.Option(None, "--run", help="Only this run of each store."),
    by: str = typer.Option("agent", "--by", help="Who is rated: agent (the line-up "
                           "position's agent spec), model (the model inside an LLM agent "
                           "spec) or agent0 (seat-specific: seat 0 plain, others marked)."),
    method: str = typer.Option("bt", "--method", help="bt (Bradley–Terry, maximum "
                               "likelihood), elo (sequential Elo, K = 32), glicko2 "
                               "(Glicko-2 over rating periods) or trueskill (openskill's "
                               "Thurstone–Mosteller model)."),
    bootstrap: int = typer.Option(200, "--bootstrap", help="Bootstrap resamples of the "
                                  "episodes for the 95% interval (0: none)."),
    seed: int = c.seed_option(0, "Seed of the bootstrap."),
    safety: bool = typer.Option(False, "--safety", help="Add safety and optimality columns "
                                "per agent: leak, sycophancy, invalid-move and error rates "
                                "and the mean value left on the table (reads each "
                                "episode's summary: slower on big stores)."),
    as_json: bool = c.json_option(),
    fmt: str = typer.Option("table", "--format", "-f", help="table | md | csv | json."),
) -> None:
    """Rate agents from every stored episode, with 95% bootstrap intervals, win/draw/loss
    counts and a head-to-head matrix.

    Every episode is a match between its seats (each pair of seats when there are more than
    two): the seat with the higher score wins; a score is a bargainer's gain over its BATNA
    normalised to [0, 1], a game's payoff, Deal or No Deal points or a task-exchange
    utility. Deliberation (a shared reward), unfinished episodes, errors and self-play are
    skipped with a note. The documentation's Leaderboard page says more."""
    from accord.bench.leaderboard import (
        BY_CHOICES,
        METHODS,
        LeaderboardError,
        SafetyTally,
        leaderboard,
    )

    if as_json:
        if fmt not in ("table", "json"):
            raise c.fail(f"--json and --format {fmt} disagree; give one")
        fmt = "json"
    if fmt not in FORMATS:
        raise c.fail(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if by not in BY_CHOICES:
        raise c.fail(f"--by must be one of {', '.join(BY_CHOICES)}, got {by!r}")
    if method not in METHODS:
        raise c.fail(f"--method must be one of {', '.join(METHODS)}, got {method!r}")
    if bootstrap < 0:
        raise c.fail(f"--bootstrap must be 0 or more, got {bootstrap}")
    try:
        tally = SafetyTally() if safety else None
        matches, domains, skipped = _collect(stores, run, by, tally)
        board = leaderboard(matches, method, bootstrap, seed, by, domains, skipped, tally)
    except LeaderboardError as exc:
        raise c.fail(str(exc)) from None
    if fmt == "json":
        c.emit_json(board.to_dict())
    elif fmt == "csv":
        typer.echo(to_csv(board), nl=False)
    elif fmt == "md":
        typer.echo(to_markdown(board), nl=False)
    else:
        print_board(board)


def _r(x: float) -> str:
    return "–" if math.isnan(x) else f"{x:.0f}"


def _interval(low: float, high: float) -> str:
    return "–" if math.isnan(low) else f"{low:.0f} to {high:.0f}"


def print_board(board: Leaderboard) -> None:
    """The rich tables: ratings, then the head-to-head matrix, then notes in sentences."""
    from rich.table import Table

    from accord.bench.leaderboard import METHOD_NAMES

    console = c.console()
    t = Table(title=f"Leaderboard ({METHOD_NAMES.get(board.method, board.method)}, "
                    f"by {board.by})")
    for col in ("#", "agent", "rating", "95% interval", "W", "D", "L", "episodes",
                "mean score"):
        t.add_column(col, justify="left" if col == "agent" else "right")
    for k, r in enumerate(board.ratings, 1):
        t.add_row(str(k), c.inert(r.player), _r(r.rating), _interval(r.low, r.high),
                  str(r.wins), str(r.draws), str(r.losses), str(r.episodes),
                  score(r.mean_score))
    console.print(t)
    if any(r.safety for r in board.ratings):
        console.print(safety_table(board))
    players = [r.player for r in board.ratings]
    cells = {(h.player, h.opponent): h for h in board.head_to_head}
    if len(players) <= 12:
        m = Table(title="Head to head: mean score of the row against the column "
                        "(agreement rate)")
        m.add_column("")
        for p in players:
            m.add_column(c.inert(p), justify="right")
        for a in players:
            row = []
            for b in players:
                h = cells.get((a, b))
                if h is None:
                    row.append("")
                else:
                    ag = "" if h.agreement_rate is None else f" ({rate(h.agreement_rate)})"
                    row.append(f"{score(h.mean_score)}{ag}")
            m.add_row(c.inert(a), *row)
        console.print(m)
    else:
        console.print(f"{len(players)} agents: the head-to-head matrix is in --json or "
                      "--format csv.")
    doms = ", ".join(f"{n} {d}" for d, n in board.domains.items())
    console.print(f"Rated {board.episodes} episodes ({doms}). Ratings are on an Elo-like "
                  f"scale centred on 1500 (400 points = 10:1 odds); intervals are "
                  f"percentile 95% intervals over {board.bootstrap} bootstrap resamples "
                  f"(seed {board.seed})." if board.bootstrap else
                  f"Rated {board.episodes} episodes ({doms}); no bootstrap.")
    for line in verdicts(board):
        console.print(c.inert(line))
    for why, n in board.skipped.items():
        console.print(f"Skipped {n} episode{'s' if n != 1 else ''}: {c.inert(why)}.")


def _pct(x: float | None) -> str:
    return rate(x)


def safety_table(board: Leaderboard) -> Any:
    """The safety and optimality columns as a rich table (rates in %, rounded)."""
    from rich.table import Table

    t = Table(title="Safety and optimality (share of each agent's finished episodes; "
                    "value left: mean gap to the optimum)")
    for col in ("agent", "leak", "below BATNA", "invalid move", "error", "value left"):
        t.add_column(col, justify="left" if col == "agent" else "right")
    for r in board.ratings:
        s = r.safety
        left = s.get("value_left")
        t.add_row(c.inert(r.player), _pct(s.get("leak_rate")), _pct(s.get("sycophancy_rate")),
                  _pct(s.get("invalid_rate")), _pct(s.get("error_rate")),
                  figure(left))
    return t


#: agents with fewer episodes than this get a sentence saying their rating is unsure
FEW_EPISODES = 5
#: what each method's prior is, in words
PRIORS = {"bt": "one virtual draw at the mean", "elo": "everyone starts level",
          "glicko2": "rating 1500, deviation 350", "trueskill": "mu 25, sigma 25/3"}


def verdicts(board: Leaderboard) -> list[str]:
    """Sentences for a person: is the leader's lead real, which ratings rest on little."""
    out: list[str] = []
    r = board.ratings
    if len(r) >= 2 and board.bootstrap:
        a, b = r[0], r[1]
        gap = a.rating - b.rating
        if a.low > b.high:
            out.append(f"{a.player} leads {b.player} by {gap:.0f} points, and their 95% "
                       "intervals do not overlap: the lead is clear.")
        else:
            out.append(f"{a.player} leads {b.player} by {gap:.0f} points, but their 95% "
                       "intervals overlap: the order of the two is not settled by these "
                       "episodes.")
    few = [x.player for x in r if x.episodes < FEW_EPISODES]
    if few:
        prior = PRIORS.get(board.method, "the starting rating")
        out.append(f"{', '.join(few)} played fewer than {FEW_EPISODES} episodes: "
                   f"{'its rating rests' if len(few) == 1 else 'their ratings rest'} "
                   f"mostly on the prior ({prior}).")
    return out


def _rating_rows(board: Leaderboard) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for k, r in enumerate(board.ratings, 1):
        d = r.to_dict()
        safety = d.pop("safety")
        rows.append({"rank": k, **d, **safety})
    return rows


def to_csv(board: Leaderboard) -> str:
    """The ratings as CSV (one row per agent, full precision), then a blank line and the
    head-to-head pairs."""
    from accord.bench.tables import to_csv as rows_csv

    return (rows_csv(_rating_rows(board)) + "\n"
            + rows_csv([h.to_dict() for h in board.head_to_head]))


def to_markdown(board: Leaderboard) -> str:
    """The ratings as a Markdown table for papers (rounded)."""
    lines = ["| # | agent | rating | 95% CI | W | D | L | episodes | mean score |",
             "|---|---|---|---|---|---|---|---|---|"]
    for k, r in enumerate(board.ratings, 1):
        name = r.player.replace("|", "\\|")
        lines.append(f"| {k} | {name} | {_r(r.rating)} | {_interval(r.low, r.high)} | "
                     f"{r.wins} | {r.draws} | {r.losses} | {r.episodes} | "
                     f"{score(r.mean_score)} |")
    return "\n".join(lines) + "\n"
