"""The Ray executor against a local Ray instance (skipped when ray is not installed)."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from accord.bench import BenchOptions, Store, parse_config, run_bench

ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'accord[ray]'); "
                          "the Ray executor is not tested")


def test_ray_executor_on_a_local_instance(nap_config, tmp_path):
    """One Ray start (slow): tasks run in Ray workers, failures become failed episodes,
    and the executor shuts down the instance it started."""
    assert not ray.is_initialized()
    cfg = parse_config(nap_config(6, delay=0.05, tokens=10, fail_seeds=[2]))
    rep = run_bench(cfg, BenchOptions(store=tmp_path / "s.db", executor="ray", quiet=True))
    assert (rep.done, rep.failed) == (5, 1)
    assert not ray.is_initialized()
    with Store.open(tmp_path / "s.db", create=False) as st:
        rows = {r.spec["seed"]: r for r in st.episodes("nap")}
        session = st.sessions("nap")[0]
        workers = {w for (w,) in st.conn.execute("SELECT worker FROM episodes")}
    assert "seed 2 is set to fail" in rows[2].error
    assert rows[0].usage == {"agent0": {"input_tokens": 10, "output_tokens": 5},
                             "agent1": {"input_tokens": 10, "output_tokens": 5}}
    assert session["executor"] == "ray" and session["concurrency"] >= 1
    assert os.getpid() not in {int(w.rsplit(":", 1)[1]) for w in workers}


def _children(pid: int) -> set[int]:
    """Pids whose parent is ``pid`` (from /proc)."""
    out = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == pid:
                out.add(int(entry))
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _count(db, sql: str) -> int:
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return int(conn.execute(sql).fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


@pytest.mark.slow
def test_sigkilled_ray_driver_resumes_exactly_the_rest(tmp_path, nap_config, write_config):
    """``accord bench --executor ray?chunk=4`` SIGKILLed mid-run: Ray's processes go
    with the driver, the store is sound, and the rerun (adaptive chunks) runs exactly the
    episodes not committed, though the kill cut chunks in the middle."""
    n = 40
    cfg = write_config(nap_config(n, delay=0.2))
    db = tmp_path / "k.db"
    argv = [sys.executable, "-m", "accord", "bench", str(cfg), "--store", str(db), "--quiet"]
    proc = subprocess.Popen([*argv, "--executor", "ray?chunk=4"], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 180
    children: set[int] = set()
    try:
        while _count(db, "SELECT count(*) FROM episodes WHERE status='done'") < 4:
            assert proc.poll() is None, proc.communicate()[1][-2000:]
            assert time.monotonic() < deadline, "no progress under Ray"
            children |= _children(proc.pid)
            time.sleep(0.05)
        children |= _children(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert children, "Ray started no processes under the driver"
    # Ray's processes share the driver's fate (no orphaned cluster left behind)
    end = time.monotonic() + 60
    while any(_alive(c) for c in children) and time.monotonic() < end:
        time.sleep(0.2)
    left = {c for c in children if _alive(c)}
    for c in left:  # clean up what this test started before failing
        with contextlib.suppress(ProcessLookupError):
            os.kill(c, signal.SIGKILL)
    assert not left, f"Ray processes outlived the killed driver: {left}"
    done_before = _count(db, "SELECT count(*) FROM episodes WHERE status='done'")
    assert 4 <= done_before < n
    rerun = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    rows = conn.execute("SELECT id, status, attempts, session FROM episodes").fetchall()
    sessions = conn.execute("SELECT id, state, done FROM sessions ORDER BY id").fetchall()
    conn.close()
    assert len(rows) == n and {r[1] for r in rows} == {"done"}
    assert {r[2] for r in rows} == {1}  # nothing ran twice
    (s1, state1, _), (s2, state2, done2) = sessions
    assert (state1, state2) == ("interrupted", "finished")
    assert sum(r[3] == s1 for r in rows) == done_before
    assert done2 == n - done_before == sum(r[3] == s2 for r in rows)
