"""Completion cache and record/replay in one SQLite file.

The key is a SHA-256 over a canonical JSON of the provider, the base URL (without
credentials; ``llamacpp://local`` for a llama.cpp server this process started, whose port
changes from run to run), the model, the messages, the generation config and the call scope
(episode, agent, turn): a rerun of the same study with the same scopes hits every
entry, while identical prompts in different episodes stay distinct samples.

Modes (:class:`CacheMode`): ``off`` (no cache), ``rw`` (read, and record misses),
``replay`` (read only; a miss raises :class:`~accord.llm.errors.CacheMiss`, so a
replay can never spend money or drift silently).

Concurrency: WAL journal, a busy timeout, and ``INSERT OR IGNORE`` (the first
recorded answer for a key wins) make several processes safe on one file. The event
loop never waits for the file lock: lookups run on the loop's thread through a second
connection that never waits (a WAL reader needs no lock; a busy file sends the lookup
to a worker thread instead), and answers are recorded by one writer thread that
commits every waiting answer in one transaction (:mod:`accord.llm.cache_writer`); a
call returns once its answer is committed. The key's encoding of each message is
memoised, so a call of an append-only session encodes only its new messages.
Stored: text, finish reason, usage, latency, and the scope for statistics. Never
stored: API keys, headers.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import sqlite3
import sys
import threading
import time
from collections.abc import Sequence
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Any

from accord.llm.cache_writer import GroupWriter, WriterClosedError
from accord.llm.errors import CacheError
from accord.llm.providers import Endpoint
from accord.llm.types import CallScope, ChatMessage, Completion, GenerationConfig, Usage

log = logging.getLogger(__name__)

SCHEMA_VERSION = "1"
KEY_VERSION = 1
#: messages whose key encoding is remembered (the live sessions of a sweep: 64 in flight
#: with 20 messages each is 1,280)
MESSAGE_MEMO = 2048
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS completions (
    key TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    base_url TEXT NOT NULL,
    model TEXT NOT NULL,
    episode TEXT,
    agent TEXT,
    turn INTEGER,
    text TEXT NOT NULL,
    finish_reason TEXT,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    latency REAL NOT NULL,
    created REAL NOT NULL
);
"""


class CacheMode(StrEnum):
    """``off``, ``rw`` (read-write) or ``replay`` (replay-only)."""

    OFF = "off"
    RW = "rw"
    REPLAY = "replay"

    @classmethod
    def parse(cls, value: CacheMode | str) -> CacheMode:
        """The mode for ``value``; accepts ``read-write`` and ``replay-only`` too."""
        if isinstance(value, CacheMode):
            return value
        aliases = {"read-write": "rw", "readwrite": "rw", "replay-only": "replay", "none": "off"}
        text = aliases.get(value.strip().lower(), value.strip().lower())
        try:
            return cls(text)
        except ValueError:
            raise ValueError(f"unknown cache mode {value!r}; use off, rw or replay") from None


def _canonical(value: Any) -> str:
    """The key's canonical JSON of ``value``: sorted keys, no spaces, UTF-8 text."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


@lru_cache(maxsize=MESSAGE_MEMO)
def _message_json(role: str, content: str) -> bytes:
    """One message's part of the key, ``["role","content"]`` encoded; memoised because a
    session resends every earlier message on each call (append-only prompts)."""
    return _canonical([role, content]).encode()


def key_payload(endpoint: Endpoint, messages: Sequence[ChatMessage], config: GenerationConfig,
                scope: CallScope | None) -> dict[str, Any]:
    """What the key is a hash of (its canonical JSON is :func:`key_bytes`)."""
    scope = scope or CallScope()
    return {
        "v": KEY_VERSION,
        "provider": endpoint.provider,
        "base_url": endpoint.key_url,
        "model": endpoint.model,
        "messages": [[m["role"], m["content"]] for m in messages],
        "config": config.key_data(),
        "scope": [scope.episode, scope.agent, scope.turn],
    }


def key_bytes(endpoint: Endpoint, messages: Sequence[ChatMessage], config: GenerationConfig,
              scope: CallScope | None) -> bytes:
    """The canonical JSON of :func:`key_payload`, byte for byte.

    Built from parts in sorted-key order with each message's encoding memoised, so a call
    re-encodes only its new messages; equal to encoding the whole payload at once (tested),
    which keeps every recorded cache's keys valid.
    """
    scope = scope or CallScope()
    parts = [b'{"base_url":', _canonical(endpoint.key_url).encode(),
             b',"config":', _canonical(config.key_data()).encode(), b',"messages":[',
             b",".join([_message_json(m["role"], m["content"]) for m in messages]),
             b'],"model":', _canonical(endpoint.model).encode(),
             b',"provider":', _canonical(endpoint.provider).encode(),
             b',"scope":', _canonical([scope.episode, scope.agent, scope.turn]).encode(),
             b',"v":', _canonical(KEY_VERSION).encode(), b"}"]
    return b"".join(parts)


def cache_key(endpoint: Endpoint, messages: Sequence[ChatMessage], config: GenerationConfig,
              scope: CallScope | None) -> str:
    """The hex SHA-256 identifying a request (see the module docstring)."""
    return hashlib.sha256(key_bytes(endpoint, messages, config, scope)).hexdigest()


class CompletionCache:
    """An SQLite-backed completion cache (see the module docstring)."""

    def __init__(self, path: str | Path, mode: CacheMode | str = CacheMode.RW, *,
                 busy_timeout: float = 30.0) -> None:
        self.path = Path(path)
        self.mode = CacheMode.parse(mode)
        self.busy_timeout = busy_timeout
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        #: a second connection for lookups on the event loop's thread (see :meth:`get`)
        self._reader: sqlite3.Connection | None = None
        self._read_lock = threading.Lock()
        #: answers this cache could not record (a full disk, a read-only file ...)
        self.write_failures = 0
        self._warned = False
        self._warn_lock = threading.Lock()
        self._writer = GroupWriter(self._write_rows, name=f"accord-cache-{self.path.name}")
        if self.mode is not CacheMode.OFF:
            self._open()

    def _open(self) -> None:
        if self.mode is CacheMode.REPLAY and not self.path.exists():
            raise CacheError(f"replay-only cache {self.path} does not exist; record it first "
                             "with cache mode 'rw'")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=self.busy_timeout,
                                   check_same_thread=False, isolation_level=None)
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
            _retry_locked(lambda: conn.execute("PRAGMA journal_mode = WAL"), self.busy_timeout)
            conn.execute("PRAGMA synchronous = NORMAL")
            _retry_locked(lambda: conn.executescript(_SCHEMA), self.busy_timeout)
            conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)",
                         (SCHEMA_VERSION,))
            found = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise CacheError(f"cannot open LLM cache {self.path}: {exc}") from exc
        if found is None or found[0] != SCHEMA_VERSION:
            conn.close()
            raise CacheError(f"LLM cache {self.path} has schema version "
                             f"{found[0] if found else None}, expected {SCHEMA_VERSION}")
        self._conn = conn
        reader: sqlite3.Connection | None = None
        try:
            # never waits for a lock: a busy file sends the lookup to a worker thread
            reader = sqlite3.connect(self.path, timeout=0, check_same_thread=False,
                                     isolation_level=None)
            reader.execute("PRAGMA busy_timeout = 0")
            reader.execute("PRAGMA query_only = 1")
        except sqlite3.DatabaseError:
            if reader is not None:
                reader.close()
            reader = None  # lookups all go through the worker thread then
        self._reader = reader

    @property
    def enabled(self) -> bool:
        """Whether the cache is consulted at all."""
        return self.mode is not CacheMode.OFF

    # synchronous core ----------------------------------------------------------
    def get_sync(self, key: str) -> Completion | None:
        """The stored completion for ``key`` (``from_cache=True``), or ``None``."""
        if self._conn is None:
            return None
        with self._lock:
            rows = self._conn.execute(_SELECT, (key,)).fetchall()
        return _completion(rows)

    def put_sync(self, key: str, completion: Completion, endpoint: Endpoint,
                 scope: CallScope | None) -> None:
        """Record ``completion`` under ``key`` (kept if already present); no-op in replay."""
        if self._conn is None or self.mode is not CacheMode.RW:
            return
        row = _row(key, completion, endpoint, scope)
        with self._lock:
            self._conn.execute(_INSERT, row)

    def _write_rows(self, rows: list[tuple[Any, ...]]) -> list[BaseException | None] | None:
        """Insert ``rows`` in one transaction (the group writer's batch): ``None`` when all
        are recorded, else an error or ``None`` per row; raises when all failed alike."""
        with self._lock:
            conn = self._conn
            if conn is None:
                raise CacheError(f"LLM cache {self.path} was closed; the answer was not "
                                 "recorded")
            try:
                _insert(conn, rows)
                return None
            except sqlite3.OperationalError:
                raise  # the file is busy, locked or full: every row alike
            except Exception:
                if len(rows) == 1:
                    raise
            # one row SQLite will not take (text with a lone surrogate, say) must not cost
            # the others their record: each alone
            errors: list[BaseException | None] = []
            for row in rows:
                try:
                    _insert(conn, [row])
                    errors.append(None)
                except Exception as exc:
                    errors.append(exc)
            return errors

    def _get_inline(self, key: str) -> Completion | object | None:
        """The lookup on the calling thread, or :data:`_BUSY` if it would have to wait.

        In WAL mode a reader does not wait for writers, so a primary-key lookup takes
        microseconds on a local disk (it reads pages, so keep the file local); a file
        that would make it wait for a lock (another process recovering it, say), or this
        cache's reader in use on another thread, returns :data:`_BUSY`.
        """
        if not self._read_lock.acquire(blocking=False):
            return _BUSY
        try:
            reader = self._reader  # read under the lock: close() takes it to close the reader
            if reader is None:
                return _BUSY
            rows = reader.execute(_SELECT, (key,)).fetchall()
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                return _BUSY
            raise
        finally:
            self._read_lock.release()
        return _completion(rows)

    # asyncio wrappers ----------------------------------------------------------
    async def get(self, key: str) -> Completion | None:
        """The stored completion for ``key``: looked up on the loop's thread when that
        cannot wait for a lock, else :meth:`get_sync` on a worker thread."""
        hit = self._get_inline(key)
        if hit is _BUSY:
            return await asyncio.to_thread(self.get_sync, key)
        return hit  # type: ignore[return-value]

    async def put(self, key: str, completion: Completion, endpoint: Endpoint,
                  scope: CallScope | None) -> None:
        """Record ``completion`` under ``key``; returns once it is committed.

        Rows from concurrent calls are committed together by one writer thread
        (:mod:`accord.llm.cache_writer`); no-op in replay mode.
        """
        if self.mode is not CacheMode.RW:
            return
        try:
            if self._conn is None:
                raise WriterClosedError
            future = self._writer.submit(_row(key, completion, endpoint, scope))
        except WriterClosedError:
            raise CacheError(f"LLM cache {self.path} was closed; the answer was not "
                             "recorded") from None
        try:
            await future
        except sqlite3.DatabaseError as exc:
            # the answer is in hand (and paid for): a cache that cannot write it (a full
            # disk, a read-only file, damage) costs the record, never the episode
            self.write_failures += 1
            self._warn_unwritable(exc)

    def _warn_unwritable(self, exc: BaseException) -> None:
        """Say once per cache, on stderr, that answers are no longer being recorded."""
        with self._warn_lock:
            if self._warned:
                return
            self._warned = True
        log.warning("LLM cache %s cannot record answers (%s)", self.path, exc)
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(
                f"accord: WARNING: the LLM cache {self.path} cannot be written ({exc}); "
                "answers received are kept and episodes go on, but they are NOT recorded: "
                "a rerun will pay for them again. Free space or fix the file, then rerun "
                "with the same --cache to record the rest.\n")
            sys.stderr.flush()

    # maintenance ---------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        """Entries, tokens and recorded latency, overall and per model; file sizes."""
        sizes = {s: (self.path.parent / (self.path.name + s)).stat().st_size
                 for s in ("", "-wal") if (self.path.parent / (self.path.name + s)).exists()}
        out: dict[str, Any] = {"path": str(self.path), "bytes": sum(sizes.values()),
                               "entries": 0, "models": {}}
        if self._conn is None:
            return out
        with self._lock:
            rows = self._conn.execute(
                "SELECT model, COUNT(*), SUM(prompt_tokens), SUM(completion_tokens), "
                "SUM(cached_tokens), SUM(latency), MIN(created), MAX(created), "
                "COUNT(DISTINCT episode) FROM completions GROUP BY model ORDER BY model"
            ).fetchall()
        for model, n, pt, ct, cached, lat, first, last, episodes in rows:
            out["models"][model] = {"entries": n, "prompt_tokens": pt, "completion_tokens": ct,
                                    "cached_tokens": cached, "latency_s": round(lat, 3),
                                    "episodes": episodes, "first": first, "last": last}
            out["entries"] += n
        return out

    def clear(self) -> int:
        """Delete every entry; return how many there were."""
        if self._conn is None:
            return 0
        with self._lock:
            n = self._conn.execute("SELECT COUNT(*) FROM completions").fetchone()[0]
            self._conn.execute("DELETE FROM completions")
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._conn.execute("VACUUM")
        return int(n)

    def close(self) -> None:
        """Write what is queued, then close the connections."""
        self._writer.close()
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
        with self._read_lock:
            if self._reader is not None:
                self._reader.close()
                self._reader = None

    def __enter__(self) -> CompletionCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_SELECT = ("SELECT text, finish_reason, prompt_tokens, completion_tokens, cached_tokens, "
           "cache_write_tokens, latency, model, provider FROM completions WHERE key = ?")
_INSERT = "INSERT OR IGNORE INTO completions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
_BUSY = object()
"""A lookup that would have waited for a lock (:meth:`CompletionCache._get_inline`)."""


def _insert(conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> None:
    """``rows`` into ``completions`` in one transaction; rolled back on any failure."""
    conn.execute("BEGIN IMMEDIATE")  # the write lock now (busy timeout), not mid-way
    try:
        conn.executemany(_INSERT, rows)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:  # never leave the shared connection mid-transaction
            conn.execute("ROLLBACK")
        raise


def _completion(rows: list[Any]) -> Completion | None:
    """The cached completion in a lookup's result rows, or ``None``."""
    if not rows:
        return None
    row = rows[0]
    usage = Usage(row[2], row[3], row[4], row[5])
    return Completion(row[0], usage, row[6], row[7], row[8], row[1], from_cache=True,
                      attempts=0)


def _row(key: str, completion: Completion, endpoint: Endpoint, scope: CallScope | None
         ) -> tuple[Any, ...]:
    """The ``completions`` row recording ``completion`` under ``key``."""
    scope = scope or CallScope()
    u = completion.usage
    return (key, endpoint.provider, endpoint.key_url, completion.model, scope.episode,
            scope.agent, scope.turn, completion.text, completion.finish_reason,
            u.prompt_tokens, u.completion_tokens, u.cached_tokens, u.cache_write_tokens,
            completion.latency, time.time())


def _retry_locked(fn: Any, budget: float) -> Any:
    """Run ``fn``; on 'database is locked' (some pragmas skip the busy handler) retry."""
    deadline = time.monotonic() + budget
    while True:
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)
