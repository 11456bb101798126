"""Browsing a store while a real ``accord bench`` writes it: every read succeeds, sees the
run grow, and never blocks or fails the bench (WAL, read-only connections)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

SPEC = """name: live
domain: bargaining
scenarios: [buyer-seller, procurement]
agents:
  - [boulware, conceder]
  - [linear, linear]
seeds: 150
require_approval: true
"""


def test_read_only_browsing_while_bench_writes(make_client, csrf, tmp_path: Path):
    (tmp_path / "live.yaml").write_text(SPEC)
    store = tmp_path / "live.db"
    env = {**os.environ, "COLUMNS": "80"}
    proc = subprocess.Popen([sys.executable, "-m", "accord", "bench", "live.yaml", "--out",
                             str(store), "--concurrency", "1", "--quiet"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not store.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        c = make_client(store)
        seen: list[int] = []
        decided = None
        while proc.poll() is None and time.monotonic() < deadline:
            runs = c.get("/api/stores")
            assert runs.status_code == 200, runs.text
            entry = runs.json()["stores"][0]
            if "error" in entry or not entry["runs"]:
                continue  # the bench has not created its schema or run yet
            done = entry["runs"][0]["done"]
            seen.append(done)
            page = c.get("/stores/0/runs/live", params={"page": 3, "per_page": 10})
            assert page.status_code == 200
            if decided is None and done > 0:
                first = c.get("/api/stores/0/runs/live/episodes",
                              params={"approval": "pending", "per_page": 1}).json()
                if first["episodes"]:
                    decided = first["episodes"][0]["id"]
                    r = c.post(f"/api/episodes/{decided}/approval",
                               json={"decision": "approve"}, headers={"X-CSRF-Token": csrf(c)})
                    assert r.status_code == 200, r.text
        _out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err[-2000:]
    assert seen == sorted(seen), "the done count went backwards"
    assert any(0 < d < 600 for d in seen), f"no read overlapped the bench: {seen[:5]}..."
    assert decided is not None
    final = c.get("/api/stores").json()["stores"][0]["runs"][0]
    assert final["done"] == 600 and final["failed"] == 0
    assert final["approvals"]["approved"] == 1
    agreements = c.get("/api/stores/0/runs/live/episodes",
                       params={"outcome": "agreement"}).json()["total"]
    assert sum(final["approvals"].values()) == agreements > 0  # every agreement gated
    doc = c.get(f"/api/episodes/{decided}").json()
    assert doc["approval"]["state"] == "approved"
