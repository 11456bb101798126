"""What a run's page computes from all of its episodes: the aggregate table, the filter
choices, the flags and the per line-up charts' figures.

Read from columns (:func:`accord.bench.runscan.scan_run`): the cells of the run in SQL
and, per episode, its metrics and the few summary paths these need (the reason, the flags,
the record's parties and utilities), never the whole record. A store SQLite cannot read
that way (a damaged value) is read the old way, row by row, which names the episode at
fault. Both give the same figures (tests/serve/test_runsummary.py compares them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from accord.bench.aggregate import Aggregate
from accord.bench.runscan import Cell, ScanError, scan_run
from accord.bench.store import EpisodeRow, Store
from accord.serve import audit
from accord.serve.overview import lineups, lineups_of_cells

#: a flag name a URL may filter on (and the page offers)
FLAG_RE = re.compile(r"^[A-Za-z0-9_]{1,64}$")
#: the filters whose values the run page offers, in order
CHOICES = ("domain", "scenario", "agents", "status", "outcome", "reason")
#: the summary paths the column scan reads (the rest of a record is never decoded)
_PATHS = ("$.reason", "$.flags", "$.record.parties", "$.record.players", "$.record.utilities",
          "$.record.payoffs", "$.record.scores", "$.record.batna")


@dataclass
class Computed:
    """A run's aggregate, filter choices (sorted), flag names (sorted) and line-ups."""

    aggregate: Aggregate
    choices: dict[str, list[str]]
    flags: list[str]
    lineups: list[dict[str, Any]]


class _Collect:
    """What the page needs from each episode's summary, gathered during the scan."""

    def __init__(self) -> None:
        self.reasons: set[str] = set()
        self.flags: set[str] = set()
        self._names: set[str] = set()  # flag names seen (matched against FLAG_RE)
        #: line-up -> domain -> party -> utilities of its finished episodes
        self.utils: dict[str, dict[str, dict[str, list[float]]]] = {}
        #: (id(bits), id(metrics)) -> (bits, metrics, utilities): the scan hands the same
        #: objects for the same stored text, and keeping them here keeps their ids unique
        self._done: dict[tuple[int, int], tuple[Any, Any, list[tuple[str, float]]]] | None = {}
        self._hits = 0

    def __call__(self, cell: Cell, bits: list[Any] | None, metrics: dict[str, Any] | None
                 ) -> None:
        done = self._done
        if done is None:
            found = self._read(bits, metrics)
        else:
            slot = (id(bits), id(metrics))
            hit = done.get(slot)
            if hit is None or hit[0] is not bits or hit[1] is not metrics:
                hit = (bits, metrics, self._read(bits, metrics))
                if len(done) >= 4096:
                    if self._hits < 512:
                        self._done = None  # distinct summaries: remembering them only costs
                    done.clear()
                    self._hits = 0
                done[slot] = hit
            else:
                self._hits += 1
            found = hit[2]
        if cell.status != "done" or not found:
            return
        utils = self.utils.setdefault(cell.lineup, {}).setdefault(
            str(cell.spec.get("domain")), {})
        for p, u in found:
            utils.setdefault(p, []).append(u)

    def _read(self, bits: list[Any] | None, metrics: dict[str, Any] | None
              ) -> list[tuple[str, float]]:
        """Note the reason and flags; each party's numeric utility (as lineups reads it)."""
        rec: dict[str, Any] = {}
        if bits is not None:
            reason, fl = bits[0], bits[1]
            if reason is not None:
                self.reasons.add(str(reason))
            if isinstance(fl, dict):
                for f in fl:
                    if f not in self._names:  # each name matched once
                        self._names.add(f)
                        if FLAG_RE.match(str(f)):
                            self.flags.add(str(f))
            rec = {"parties": bits[2], "players": bits[3], "utilities": bits[4],
                   "payoffs": bits[5], "scores": bits[6], "batna": bits[7]}
        return [(p, float(u)) for p, u in audit.record_utilities(rec, metrics)
                if isinstance(u, (int, float))]


def compute(st: Store, run: str) -> Computed:
    """The run's summary from columns (see the module docstring), else from rows."""
    collect = _Collect()
    try:
        scan = scan_run(st, run, _PATHS, collect)
    except ScanError:
        return from_rows(st.episodes(run))
    choices: dict[str, set[str]] = {k: set() for k in CHOICES}
    for c in scan.cells:
        for k, v in (("domain", c.spec.get("domain")), ("scenario", c.spec.get("scenario")),
                     ("agents", c.lineup), ("status", c.status), ("outcome", c.outcome)):
            if v is not None:
                choices[k].add(str(v))
    choices["reason"] = collect.reasons
    return Computed(scan.aggregate, {k: sorted(v) for k, v in choices.items()},
                    sorted(collect.flags), lineups_of_cells(scan.cells, collect.utils))


def from_rows(rows: Sequence[EpisodeRow]) -> Computed:
    """The same summary from decoded rows (every record parsed: the reference)."""
    from accord.bench.aggregate import aggregate

    choices: dict[str, set[str]] = {k: set() for k in CHOICES}
    flags: set[str] = set()
    for r in rows:
        s = r.summary or {}
        for k, v in (("domain", r.spec.get("domain")), ("scenario", r.spec.get("scenario")),
                     ("agents", r.lineup), ("status", r.status), ("outcome", r.outcome),
                     ("reason", s.get("reason"))):
            if v is not None:
                choices[k].add(str(v))
        fl = s.get("flags")
        if isinstance(fl, dict):
            flags.update(str(f) for f in fl if FLAG_RE.match(str(f)))
    return Computed(aggregate(rows), {k: sorted(v) for k, v in choices.items()},
                    sorted(flags), lineups(rows))


__all__ = ["CHOICES", "FLAG_RE", "Computed", "compute", "from_rows"]
