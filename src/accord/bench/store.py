"""The results store: one SQLite file (WAL) per experiment, default ``runs/<name>.db``.

Tables: ``runs`` (name, resolved config, accord version, git commit, times),
``sessions`` (one per ``accord bench`` invocation: executor, counts, state),
``episodes`` (spec, labels, status ``pending``/``done``/``failed``, the episode's own
``outcome``, summary, metrics, usage, error, timings), ``trajectories`` (JSONL) and
``zdicts`` (the compression dictionaries of the store's rows).

Format: a store made by this version is format 2: ``summary``, ``metrics``, ``usage``,
``error`` and the trajectory are zstd frames compressed with a trained dictionary
(:mod:`accord.bench.compact`; about 0.5 KiB per bargaining episode instead of 5.3);
``spec`` and ``labels`` stay JSON text for SQL filters. Reading detects the encoding per
value (text or frame), so format-1 stores (accord before the compact store) open and
read as before; they also keep being *written* in format 1, so older accord versions
can still read them (no silent migration). A format-2 store made with the dictionary an
earlier accord shipped takes on the current one when it is next written (one ``zdicts``
row; still format 2, and every accord that reads format 2 finds each frame's dictionary
in the store). Decoding stays inside this module: callers
get the same ``EpisodeRow`` / JSONL text from either format. SQL that needs a
compressed column's JSON uses the connection's ``accord_text(column)`` function.

Crash safety: every finished episode is committed in a transaction of its own or of a
batch (:meth:`Store.write_many`: all or none) and nothing else is written while episodes
run, so a SIGKILL loses at most the episodes in flight or in an uncommitted batch (they
are still ``pending`` and run again on resume). WAL with ``synchronous=NORMAL``:
a commit is in the OS once ``COMMIT`` returns, so a killed *process* loses nothing
committed and SQLite never sees a torn database; only an OS crash or power loss can
roll back the last few commits (never corrupt), and those episodes simply rerun.
``FULL`` would add an fsync per episode for no benefit against process kills.

The driver is the only writer (plus an advisory lock file ``<store>.lock`` so two
``accord bench`` processes do not run the same store at once). Everything written
passes through :mod:`accord.bench.redact` first.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import random
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from accord.bench.compact import (
    Codec,
    CorruptValue,
    dictionary_id,
    earlier_dictionaries,
    shipped_dictionary,
)
from accord.bench.expand import PlannedEpisode
from accord.bench.redact import Redactor
from accord.bench.rows import EncoderSpec, RowEncoder
from accord.bench.worker import EpisodeRecord

#: bump when the schema changes incompatibly (the format new stores are made in)
SCHEMA_VERSION = 2
#: formats this version opens: 1 (plain JSON text), 2 (compressed columns)
READABLE_VERSIONS = (1, 2)
#: seconds a connection waits for another process's write lock before "store busy"
BUSY_TIMEOUT = 30.0
#: plan-order index for paged reading (``accord serve``); added to older stores on open
SEQ_INDEX = "CREATE INDEX IF NOT EXISTS episodes_by_seq ON episodes (run, seq)"
#: tables every accord store has (format 2 adds ``zdicts``, approvals come on first use)
REQUIRED_TABLES = frozenset({"meta", "runs", "sessions", "episodes", "trajectories"})


class StoreError(RuntimeError):
    """A store that cannot be opened or used (missing, busy, wrong schema, no such id)."""


@dataclass
class EpisodeRow:
    """One stored episode (without its trajectory), JSON fields decoded."""

    run: str
    id: str
    seq: int
    spec: dict[str, Any]
    labels: dict[str, Any]
    status: str
    outcome: str | None
    summary: dict[str, Any] | None
    metrics: dict[str, Any] | None
    usage: dict[str, Any] | None
    error: str | None
    wall_time: float | None
    attempts: int
    finished: float | None

    @property
    def lineup(self) -> str:
        """The line-up's label: the stored ``lineup`` label, else the agent specs joined
        by ``vs`` (a game a person played in the browser stores no name: ``human vs
        boulware``); never ``None``."""
        return lineup_label(self.labels, self.spec)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (used by ``accord results --format json``)."""
        return dict(self.__dict__)


def lineup_label(labels: Mapping[str, Any] | None, spec: Mapping[str, Any] | None) -> str:
    """A line-up label from an episode's labels and spec (see :attr:`EpisodeRow.lineup`)."""
    labels, spec = labels or {}, spec or {}
    given = labels.get("lineup")
    if given:
        return str(given)
    agents = labels.get("agents") or spec.get("agents") or []
    return " vs ".join(str(a) for a in agents) or "-"


def _statements(script: str) -> list[str]:
    """The SQL statements of a script (``executescript`` would commit our transaction)."""
    out: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    return [st for st in out if st.strip(" \n;")]


def damaged(path: str | Path, detail: str) -> str:
    """The message of a store SQLite reports as damaged (``detail`` on one line)."""
    detail = " ".join(detail.split())
    detail = detail if len(detail) <= 240 else detail[:240] + "..."
    return (f"store damaged: {path} ({detail}); run `accord store check {path}` (it can "
            "recover every readable episode into a new store)")


def _db_error(path: Path, exc: sqlite3.Error) -> StoreError:
    """A SQLite error met while opening ``path`` as a store, as a clear :class:`StoreError`."""
    text = str(exc)
    if "not a database" in text or "encrypted" in text:
        return StoreError(f"{path} is not an accord store (not an SQLite database)")
    if "malformed" in text or "corrupt" in text:
        return StoreError(damaged(path, text))
    if "no such table" in text or "no such column" in text:
        return StoreError(f"{path} is not an accord store ({text})")
    return StoreError(f"cannot open results store {str(path)[:200]}: {text}")


def _cannot_write(exc: sqlite3.Error) -> bool:
    """Whether SQLite failed because it may not write next to the store (its -shm file)."""
    text = str(exc).lower()
    return any(k in text for k in ("unable to open", "readonly", "read-only", "disk i/o"))


def writable_place(path: Path) -> bool:
    """Whether this process may write ``path`` and its folder (what a WAL reader needs for
    the ``-shm`` file); ``False`` on read-only media and in other users' folders."""
    folder = path.resolve().parent
    if not (os.access(folder, os.W_OK | os.X_OK) and os.access(path, os.W_OK)):
        return False
    shm = Path(f"{path}-shm")
    return not shm.exists() or os.access(shm, os.W_OK)


#: stores found whole by ``quick_check`` (path, size and mtime of the file and its -wal):
#: ``accord serve`` opens a store per request and must not read it whole every time
_CHECKED: dict[tuple[Any, ...], None] = {}
_CHECKED_LOCK = threading.Lock()
#: how many checked stores are remembered
CHECKED_MEMO = 256


def _stamp(path: Path) -> tuple[Any, ...] | None:
    """What must be unchanged for an earlier integrity check to still hold."""
    try:
        main = path.stat()
        wal = Path(f"{path}-wal")
        w = wal.stat() if wal.exists() else None
    except OSError:
        return None
    return (str(path.resolve()), main.st_size, main.st_mtime_ns, main.st_ino,
            None if w is None else (w.st_size, w.st_mtime_ns))


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)



class Store:
    """A connection to one results database (create it with :meth:`open`)."""

    def __init__(self, path: str | Path, conn: sqlite3.Connection) -> None:
        self.path = Path(path)
        self.conn = conn
        self._lock_fd: int | None = None
        self._redact = Redactor()
        #: the store's format (1 or 2), known once the schema is checked
        self.format = SCHEMA_VERSION
        self._codec: Codec | None = None
        self._encoder: RowEncoder | None = None
        #: opened ``immutable=1`` (read-only media: see :meth:`open_readonly`)
        self.immutable = False
        #: an immutable open found a ``-wal`` file whose commits it cannot see
        self.stale_wal = False
        conn.create_function("accord_text", 1, self._sql_text, deterministic=True)

    # --- opening -------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | Path, create: bool = True) -> Store:
        """Open (and by default create) the store at ``path``."""
        p = Path(path)
        try:
            if not create and not p.exists():
                raise StoreError(f"no results store at {p}")
            if create:
                p.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot open results store {str(p)[:200]}: "
                             f"{exc.strerror or exc}") from None
        deadline = time.monotonic() + BUSY_TIMEOUT
        for attempt in itertools.count():
            try:
                return cls._connect(p, create)
            except sqlite3.OperationalError as exc:
                busy = "locked" in str(exc) or "busy" in str(exc)
                if not busy:
                    raise _db_error(p, exc) from None
                # SQLite skips the busy handler where waiting could deadlock (two processes
                # switching a new file to WAL at once): back off and try again
                if time.monotonic() >= deadline:
                    raise StoreError(f"store busy: {p} is locked by another process ({exc}); "
                                     "wait for it or use another --out") from None
                time.sleep(min(0.5, 0.01 * 2 ** min(attempt, 6)) * (0.5 + random.random()))
            except sqlite3.DatabaseError as exc:
                raise _db_error(p, exc) from None
        raise AssertionError("unreachable")  # pragma: no cover

    @classmethod
    def open_readonly(cls, path: str | Path, check: bool = True) -> Store:
        """Open an existing store read-only, for browsing (results, show, report, serve).

        Where this process may write the store's folder and file, SQLite's ``mode=ro``: a
        reader of a WAL database never blocks the writer (a running ``accord bench``) and
        never waits for it; nothing is created, migrated or locked. Where it may not (a
        read-only mount, an archive, another user's folder), ``mode=ro`` cannot work (WAL
        readers need the ``-shm`` file), so the store is opened ``immutable=1``: no
        ``-shm``, no locks. Its :attr:`immutable` is then true and :attr:`stale_wal` says
        whether a ``-wal`` file holds commits such a reader cannot apply. ``check`` runs
        the schema and integrity checks of :meth:`verify`.
        """
        p = Path(path)
        if not p.is_file():
            raise StoreError(f"no results store at {p}")
        immutable = not writable_place(p)
        try:
            store = cls._connect_readonly(p, immutable, check)
        except sqlite3.OperationalError as exc:
            if immutable or not _cannot_write(exc):
                raise _db_error(p, exc) from None
            # the access check said yes but SQLite could not make its -shm file (a
            # read-only mount seen as writable, ACLs): read it as read-only media
            try:
                store = cls._connect_readonly(p, True, check)
            except sqlite3.DatabaseError as again:
                raise _db_error(p, again) from None
        except sqlite3.DatabaseError as exc:
            raise _db_error(p, exc) from None
        return store

    @classmethod
    def _connect_readonly(cls, p: Path, immutable: bool, check: bool) -> Store:
        from urllib.parse import quote

        mode = "ro&immutable=1" if immutable else "ro"
        conn = sqlite3.connect(f"file:{quote(str(p.resolve()))}?mode={mode}", uri=True,
                               timeout=BUSY_TIMEOUT, check_same_thread=False)
        store = cls(p, conn)
        store.immutable = immutable
        try:
            if check:
                store.verify()
            else:
                if "meta" not in store._names():
                    raise StoreError(f"{p} is not an accord store")
                store._check_version()
        except BaseException:
            conn.close()
            raise
        if immutable:
            wal = Path(f"{p}-wal")
            with contextlib.suppress(OSError):
                store.stale_wal = wal.is_file() and wal.stat().st_size > 0
        return store

    def verify(self) -> None:
        """Check that this is an accord store this version reads, whole and undamaged.

        Raises :class:`StoreError` with "PATH is not an accord store" (not SQLite, or
        SQLite without accord's tables) or "store damaged: ... run `accord store check
        PATH`" (SQLite reports damage: ``PRAGMA quick_check``).
        """
        try:
            names = self._names()
            if "meta" not in names:
                raise StoreError(f"{self.path} is not an accord store (it has no meta table)")
            self._check_version()
            missing = sorted(REQUIRED_TABLES - names)
            if missing:
                raise StoreError(f"{self.path} is not an accord store (missing tables: "
                                 f"{', '.join(missing)})")
            stamp = _stamp(self.path)
            if stamp is not None and stamp in _CHECKED:
                return  # checked whole already, unchanged since: no second full read
            problems = [r[0] for r in self.conn.execute("PRAGMA quick_check(3)")]
        except sqlite3.DatabaseError as exc:
            raise _db_error(self.path, exc) from None
        if problems != ["ok"]:
            raise StoreError(damaged(self.path, "; ".join(map(str, problems))))
        if stamp is not None:
            with _CHECKED_LOCK:
                _CHECKED[stamp] = None
                while len(_CHECKED) > CHECKED_MEMO:
                    _CHECKED.pop(next(iter(_CHECKED)))

    @classmethod
    def _connect(cls, p: Path, create: bool) -> Store:
        """One attempt: connect, set the pragmas, check or create the schema."""
        conn = sqlite3.connect(str(p), timeout=BUSY_TIMEOUT)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            store = cls(p, conn)
            store._init_schema(create)
        except BaseException:
            conn.close()
            raise
        return store

    def _names(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master")}

    def _check_version(self) -> None:
        row = self.conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        try:
            version = int(row[0]) if row is not None else None
        except (ValueError, TypeError):
            version = None
        if version not in READABLE_VERSIONS:
            raise StoreError(f"{self.path}: schema version {row and row[0]} is not one this "
                             f"accord reads ({', '.join(map(str, READABLE_VERSIONS))}); use "
                             "a matching accord version")
        assert version is not None
        self.format = version

    def _init_schema(self, create: bool) -> None:
        """Check the schema, or create it race-free: two ``accord bench`` starting at once on
        a new store both end up with one schema (the second waits for the first's commit)."""
        have = self._names()
        if "meta" in have:
            self.verify()
            if "episodes_by_seq" not in have:  # stores made before the index existed
                with self.conn:
                    self.conn.execute(SEQ_INDEX)
            return
        if not create or have:
            raise StoreError(f"{self.path} is not an accord store (no accord tables; accord "
                             "never adds its tables to another database)")
        ddl = resources.files("accord.bench").joinpath("data", "schema.sql").read_text("utf-8")
        try:
            self.conn.execute("BEGIN IMMEDIATE")  # waits (busy timeout) for another creator
        except sqlite3.OperationalError as exc:
            raise StoreError(f"store busy: {self.path} is being created or written by another "
                             f"process ({exc}); wait for it or use another --out") from None
        try:
            have = self._names()  # what a creator that finished meanwhile left
            if "meta" in have:
                self._check_version()
            elif have:
                raise StoreError(f"{self.path} is not an accord store (no accord tables)")
            else:
                for statement in _statements(ddl):
                    self.conn.execute(statement)
                self.conn.execute("INSERT INTO meta VALUES ('schema', ?)",
                                  (str(SCHEMA_VERSION),))
                raw = shipped_dictionary()
                self.conn.execute("INSERT INTO zdicts (id, dict) VALUES (?, ?)",
                                  (dictionary_id(raw), raw))
                self.format = SCHEMA_VERSION
            self.conn.commit()
        except BaseException:
            self.conn.rollback()
            raise

    # --- encoding (format 2: compressed columns) --------------------------------------
    def codec(self) -> Codec:
        """The store's codec: its own dictionaries, compressing with the newest one."""
        if self._codec is None:
            have: dict[int, bytes] = {}
            if "zdicts" in self._names():
                have = {int(i): bytes(d) for i, d in
                        self.conn.execute("SELECT id, dict FROM zdicts ORDER BY rowid")}
            current = next(reversed(have)) if have else None
            self._codec = Codec(have, current)
            # frames of a dictionary the store lost, if any
            for raw in (*earlier_dictionaries(), shipped_dictionary()):
                self._codec.add(dictionary_id(raw), raw)
        return self._codec

    def _writing_codec(self) -> Codec:
        """The codec new rows are compressed with. A store still compressing with a
        dictionary an earlier accord shipped takes on the current one first: one row added
        to its ``zdicts`` (the format stays 2; every accord that reads format 2 finds the
        dictionary of a frame there), so its new rows are as small as a new store's."""
        codec = self.codec()
        earlier = {dictionary_id(raw) for raw in earlier_dictionaries()}
        if codec.current in earlier:
            raw = shipped_dictionary()
            new = dictionary_id(raw)
            with self.conn:
                self.conn.execute("INSERT OR IGNORE INTO zdicts (id, dict) VALUES (?, ?)",
                                  (new, raw))
            codec.add(new, raw)
            codec.use(new)
        return codec

    def _pack(self, text: str | None) -> str | bytes | None:
        """What is stored for one bulky value: text in format 1, a zstd frame in 2."""
        if text is None or self.format < 2:
            return text
        return self.codec().compress(text)

    def _text(self, value: Any, run: str, episode: str, column: str) -> str | None:
        """A stored value's text, whichever format the row was written in."""
        if value is None or isinstance(value, str):
            return value
        try:
            return self.codec().decompress(bytes(value))
        except CorruptValue as exc:
            raise StoreError(f"{self.path}: episode {run}/{episode}: the stored {column} "
                             f"cannot be read: {exc}") from None

    def _json(self, value: Any, run: str, episode: str, column: str) -> Any:
        text = self._text(value, run, episode, column)
        if text is None:
            return None
        try:
            return json.loads(text)
        except ValueError as exc:
            raise StoreError(f"{self.path}: episode {run}/{episode}: the stored {column} "
                             f"is not valid JSON ({exc})") from None

    def _sql_text(self, value: Any) -> Any:
        """SQL ``accord_text(x)``: the text of a compressed value (NULL if unreadable)."""
        if isinstance(value, bytes):
            try:
                return self.codec().decompress(value)
            except CorruptValue:
                return None
        return value

    def close(self) -> None:
        """Release the lock and close the connection."""
        self.unlock()
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the single-writer lock --------------------------------------------------------
    def lock(self) -> None:
        """Take the advisory writer lock; fail clearly if another run holds it."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not on POSIX: no lock
            return
        fd = os.open(f"{self.path}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            other = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise StoreError(f"store busy: {self.path} is in use by another accord bench "
                             f"(pid {other}); wait for it or use another --out") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        self._lock_fd = fd

    def unlock(self) -> None:
        """Release the writer lock if held."""
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    # --- writing (driver only) ---------------------------------------------------------
    def begin_session(self, run: str, config: dict[str, Any], source: str | None,
                      provenance: dict[str, Any], executor: str, concurrency: int) -> int:
        """Record the run (created once, config updated) and start a session row."""
        now = time.time()
        cfg = self._redact.json(config)
        with self.conn:
            self.conn.execute(
                "INSERT INTO runs (name, config, source, accord_version, git_commit, created,"
                " updated) VALUES (?,?,?,?,?,?,?) ON CONFLICT(name) DO UPDATE SET"
                " config=excluded.config, source=excluded.source, updated=excluded.updated",
                (run, cfg, source, provenance["accord_version"], provenance["git_commit"],
                 now, now))
            self.conn.execute(
                "UPDATE sessions SET state='interrupted' WHERE run=? AND state='running'",
                (run,))
            cur = self.conn.execute(
                "INSERT INTO sessions (run, started, accord_version, git_commit, cwd_commit,"
                " host, config, executor, concurrency, state) VALUES (?,?,?,?,?,?,?,?,?,"
                " 'running')",
                (run, now, provenance["accord_version"], provenance["git_commit"],
                 provenance.get("cwd_commit"), provenance.get("host"), cfg, executor,
                 concurrency))
        assert cur.lastrowid is not None
        return cur.lastrowid

    def add_planned(self, run: str, episodes: Iterable[PlannedEpisode]) -> None:
        """Insert planned episodes as ``pending`` (existing ones keep their status)."""
        rj = self._redact.json
        rows = ((run, e.id, e.seq, rj(e.spec_record(), sort_keys=True), rj(e.labels))
                for e in episodes)  # streamed into SQLite: no list of every spec
        with self.conn:
            self.conn.executemany(
                "INSERT INTO episodes (run, id, seq, spec, labels) VALUES (?,?,?,?,?)"
                " ON CONFLICT(run, id) DO UPDATE SET seq=excluded.seq, labels=excluded.labels",
                rows)

    #: the statements of :meth:`write_many` (sqlite3 keeps them prepared, by text)
    _UPDATE_EPISODE = (
        "UPDATE episodes SET status=?, outcome=?, summary=?, metrics=?, usage=?,"
        " error=?, wall_time=?, started=?, finished=?, attempts=attempts+1,"
        " session=?, worker=? WHERE run=? AND id=?")
    _PUT_TRAJECTORY = "INSERT OR REPLACE INTO trajectories VALUES (?,?,?)"

    def encoder_spec(self) -> EncoderSpec:
        """What rebuilds this store's encoder elsewhere (:class:`~accord.bench.rows.RowEncoder`
        in a pool worker): format, compression dictionary, the secret values to mask."""
        if self.format >= 2:
            codec = self._writing_codec()
            dict_id = codec.current
            raw = None if dict_id is None else codec.raw(dict_id)
        else:
            dict_id = raw = None
        return EncoderSpec(self.format, raw, dict_id, tuple(self._redact.env))

    def encoder(self) -> RowEncoder:
        """The encoder of this store's rows (built once; the write path: a store still on
        an earlier shipped dictionary takes on the current one here)."""
        if self._encoder is None:
            compress = self._writing_codec().compress if self.format >= 2 else None
            self._encoder = RowEncoder(self._redact, compress, self.encoder_spec().key)
        return self._encoder

    def encode(self, run: str, rec: EpisodeRecord, session: int | None = None
               ) -> tuple[tuple[Any, ...], tuple[Any, ...] | None]:
        """One episode's rows as stored: ``(episode row, trajectory row or None)``.

        The one redaction pass (:class:`~accord.core.redact.Redactor`, checked once over
        the episode's texts and applied value by value only where they hold a trigger word
        or a secret), then the store's encoding (a zstd frame per bulky value in format 2):
        :class:`~accord.bench.rows.RowEncoder`. A record packed by a worker with this
        store's encoding (``rec.packed``) is used as it is."""
        enc = self.encoder()
        packed = rec.packed
        if packed is not None and packed[0] != enc.key:
            packed = None  # packed for another store or secrets: encode here
        return enc.rows(run, rec, session, None if packed is None else packed[1])

    def write(self, run: str, rec: EpisodeRecord, session: int | None = None) -> None:
        """Commit one finished episode (its own transaction)."""
        self.write_many(run, (rec,), session)

    def write_many(self, run: str, recs: Iterable[EpisodeRecord],
                   session: int | None = None) -> None:
        """Commit several finished episodes in one transaction: all of them or none, so
        an episode is ``done`` only once its row is committed (a crash before the commit
        leaves every one of them ``pending``, to run again on resume). Encoding happens
        before the transaction opens, so the write lock is held only for the SQL."""
        rows: list[tuple[Any, ...]] = []
        trajs: list[tuple[Any, ...]] = []
        for rec in recs:
            row, traj = self.encode(run, rec, session)
            rows.append(row)
            if traj is not None:
                trajs.append(traj)
        if not rows:
            return
        with self.conn:
            if len(rows) == 1:
                self.conn.execute(self._UPDATE_EPISODE, rows[0])
            else:
                self.conn.executemany(self._UPDATE_EPISODE, rows)
            if len(trajs) == 1:
                self.conn.execute(self._PUT_TRAJECTORY, trajs[0])
            elif trajs:
                self.conn.executemany(self._PUT_TRAJECTORY, trajs)

    def end_session(self, session: int, state: str, counts: dict[str, int]) -> None:
        """Close a session with its final state (finished / interrupted) and counts."""
        with self.conn:
            self.conn.execute(
                "UPDATE sessions SET finished=?, state=?, planned=?, queued=?, done=?, failed=?"
                " WHERE id=?", (time.time(), state, counts.get("planned"),
                                counts.get("queued"), counts.get("done"),
                                counts.get("failed"), session))

    # --- reading -----------------------------------------------------------------------
    def statuses(self, run: str) -> dict[str, tuple[str, str | None]]:
        """``id -> (status, outcome)`` for every episode of ``run``."""
        cur = self.conn.execute("SELECT id, status, outcome FROM episodes WHERE run=?", (run,))
        return {i: (s, o) for i, s, o in cur}

    def runs(self) -> list[dict[str, Any]]:
        """Every run with its provenance, oldest first."""
        cur = self.conn.execute("SELECT name, config, source, accord_version, git_commit,"
                                " created, updated FROM runs ORDER BY created")
        return [{"name": n, "config": _loads(c), "source": s, "accord_version": v,
                 "git_commit": g, "created": cr, "updated": up}
                for n, c, s, v, g, cr, up in cur]

    def sessions(self, run: str) -> list[dict[str, Any]]:
        """The sessions of a run, oldest first."""
        cur = self.conn.execute("SELECT id, started, finished, state, executor, concurrency,"
                                " planned, queued, done, failed, accord_version, git_commit"
                                " FROM sessions WHERE run=? ORDER BY id", (run,))
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r, strict=True)) for r in cur]

    _COLUMNS = ("SELECT run, id, seq, spec, labels, status, outcome, summary, metrics, usage,"
                " error, wall_time, attempts, finished FROM episodes")

    def _iter_rows(self, where: str, args: tuple[Any, ...], summaries: bool = True
                   ) -> Iterator[EpisodeRow]:
        sql = self._COLUMNS if summaries else self._COLUMNS.replace(" summary,", " NULL,")
        cur = self.conn.execute(f"{sql} {where}", args)
        js = self._json
        for r, i, q, sp, lb, st, oc, su, me, us, er, wt, at, fi in cur:
            yield EpisodeRow(r, i, q, js(sp, r, i, "spec"), js(lb, r, i, "labels"), st, oc,
                             js(su, r, i, "summary"), js(me, r, i, "metrics"),
                             js(us, r, i, "usage"), self._text(er, r, i, "error"), wt, at, fi)

    def _rows(self, where: str, args: tuple[Any, ...]) -> list[EpisodeRow]:
        return list(self._iter_rows(where, args))

    def episodes(self, run: str | None = None) -> list[EpisodeRow]:
        """Every episode (of one run, or of all runs), in plan order."""
        return list(self.iter_episodes(run))

    def iter_episodes(self, run: str | None = None, summaries: bool = True
                      ) -> Iterator[EpisodeRow]:
        """Every episode in plan order, decoded one at a time (constant memory: for
        aggregating stores too large to hold as rows). ``summaries=False`` leaves each
        row's ``summary`` ``None`` without reading it (aggregation does not use it).
        Do not write to the store meanwhile."""
        if run is None:
            return self._iter_rows("ORDER BY run, seq", (), summaries)
        return self._iter_rows("WHERE run=? ORDER BY seq", (run,), summaries)

    def select(self, where: str = "", args: tuple[Any, ...] = (), order: str = "run, seq",
               limit: int | None = None, offset: int = 0) -> list[EpisodeRow]:
        """A page of episodes: ``where`` is an SQL condition over the ``episodes`` columns
        (values only through ``args``), ``order`` an ORDER BY list built by the caller
        from known column names, never from user text."""
        sql = (f"WHERE {where} " if where else "") + f"ORDER BY {order}"
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            args = (*args, int(limit), int(offset))
        return self._rows(sql, args)

    def count(self, where: str = "", args: tuple[Any, ...] = ()) -> int:
        """How many episodes match ``where`` (see :meth:`select`)."""
        row = self.conn.execute("SELECT count(*) FROM episodes"
                                + (f" WHERE {where}" if where else ""), args).fetchone()
        return int(row[0])

    def find(self, prefix: str, run: str | None = None) -> EpisodeRow:
        """The one episode whose id starts with ``prefix`` (a unique prefix is enough)."""
        esc = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        where = "WHERE id LIKE ? ESCAPE '\\'"
        args: tuple[Any, ...] = (esc + "%",)
        if run is not None:
            where += " AND run=?"
            args += (run,)
        rows = self._rows(where + " LIMIT 6", args)
        if not rows:
            raise StoreError(f"no episode with id {prefix!r} in {self.path}"
                             + (f" (run {run!r})" if run else ""))
        exact = [e for e in rows if e.id == prefix]
        if len(rows) > 1 and len(exact) != 1:
            ids = ", ".join(f"{e.run}/{e.id}" for e in rows[:5])
            raise StoreError(f"episode id {prefix!r} is ambiguous: {ids}"
                             + (" ..." if len(rows) > 5 else "") + "; give more digits"
                             + ("" if run else " or --run"))
        return exact[0] if exact else rows[0]

    def recent_outcomes(self, run: str, n: int) -> list[str | None]:
        """The outcomes of the ``n`` episodes of ``run`` finished last (``done`` ones)."""
        cur = self.conn.execute("SELECT outcome FROM episodes WHERE run=? AND status='done'"
                                " ORDER BY finished DESC LIMIT ?", (run, n))
        return [o for (o,) in cur]

    def trajectory(self, run: str, episode: str) -> str | None:
        """The JSONL trajectory of one episode, if it ran."""
        row = self.conn.execute("SELECT jsonl FROM trajectories WHERE run=? AND id=?",
                                (run, episode)).fetchone()
        return None if row is None else self._text(row[0], run, episode, "trajectory")
