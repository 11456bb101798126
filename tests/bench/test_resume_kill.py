"""A SIGKILLed ``accord bench`` loses only the episodes in flight and resumes exactly."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from accord.bench import expand, load_config

N, CONCURRENCY, DELAY = 60, 4, 0.1


def _bench_argv(*args: str) -> list[str]:
    """``python -m accord bench ARGS``."""
    return [sys.executable, "-m", "accord", "bench", *args]


def _done(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return conn.execute("SELECT count(*) FROM episodes WHERE status='done'"
                                ).fetchone()[0]
        finally:
            conn.close()
    except sqlite3.OperationalError:  # tables not created yet
        return 0


@pytest.mark.parametrize("executor", ["local", "process"])  # process: workers encode rows
def test_sigkill_then_rerun_gives_exactly_the_full_set(tmp_path, write_config, nap_config,
                                                       executor):
    cfg_path = write_config({**nap_config(N, DELAY), "concurrency": CONCURRENCY,
                             "executor": executor})
    db = tmp_path / "kill.db"
    argv = _bench_argv(str(cfg_path), "--store", str(db), "--quiet")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    try:
        while _done(db) < 2 * CONCURRENCY:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "bench made no progress"
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    counts = dict(conn.execute("SELECT status, count(*) FROM episodes GROUP BY status"))
    conn.close()
    assert 2 * CONCURRENCY <= counts["done"] < N  # killed mid-run
    assert counts.get("failed", 0) == 0
    assert sum(counts.values()) == N  # the whole plan was recorded up front

    rerun = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=120)
    assert rerun.returncode == 0, rerun.stderr

    expected = {e.id for e in expand(load_config(cfg_path)).episodes}
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT id, status, attempts FROM episodes WHERE run='nap'").fetchall()
    sessions = [s for (s,) in conn.execute("SELECT state FROM sessions ORDER BY id")]
    trajectories = conn.execute("SELECT count(*) FROM trajectories").fetchone()[0]
    conn.close()
    assert len(rows) == N and {r[0] for r in rows} == expected  # no duplicate, none lost
    assert {r[1] for r in rows} == {"done"}
    # episodes committed before the kill were not run again
    assert {r[2] for r in rows} == {1}
    assert trajectories == N
    assert sessions == ["interrupted", "finished"]
