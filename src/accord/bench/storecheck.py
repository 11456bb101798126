"""``accord store check``: is a results store whole, and what of it can still be read.

:func:`check_store` opens a store read-only (``immutable=1`` on read-only media, as
:meth:`~accord.bench.store.Store.open_readonly`), runs SQLite's ``integrity_check`` and then
reads every episode **row by row** (by rowid, so one damaged page loses only the rows on
it), decoding each stored value the way ``accord results`` would. :func:`repair_store`
writes every readable episode (with its trajectory when that is readable too), every
readable run, session and approval into a **new** store; the damaged file is never
changed.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from accord.bench.store import (
    REQUIRED_TABLES,
    Store,
    StoreError,
    writable_place,
)

#: problems listed in a report (the counts are always complete)
MAX_LISTED = 20
#: rowids probed past the last one SQLite could name, when its b-tree is too damaged to say
ROWID_SLACK = 64

_EPISODE_COLUMNS = ("run", "id", "seq", "spec", "labels", "status", "outcome", "summary",
                    "metrics", "usage", "error", "wall_time", "started", "finished",
                    "attempts", "session", "worker")
#: columns whose text is a (possibly compressed) JSON document
_JSON = ("spec", "labels", "summary", "metrics", "usage")
#: columns whose text may be a compressed frame
_PACKED = ("summary", "metrics", "usage", "error")


@dataclass
class CheckReport:
    """What :func:`check_store` found."""

    path: str
    #: ``None`` when the file is an accord store; else why it is not one
    not_a_store: str | None = None
    format: int | None = None
    #: SQLite's own verdict: ``["ok"]`` or its first problems
    integrity: list[str] = field(default_factory=list)
    episodes: int = 0
    readable: int = 0
    trajectories_lost: int = 0
    unreadable: list[str] = field(default_factory=list)
    #: whether it was read ``immutable=1`` (read-only media)
    immutable: bool = False

    @property
    def lost(self) -> int:
        """Episodes found but not readable."""
        return self.episodes - self.readable

    @property
    def ok(self) -> bool:
        """A whole store: an accord store, SQLite finds nothing, every row reads."""
        return (self.not_a_store is None and self.integrity == ["ok"] and self.lost == 0
                and self.trajectories_lost == 0)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``accord store check --json``)."""
        return {"path": self.path, "ok": self.ok, "not_a_store": self.not_a_store,
                "format": self.format, "integrity": self.integrity,
                "episodes": self.episodes, "readable": self.readable, "lost": self.lost,
                "trajectories_lost": self.trajectories_lost,
                "unreadable": self.unreadable[:MAX_LISTED], "immutable": self.immutable}



def _integrity(reader: _Reader) -> list[str]:
    """SQLite's own integrity verdict (at most 20 lines), or why it could not be had."""
    try:
        return [str(r[0]) for r in reader.conn.execute("PRAGMA integrity_check(20)")]
    except sqlite3.DatabaseError as exc:
        return [str(exc)]

def _connect(path: Path) -> tuple[sqlite3.Connection, bool]:
    immutable = not writable_place(path)
    mode = "ro&immutable=1" if immutable else "ro"
    conn = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode={mode}", uri=True,
                           check_same_thread=False)
    return conn, immutable


#: indexes whose entries name episode rowids even when the table's own pages are damaged
_INDEXES = {"episodes": ("episodes_by_seq", "episodes_by_status")}


def _rowids(conn: sqlite3.Connection, table: str) -> list[int]:
    """Every rowid of ``table`` that SQLite can reach, even past damaged pages (the
    table's own b-tree, its indexes, then a probe of every rowid up to the largest)."""
    found: list[int] = []
    try:
        for (rowid,) in conn.execute(f"SELECT rowid FROM {table} ORDER BY rowid"):
            found.append(int(rowid))
        return found
    except sqlite3.DatabaseError:
        pass
    for index in _INDEXES.get(table, ()):
        try:
            for (rowid,) in conn.execute(f"SELECT rowid FROM {table} INDEXED BY {index}"):
                found.append(int(rowid))
        except sqlite3.DatabaseError:
            continue
    found = sorted(set(found))
    top = found[-1] if found else 0
    try:
        row = conn.execute(f"SELECT max(rowid) FROM {table}").fetchone()
        top = max(top, int(row[0] or 0))
    except sqlite3.DatabaseError:
        top += ROWID_SLACK
    have = set(found)
    for rowid in range(1, top + 1):
        if rowid in have:
            continue
        try:
            if conn.execute(f"SELECT 1 FROM {table} WHERE rowid=?", (rowid,)).fetchone():
                found.append(rowid)
        except sqlite3.DatabaseError:
            continue
    return sorted(found)


def _rows(conn: sqlite3.Connection, table: str, columns: str
          ) -> tuple[list[tuple[Any, ...]], int]:
    """The readable rows of ``table`` and how many could not be read."""
    rows, bad = [], 0
    for rowid in _rowids(conn, table):
        try:
            row = conn.execute(f"SELECT {columns} FROM {table} WHERE rowid=?",
                               (rowid,)).fetchone()
        except sqlite3.DatabaseError:
            bad += 1
            continue
        if row is not None:
            rows.append(tuple(row))
    return rows, bad


class _Reader:
    """Row-by-row reading of one store (the open :class:`Store` decodes values)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.conn, self.immutable = _connect(path)
        self.store = Store(path, self.conn)
        try:
            self.store.codec()
        except sqlite3.DatabaseError:  # the dictionaries' pages are damaged: frames
            from accord.bench.compact import (
                Codec,
                dictionary_id,
                earlier_dictionaries,
                shipped_dictionary,
            )

            # of a dictionary accord shipped (now or before) still decode
            self.store._codec = Codec({dictionary_id(raw): raw for raw in (
                *earlier_dictionaries(), shipped_dictionary())}, None)

    def close(self) -> None:
        self.conn.close()

    def decode(self, row: tuple[Any, ...]) -> dict[str, Any]:
        """One episode row with every value decoded to text (raises on damage)."""
        out = dict(zip(_EPISODE_COLUMNS, row, strict=True))
        run, eid = str(out["run"]), str(out["id"])
        for col in (*_PACKED, "spec", "labels"):
            out[col] = self.store._text(out[col], run, eid, col)
        for col in _JSON:
            if out[col] is not None:
                self.store._json(out[col], run, eid, col)
        return out

    def trajectory(self, run: str, eid: str) -> str | None:
        row = self.conn.execute("SELECT jsonl FROM trajectories WHERE run=? AND id=?",
                                (run, eid)).fetchone()
        return None if row is None else self.store._text(row[0], run, eid, "trajectory")


def _open_reader(path: Path, report: CheckReport) -> _Reader | None:
    try:
        reader = _Reader(path)
    except sqlite3.DatabaseError as exc:
        report.not_a_store = f"cannot be opened as SQLite ({exc})"
        return None
    report.immutable = reader.immutable
    try:
        names = {r[0] for r in reader.conn.execute("SELECT name FROM sqlite_master")}
    except sqlite3.DatabaseError as exc:
        text = str(exc)
        report.not_a_store = ("not an SQLite database" if "not a database" in text
                              else f"its table list cannot be read ({text})")
        reader.close()
        return None
    missing = sorted(REQUIRED_TABLES - names)
    if missing:
        report.not_a_store = f"missing tables: {', '.join(missing)}"
        reader.close()
        return None
    try:
        reader.store._check_version()
        report.format = reader.store.format
    except (StoreError, sqlite3.DatabaseError) as exc:
        report.not_a_store = str(exc)
        reader.close()
        return None
    return reader


def check_store(path: str | Path) -> CheckReport:
    """Check the store at ``path``: SQLite integrity, then every episode row by row."""
    p = Path(path)
    if not p.is_file():
        raise StoreError(f"no results store at {p}")
    report = CheckReport(str(p))
    reader = _open_reader(p, report)
    if reader is None:
        return report
    try:
        report.integrity = _integrity(reader)
        for _ in _episodes(reader, report):
            pass
    finally:
        reader.close()
    return report


def _episodes(reader: _Reader, report: CheckReport
              ) -> Any:
    """Yield ``(decoded episode, trajectory text or None)`` for every readable episode,
    counting the rest into ``report``."""
    rows, bad = _rows(reader.conn, "episodes", ", ".join(_EPISODE_COLUMNS))
    report.episodes = len(rows) + bad
    if bad:
        report.unreadable.append(f"{bad} episode row(s) on damaged pages")
    for row in rows:
        try:
            ep = reader.decode(row)
        except (StoreError, sqlite3.DatabaseError) as exc:
            report.unreadable.append(f"episode {row[0]}/{row[1]}: {exc}")
            continue
        report.readable += 1
        try:
            traj = reader.trajectory(ep["run"], ep["id"])
        except (StoreError, sqlite3.DatabaseError) as exc:
            report.trajectories_lost += 1
            report.unreadable.append(f"trajectory of {ep['run']}/{ep['id']}: {exc}")
            traj = None
        yield ep, traj


def repair_store(path: str | Path, out: str | Path) -> CheckReport:
    """Copy every readable episode of the store at ``path`` into a new store ``out``.

    Runs, sessions and approvals are copied where readable; a run whose row was lost is
    recreated with an empty config (``source`` says so), so its episodes stay listed.
    Returns the check report of the source (its counts are what was recovered).
    """
    p, target = Path(path), Path(out)
    if not p.is_file():
        raise StoreError(f"no results store at {p}")
    if target.exists():
        raise StoreError(f"--repair {target} exists; give a new file (the repaired copy "
                         "never overwrites anything)")
    if target.resolve() == p.resolve():
        raise StoreError("--repair needs a new file, not the damaged store itself")
    report = CheckReport(str(p))
    reader = _open_reader(p, report)
    if reader is None:
        raise StoreError(f"{p} is not an accord store ({report.not_a_store}); nothing to "
                         "repair")
    try:
        report.integrity = _integrity(reader)
        with Store.open(target) as new:
            _copy(reader, new, report)
    finally:
        reader.close()
    return report


def _copy(reader: _Reader, new: Store, report: CheckReport) -> None:
    conn = new.conn
    runs, _ = _rows(reader.conn, "runs", "name, config, source, accord_version, git_commit,"
                    " created, updated")
    sessions, _ = _rows(reader.conn, "sessions", "id, run, started, finished, state,"
                        " accord_version, git_commit, cwd_commit, host, config, executor,"
                        " concurrency, planned, queued, done, failed")
    known = {str(r[0]) for r in runs}
    with conn:
        conn.executemany("INSERT OR IGNORE INTO runs VALUES (?,?,?,?,?,?,?)", runs)
        names = [c for c in _EPISODE_COLUMNS]
        marks = ",".join("?" * len(names))
        for ep, traj in _episodes(reader, report):
            run = str(ep["run"])
            if run not in known:
                conn.execute("INSERT INTO runs VALUES (?,?,?,?,?,?,?)",
                             (run, "{}", "recreated by accord store check --repair",
                              "unknown", None, ep["started"] or 0.0, ep["finished"] or 0.0))
                known.add(run)
            values = [new._pack(ep[c]) if c in _PACKED else ep[c] for c in names]
            conn.execute(f"INSERT OR IGNORE INTO episodes ({', '.join(names)}) VALUES "
                         f"({marks})", values)
            if traj is not None:
                conn.execute("INSERT OR REPLACE INTO trajectories VALUES (?,?,?)",
                             (run, ep["id"], new._pack(traj)))
        good_sessions = [s for s in sessions if str(s[1]) in known]
        conn.executemany(f"INSERT OR IGNORE INTO sessions VALUES ({','.join('?' * 16)})",
                         good_sessions)
    _copy_approvals(reader, new)


def _copy_approvals(reader: _Reader, new: Store) -> None:
    from accord.bench import approvals

    try:
        if not approvals.has_table(reader.conn):
            return
    except sqlite3.DatabaseError:
        return
    rows, _ = _rows(reader.conn, "approvals", "run, id, state, requested, decided, comment,"
                    " decided_by")
    approvals.ensure_table(new.conn)
    with new.conn:
        new.conn.executemany("INSERT OR IGNORE INTO approvals VALUES (?,?,?,?,?,?,?)", rows)


__all__ = ["CheckReport", "check_store", "repair_store"]
