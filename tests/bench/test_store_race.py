"""Issue 12, finding 7: two processes creating one new store at once.

Before the fix both saw an empty database and ran the schema script; the second died
with "table meta already exists". Now creation runs in one ``BEGIN IMMEDIATE``
transaction: the second waits for the first, finds the schema and proceeds; a writer lock
that outlasts the busy timeout is reported as "store busy".
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from accord.bench import store as store_mod
from accord.bench.store import Store, StoreError

#: one child: signal readiness, wait for the start flag, open (create) the store
CHILD = """
import os, sys, time
path, ready, go = sys.argv[1:4]
from accord.bench.store import Store, StoreError
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.0005)
try:
    with Store.open(path) as st:
        st.conn.execute("SELECT count(*) FROM episodes").fetchone()
    print("ok")
except StoreError as exc:
    print(f"StoreError: {exc}")
except Exception as exc:
    print(f"{type(exc).__name__}: {exc}")
"""


def _race(path: Path, folder: Path, n: int = 3) -> list[str]:
    go = folder / "go"
    procs, ready = [], []
    for k in range(n):
        flag = folder / f"ready{k}"
        ready.append(flag)
        procs.append(subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(flag),
                                       str(go)], stdout=subprocess.PIPE, text=True))
    deadline = time.monotonic() + 120
    while not all(f.exists() for f in ready) and time.monotonic() < deadline:
        time.sleep(0.01)
    go.touch()
    return [(p.communicate(timeout=120)[0] or "").strip() for p in procs]


def test_concurrent_creation_of_one_store(tmp_path: Path) -> None:
    outcomes = []
    for i in range(4):
        folder = tmp_path / f"round{i}"
        folder.mkdir()
        outcomes += _race(folder / "store.db", folder)
    assert outcomes == ["ok"] * len(outcomes)


def test_schema_is_created_once_in_one_transaction(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    Store.open(path).close()
    Store.open(path).close()  # a second open finds the schema
    with Store.open(path, create=False) as st:
        tables = {r[0] for r in st.conn.execute("SELECT name FROM sqlite_master")}
        assert {"meta", "runs", "sessions", "episodes", "trajectories"} <= tables
        assert st.conn.execute("SELECT count(*) FROM meta").fetchone()[0] == 1


def test_a_writer_that_holds_the_lock_gives_store_busy(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "busy.db"
    holder = sqlite3.connect(str(path), isolation_level=None)
    holder.execute("PRAGMA journal_mode=WAL")
    holder.execute("BEGIN IMMEDIATE")  # another process in the middle of creating it
    monkeypatch.setattr(store_mod, "BUSY_TIMEOUT", 0.2)
    t0 = time.perf_counter()
    with pytest.raises(StoreError, match="store busy"):
        Store.open(path)
    assert time.perf_counter() - t0 < 60  # waited for the (shortened) busy timeout only
    holder.execute("ROLLBACK")
    holder.close()
    Store.open(path).close()


def test_advisory_lock_message_says_store_busy(tmp_path: Path) -> None:
    with Store.open(tmp_path / "l.db") as first:
        first.lock()
        with Store.open(tmp_path / "l.db") as second, pytest.raises(StoreError,
                                                                     match="store busy"):
            second.lock()
