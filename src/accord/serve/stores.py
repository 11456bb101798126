"""The served stores: read-only access, run overviews, paged episode tables, id lookup.

Every read opens the store with :meth:`accord.bench.store.Store.open_readonly` (SQLite
``mode=ro`` on a WAL database: a running ``accord bench`` is never blocked and nothing is
written). A store is addressed in URLs by its position in the list given to
``accord serve``, never by a path, so no URL can name a file. Approvals are written
through a separate, short-lived writable connection to their own table only
(:mod:`accord.bench.approvals`).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accord.bench import approvals
from accord.bench.store import EpisodeRow, Store, StoreError
from accord.serve.runsummary import FLAG_RE as _FLAG_RE

#: rows per page of the episodes table (default and most)
PAGE_SIZE, MAX_PAGE_SIZE = 50, 500
#: an episode id (or prefix) from a URL: hash-like text only
ID_RE = re.compile(r"^[A-Za-z0-9_\-]{1,128}$")
#: seconds a computed run summary (aggregate, filter choices) is reused while the run grows
SUMMARY_TTL = 10.0
#: counts and filtered/sorted orderings kept (each at most one int per episode)
CACHE_ENTRIES = 64

#: an episode's line-up label in SQL, as :attr:`EpisodeRow.lineup` computes it: the stored
#: label, else the agent specs joined by " vs " (a browser game stores none)
LINEUP_SQL = ("COALESCE(json_extract(labels, '$.lineup'), (SELECT group_concat(value, ' vs ') "
              "FROM json_each(labels, '$.agents')))")
#: filter name -> SQL condition over ``episodes`` (values bound as parameters)
FILTERS: dict[str, str] = {
    "domain": "json_extract(spec, '$.domain') = ?",
    "scenario": "json_extract(spec, '$.scenario') = ?",
    "agents": LINEUP_SQL + " = ?",
    "status": "status = ?",
    "outcome": "outcome = ?",
    "reason": "json_extract(accord_text(summary), '$.reason') = ?",
}
#: sort key -> ORDER BY expression (a fixed list: URL text never reaches SQL)
SORTS: dict[str, str] = {
    "seq": "seq",
    "scenario": "json_extract(spec, '$.scenario')",
    "agents": LINEUP_SQL,
    "seed": "json_extract(spec, '$.seed')",
    "status": "status",
    "outcome": "outcome",
    "reason": "json_extract(accord_text(summary), '$.reason')",
    "rounds": "json_extract(accord_text(summary), '$.rounds')",
    "wall_time": "wall_time",
    "finished": "finished",
}
APPROVAL_STATES = (approvals.PENDING, approvals.APPROVED, approvals.REJECTED)


class NotFound(LookupError):
    """A store, run or episode that is not there (HTTP 404)."""


class Ambiguous(LookupError):
    """An id prefix matching several episodes; ``matches`` lists them."""

    def __init__(self, prefix: str, matches: list[EpisodeRef]) -> None:
        super().__init__(f"episode id {prefix!r} matches {len(matches)} episodes")
        self.matches = matches


@dataclass(frozen=True)
class EpisodeRef:
    """Where one episode lives: store position, run and full id."""

    store: int
    run: str
    id: str


@dataclass
class Query:
    """A page request of a run's episodes table (already validated)."""

    filters: dict[str, str] = field(default_factory=dict)
    flag: str | None = None
    approval: str | None = None
    sort: str = "seq"
    desc: bool = False
    page: int = 1
    per_page: int = PAGE_SIZE

    @classmethod
    def parse(cls, params: Any) -> Query:
        """From URL query parameters; unknown values are dropped, numbers clamped."""
        q = cls()
        for key in FILTERS:
            val = (params.get(key) or "").strip()
            if val:
                q.filters[key] = val[:500]
        flag = (params.get("flag") or "").strip()
        q.flag = flag if _FLAG_RE.match(flag) else None
        ap = params.get("approval") or ""
        q.approval = ap if ap in APPROVAL_STATES else None
        sort = params.get("sort") or "seq"
        q.sort = sort if sort in SORTS else "seq"
        q.desc = params.get("dir") == "desc"
        q.page = _int(params.get("page"), 1, 1, 10**9)
        q.per_page = _int(params.get("per_page"), PAGE_SIZE, 1, MAX_PAGE_SIZE)
        return q

    def params(self, **changes: Any) -> dict[str, str]:
        """The URL parameters of this query with ``changes`` applied (for links)."""
        out: dict[str, str] = dict(self.filters)
        if self.flag:
            out["flag"] = self.flag
        if self.approval:
            out["approval"] = self.approval
        if self.sort != "seq":
            out["sort"] = self.sort
        if self.desc:
            out["dir"] = "desc"
        if self.page != 1:
            out["page"] = str(self.page)
        if self.per_page != PAGE_SIZE:
            out["per_page"] = str(self.per_page)
        for k, v in changes.items():
            if v is None:
                out.pop(k, None)
            else:
                out[k] = str(v)
        return out


def _int(text: Any, default: int, lo: int, hi: int) -> int:
    try:
        return max(lo, min(hi, int(str(text))))
    except (TypeError, ValueError):
        return default


@dataclass
class Page:
    """One page of a run's episodes, with the approval of each."""

    rows: list[EpisodeRow]
    approvals: dict[tuple[str, str], approvals.Approval]
    total: int
    query: Query

    @property
    def pages(self) -> int:
        """Number of pages (at least 1)."""
        return max(1, -(-self.total // self.query.per_page))


@dataclass
class RunSummary:
    """What needs every row of a run: the aggregate table and the filter choices."""

    aggregate: Any
    choices: dict[str, list[str]]
    flags: list[str]
    computed: float
    key: tuple[Any, ...]
    #: per line-up counts, agreement rate and utilities (:func:`accord.serve.overview.lineups`)
    lineups: list[dict[str, Any]] = field(default_factory=list)


class Stores:
    """The stores given to ``accord serve``, addressed by position."""

    def __init__(self, paths: list[Path]) -> None:
        self.paths = [Path(p).resolve() for p in paths]
        self._summaries: dict[tuple[int, str], RunSummary] = {}
        self._lock = threading.Lock()
        self._computing: dict[tuple[int, str], threading.Lock] = {}
        #: (store, what) -> (stamp, value): counts and orderings while the file is unchanged
        self._cache: OrderedDict[tuple[Any, ...], tuple[tuple[int, ...], Any]] = OrderedDict()

    def stamp(self, index: int) -> tuple[int, ...]:
        """A change stamp of store ``index``: size and mtime of the file and of its WAL
        (every commit of a writer changes the WAL, a checkpoint the file)."""
        out: list[int] = []
        for p in (self.path(index), Path(f"{self.path(index)}-wal")):
            try:
                s = p.stat()
                out += [s.st_size, s.st_mtime_ns]
            except OSError:
                out += [-1, -1]
        return tuple(out)

    def cached(self, index: int, key: tuple[Any, ...], compute: Any) -> Any:
        """``compute()`` once per change of store ``index`` (see :meth:`stamp`)."""
        stamp = self.stamp(index)
        slot = (index, *key)
        with self._lock:
            hit = self._cache.get(slot)
            if hit is not None and hit[0] == stamp:
                self._cache.move_to_end(slot)
                return hit[1]
        value = compute()
        with self._lock:
            self._cache[slot] = (stamp, value)
            while len(self._cache) > CACHE_ENTRIES:
                self._cache.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self.paths)

    def path(self, index: int) -> Path:
        """The path of store ``index`` (:class:`NotFound` if out of range)."""
        if not 0 <= index < len(self.paths):
            raise NotFound(f"no store number {index}")
        return self.paths[index]

    @contextmanager
    def read(self, index: int) -> Iterator[Store]:
        """A read-only connection to store ``index``, closed afterwards."""
        st = Store.open_readonly(self.path(index))
        try:
            yield st
        finally:
            st.conn.close()

    # --- overview ------------------------------------------------------------------
    def overview(self) -> list[dict[str, Any]]:
        """Every store with its runs and their episode counts (or the error opening it)."""
        out: list[dict[str, Any]] = []
        for i, p in enumerate(self.paths):
            entry: dict[str, Any] = {"index": i, "path": str(p), "name": p.name, "runs": []}
            if not p.exists():
                entry["note"] = "no episodes yet (the file is created by the first one)"
                out.append(entry)
                continue
            try:
                with self.read(i) as st:
                    for run in st.runs():
                        entry["runs"].append(self.info(i, st, run))
            except StoreError as exc:
                entry["error"] = str(exc)
            out.append(entry)
        return out

    @staticmethod
    def run_info(st: Store, run: dict[str, Any]) -> dict[str, Any]:
        """A run's provenance and counts (cheap: the status index only)."""
        counts = {s: int(n) for s, n in st.conn.execute(
            "SELECT status, count(*) FROM episodes WHERE run=? GROUP BY status",
            (run["name"],))}
        cfg = run.get("config") or {}
        return {"name": run["name"], "description": cfg.get("description") or "",
                "source": run.get("source"), "accord_version": run["accord_version"],
                "git_commit": run["git_commit"], "created": run["created"],
                "updated": run["updated"], "episodes": sum(counts.values()),
                "done": counts.get("done", 0), "failed": counts.get("failed", 0),
                "pending": counts.get("pending", 0),
                "require_approval": bool(cfg.get("require_approval")),
                "approvals": approvals.counts(st.conn, run["name"])}

    def info(self, index: int, st: Store, run: dict[str, Any]) -> dict[str, Any]:
        """:meth:`run_info`, cached while the store file is unchanged."""
        return dict(self.cached(index, ("info", run["name"]),
                                lambda: self.run_info(st, run)))

    # --- one run -------------------------------------------------------------------
    def run_header(self, st: Store, name: str, index: int | None = None) -> dict[str, Any]:
        """The run's info (:class:`NotFound` if the store has no such run)."""
        for r in st.runs():
            if r["name"] == name:
                return self.run_info(st, r) if index is None else self.info(index, st, r)
        raise NotFound(f"no run {name!r} in {st.path.name}")

    def page(self, st: Store, run: str, q: Query, index: int | None = None) -> Page:
        """One page of the run's episodes.

        The plain table (plan order, no filter) is SQL LIMIT/OFFSET on the plan-order
        index. A filtered or sorted table computes the ordered list of matching plan
        positions once per change of the store (a scan, since JSON fields have no
        index) and pages through that list; counts are cached the same way.
        """
        where = ["run = ?"]
        args: list[Any] = [run]
        for key, val in q.filters.items():
            where.append(FILTERS[key])
            args.append(val)
        if q.flag:
            path = f'$.flags."{q.flag}"'
            where.append("(json_extract(accord_text(summary), ?) = 1 OR "
                         "instr(json_extract(accord_text(summary), ?), 'true') > 0)")
            args += [path, path]
        has_approvals = approvals.has_table(st.conn)
        if q.approval:
            if not has_approvals:
                return Page([], {}, 0, q)
            where.append("EXISTS (SELECT 1 FROM approvals a WHERE a.run = episodes.run AND "
                         "a.id = episodes.id AND a.state = ?)")
            args.append(q.approval)
        cond = " AND ".join(where)
        direction = " DESC" if q.desc else ""
        order = f"{SORTS[q.sort]}{direction}" + ("" if q.sort == "seq" else f", seq{direction}")
        plain = len(where) == 1 and q.sort == "seq"
        view = (run, cond, tuple(args), order)
        if plain or index is None:
            total = (st.count(cond, tuple(args)) if index is None else
                     self.cached(index, ("count", *view), lambda: st.count(cond, tuple(args))))
            q.page = min(q.page, max(1, -(-total // q.per_page)))
            rows = st.select(cond, tuple(args), order, q.per_page, (q.page - 1) * q.per_page)
        else:
            seqs: list[int] = self.cached(index, ("order", *view), lambda: [
                int(r[0]) for r in st.conn.execute(
                    f"SELECT seq FROM episodes WHERE {cond} ORDER BY {order}", args)])
            total = len(seqs)
            q.page = min(q.page, max(1, -(-total // q.per_page)))
            want = seqs[(q.page - 1) * q.per_page:q.page * q.per_page]
            marks = ",".join("?" * len(want))
            got = {r.seq: r for r in st.select(f"run = ? AND seq IN ({marks})",
                                               (run, *want), "seq")} if want else {}
            rows = [got[s] for s in want if s in got]
        found = approvals.of_episodes(st.conn, [(r.run, r.id) for r in rows]) \
            if has_approvals else {}
        return Page(rows, found, total, q)

    def summary(self, index: int, name: str) -> RunSummary:
        """The run's aggregate table and filter choices; recomputed when the run changed
        (at most every :data:`SUMMARY_TTL` seconds while a bench is writing)."""
        from accord.serve.runsummary import compute

        slot = (index, name)
        with self._lock:
            gate = self._computing.setdefault(slot, threading.Lock())
        with gate:
            with self.read(index) as st:
                info = self.run_header(st, name, index)
                key = (info["episodes"], info["done"], info["failed"])
                cached = self._summaries.get(slot)
                if cached is not None and (cached.key == key or
                                           time.time() - cached.computed < SUMMARY_TTL):
                    return cached
                got = compute(st, name)
            result = RunSummary(got.aggregate, {k: got.choices.get(k, []) for k in FILTERS},
                                got.flags, time.time(), key, got.lineups)
            self._summaries[slot] = result
            return result

    def cached_summary(self, index: int, name: str) -> RunSummary | None:
        """The last computed summary of a run, if any (never computes)."""
        return self._summaries.get((index, name))

    # --- episodes ------------------------------------------------------------------
    def resolve(self, prefix: str, store: int | None = None, run: str | None = None
                ) -> EpisodeRef:
        """The one episode whose id starts with ``prefix`` in the served stores (a range
        scan of each run's primary key, so fast on any store size)."""
        if not ID_RE.match(prefix):
            raise NotFound(f"not an episode id: {prefix[:80]!r}")
        found: list[EpisodeRef] = []
        indices = range(len(self.paths)) if store is None else [store]
        for i in indices:
            self.path(i)
            try:
                with self.read(i) as st:
                    runs = [r["name"] for r in st.runs()] if run is None else [run]
                    for name in runs:
                        cur = st.conn.execute(
                            "SELECT id FROM episodes WHERE run=? AND id >= ? AND id < ? "
                            "ORDER BY id LIMIT 6", (name, prefix, prefix + "\U0010ffff"))
                        found += [EpisodeRef(i, name, eid) for (eid,) in cur]
            except StoreError:
                continue
        exact = [f for f in found if f.id == prefix]
        if len(exact) == 1:
            return exact[0]
        if not found:
            raise NotFound(f"no episode with id {prefix!r} in the served stores")
        if len(found) > 1:
            raise Ambiguous(prefix, found)
        return found[0]

    def episode(self, ref: EpisodeRef) -> tuple[EpisodeRow, str | None,
                                                 approvals.Approval | None, dict[str, Any]]:
        """An episode's row, JSONL trajectory (via ``Store.trajectory``), approval and
        run info."""
        with self.read(ref.store) as st:
            rows = st.select("run = ? AND id = ?", (ref.run, ref.id), "seq", 1)
            if not rows:
                raise NotFound(f"no episode {ref.id} in run {ref.run!r}")
            row = rows[0]
            jsonl = st.trajectory(ref.run, ref.id)
            appr = approvals.get(st.conn, ref.run, ref.id)
            info = self.run_header(st, ref.run, ref.store)
        return row, jsonl, appr, info

    def lineage(self, ref: EpisodeRef, row: EpisodeRow, limit: int = 50
                ) -> tuple[EpisodeRow | None, list[EpisodeRow]]:
        """A fork's parent when it is in the same store (else ``None``) and the episode's
        own forks in that store (at most ``limit``). Forks are looked for only in the runs
        that can hold them (``accord fork``'s run, a bench sweep with a ``fork:`` block:
        their config names it), by the parent id in the spec text (``instr`` first, so the
        JSON is parsed only for candidates): a 10^5-episode run without forks costs
        nothing."""
        parent: EpisodeRow | None = None
        info = row.spec.get("fork")
        with self.read(ref.store) as st:
            if isinstance(info, Mapping) and isinstance(info.get("parent"), str):
                pid, prun = info["parent"], info.get("parent_run")
                found = st.select("run = ? AND id = ?", (prun, pid), "seq", 1) \
                    if isinstance(prun, str) else []
                found = found or st.select("id = ?", (pid,), "run, seq", 1)
                parent = found[0] if found else None
            runs = [r["name"] for r in st.runs() if "fork" in str(r["name"])
                    or "fork" in json.dumps(r["config"], default=str)]
            forks = st.select(f"run IN ({', '.join('?' * len(runs))}) AND instr(spec, ?) > 0 "
                              "AND json_extract(spec, '$.fork.parent') = ?",
                              (*runs, row.id, row.id), "run, seq", limit) if runs else []
        return parent, forks

    def check_decision(self, ref: EpisodeRef, state: str, comment: str | None) -> None:
        """:class:`~accord.bench.approvals.ApprovalError` if the decision could not be
        recorded now (read-only: the confirmation step asks before showing itself)."""
        with self.read(ref.store) as st:
            approvals.check(st.conn, ref.run, ref.id, state, comment)

    def decide(self, ref: EpisodeRef, state: str, comment: str | None, by: str
               ) -> approvals.Approval:
        """Record a decision (a short writable connection to the approvals table)."""
        import sqlite3

        from accord.bench.store import BUSY_TIMEOUT

        conn = sqlite3.connect(str(self.path(ref.store)), timeout=BUSY_TIMEOUT)
        try:
            return approvals.decide(conn, ref.run, ref.id, state, comment, by)
        finally:
            conn.close()


__all__ = ["FILTERS", "ID_RE", "MAX_PAGE_SIZE", "PAGE_SIZE", "SORTS", "Ambiguous",
           "EpisodeRef", "NotFound", "Page", "Query", "RunSummary", "Stores"]
