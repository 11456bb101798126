"""The leaderboard's input read from columns: the matches of a store (who played whom in
which seat, the per-domain scores, agreements) and, with ``--safety``, the safety tally,
without building an :class:`~accord.bench.store.EpisodeRow` per episode.

:func:`~accord.bench.leaderboard.collect` over ``store.iter_episodes()`` decodes every
episode's spec, labels, metrics and usage into a row, then scores it: about 6 s of CPU for
10^5 episodes on a loaded machine. Here SQLite does the reading in one pass in the same
order (``run, seq``; ``seq`` within one run): per episode its *cell* -- the spec's
``domain`` and ``agents`` (``json_extract``: the seed and the rest are not read), its labels
text, status and outcome, each distinct cell parsed and labelled once --, and the metrics
text only where the episode is finished without an error (repeated texts parsed once, see
:class:`~accord.bench.runscan._Parser`). Scores come from the same functions as the row
path (:data:`~accord.bench.leaderboard.SCORES`, :func:`~accord.bench.leaderboard.agreed_of`,
:func:`~accord.bench.leaderboard.seat_labels`), checked in the same order, so the matches,
domains and skip reasons are equal, not just close (``tests/bench/test_leaderboard_scan.py``
compares both on every scored domain and both store formats).

With a :class:`~accord.bench.safety.SafetyTally`, each finished episode also gets a row
holding what the tally reads: its full spec, its metrics and, from its summary, only
``flags`` and ``record`` (``json_extract``), which is all :class:`SafetyTally` and
:func:`~accord.bench.optimality.episode_gaps` look at.

A value SQLite or the JSON parser cannot read (a damaged frame, malformed JSON) makes
:func:`store_matches` fall back to the row reader, whose error names the episode.
"""

from __future__ import annotations

import copy
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from accord.bench.leaderboard import (
    BY_CHOICES,
    NO_PARTY_SCORE,
    SCORES,
    LeaderboardError,
    Match,
    Scorer,
    Seat,
    agreed_of,
    collect,
    record_parties,
    seat_labels,
)
from accord.bench.ratings import gc_paused
from accord.bench.runscan import ScanError, _Parser, _strict_text
from accord.bench.safety import SafetyTally
from accord.bench.store import EpisodeRow, Store

#: the SQL text of a maybe-compressed column (a frame is decompressed, strictly)
_TEXT = "CASE typeof({0}) WHEN 'blob' THEN accord_scan_text({0}) ELSE {0} END"
#: what the scan returns: matches, rated episodes per domain, skip reasons with counts
Collected = tuple[list[Match], dict[str, int], dict[str, int]]


@dataclass
class _Cell:
    """Episodes sharing domain, agents, labels, status and outcome: what they have in
    common, decided once (``skip``: why none of them is rated, whatever its metrics)."""

    domain: Any
    labels: list[str]
    skip: str | None
    score: Scorer | None
    selfplay: bool
    spec_agents: Any
    labels_doc: dict[str, Any]


def _cell(spec_bits: str, labels_text: str, status: str, outcome: str | None,
          by: str) -> _Cell:
    """The cell of one key, with the checks of
    :func:`~accord.bench.leaderboard.episode_match` that do not need the metrics."""
    domain, agents = json.loads(spec_bits)
    labels_doc = json.loads(labels_text)
    stand_in = EpisodeRow("", "", 0, {"domain": domain, "agents": agents}, labels_doc,
                          status, outcome, None, None, None, None, None, 1, None)
    labels = seat_labels(stand_in, by)
    name = str(domain)
    skip: str | None = None
    if status != "done":
        skip = f"not finished ({status})"
    elif outcome == "error":
        skip = "ended in an error"
    elif name in NO_PARTY_SCORE:
        skip = NO_PARTY_SCORE[name]
    elif name not in SCORES:
        skip = f"domain {name!r} has no per-party score defined"
    return _Cell(domain, labels, None if skip is None else f"{domain}: {skip}",
                 SCORES.get(name), len(set(labels)) < 2, agents, labels_doc)


def scan_matches(st: Store, run: str | None = None, by: str = "agent",
                 safety: SafetyTally | None = None) -> Collected:
    """The matches, domains and skip reasons of ``collect(st.iter_episodes(run), by,
    safety)`` (equal to them), read from columns; with ``safety``, every finished episode
    is tallied into it as :func:`~accord.bench.leaderboard.collect` does. Raises
    :class:`~accord.bench.runscan.ScanError` on a value it cannot read (``safety`` may
    then hold part of the store: :func:`store_matches` restores it)."""
    if by not in BY_CHOICES:
        raise LeaderboardError(f"--by must be one of {', '.join(BY_CHOICES)}, got {by!r}")
    st.conn.create_function("accord_scan_text", 1, _strict_text(st), deterministic=True)
    try:
        with gc_paused():  # a few small objects per episode, all kept
            return _scan(st, run, by, safety)
    except sqlite3.OperationalError as exc:  # malformed JSON, or a frame text() refused
        raise ScanError(str(exc)) from None
    except ValueError as exc:  # a metrics or summary text that is not JSON
        raise ScanError(f"a stored value is not valid JSON ({exc})") from None


def _scan(st: Store, run: str | None, by: str, safety: SafetyTally | None) -> Collected:
    finished = "status = 'done' AND outcome IS NOT 'error'"
    extra = ""
    if safety is not None:  # what SafetyTally.add reads of a finished episode
        extra = (", CASE status WHEN 'done' THEN spec END, "
                 f"CASE status WHEN 'done' THEN {_TEXT.format('metrics')} END, "
                 f"CASE status WHEN 'done' THEN json_extract({_TEXT.format('summary')}, "
                 "'$.flags', '$.record') END, "
                 "CASE WHEN summary IS NULL THEN 0 ELSE 1 END")
    where, args = ("WHERE run = ? ORDER BY seq", (run,)) if run is not None else \
        ("ORDER BY run, seq", ())
    cur = st.conn.execute(
        "SELECT json_extract(spec, '$.domain', '$.agents'), labels, status, outcome, "
        f"CASE WHEN {finished} THEN {_TEXT.format('metrics')} END{extra} "
        f"FROM episodes {where}", args)
    cells: dict[tuple[Any, ...], _Cell] = {}
    matches: list[Match] = []
    skipped: dict[str, int] = {}
    domains: dict[str, int] = {}
    parse_metrics = _Parser()
    tally: Callable[[tuple[Any, ...], _Cell], Any] | None = None
    if safety is not None:
        tally = _tallier(safety, by, _Parser())
    for got in cur:
        key = got[:4]
        cell = cells.get(key)
        if cell is None:
            cell = cells[key] = _cell(key[0], key[1], key[2], key[3], by)
        parties = None  # the row reader reads the record's parties only with summaries
        if tally is not None:
            parties = tally(got, cell)
        why = cell.skip
        if why is None:
            mt = got[4]
            met = parse_metrics(mt) if mt is not None else None
            scores = cell.score(met or {}, key[3], parties)  # type: ignore[misc]
            labels = cell.labels
            if scores is None or len(scores) != len(labels) or len(labels) < 2:
                why = f"{cell.domain}: no per-seat scores in its metrics"
            elif cell.selfplay:
                why = (f"{cell.domain}: self-play (the same label in every seat says "
                       "nothing about who is better)")
            else:
                d = str(cell.domain)
                matches.append(Match(tuple(map(Seat, labels, scores)),
                                     agreed_of(d, met or {}, key[3])))
                domains[d] = domains.get(d, 0) + 1
                continue
        skipped[why] = skipped.get(why, 0) + 1
    return matches, domains, skipped


def _tallier(safety: SafetyTally, by: str, parse: _Parser
             ) -> Callable[[tuple[Any, ...], _Cell], Any]:
    """Tally one scanned episode as ``safety.add(row, by)`` would tally its full row, and
    answer the parties its record names (what the row reader's scores then follow)."""
    def tally(got: tuple[Any, ...], cell: _Cell) -> Any:
        status = got[2]
        if status != "done":  # SafetyTally.add skips it without reading anything
            return None
        spec_text, mt, bits, has_summary = got[5:9]
        summary = None
        if has_summary:
            flags, record = json.loads(bits) if bits is not None else (None, None)
            summary = {"flags": flags, "record": record}
        row = EpisodeRow("", "", 0, json.loads(spec_text), cell.labels_doc, status,
                         got[3], summary, None if mt is None else parse(mt), None, None,
                         None, 1, None)
        safety.add(row, by)
        return record_parties(row)

    return tally


def store_matches(st: Store, run: str | None = None, by: str = "agent",
                  safety: SafetyTally | None = None) -> Collected:
    """:func:`scan_matches`, or where the store holds a value it cannot read, the row
    reader (``collect`` over ``iter_episodes``, the summaries only with ``safety``), whose
    :class:`~accord.bench.store.StoreError` names the damaged episode."""
    saved = None if safety is None else (copy.deepcopy(safety.sums),
                                         copy.deepcopy(safety.counts))
    try:
        return scan_matches(st, run, by, safety)
    except ScanError:
        if safety is not None and saved is not None:
            safety.sums, safety.counts = saved
        return collect(st.iter_episodes(run, summaries=safety is not None), by, safety)


__all__ = ["Collected", "scan_matches", "store_matches"]
