"""Large results stores for tests and benchmarks, built fast from a real small run.

:func:`grow_store` copies the finished episodes of a real run (as ``accord bench`` wrote
them) into a new run of ``n`` episodes with fresh ids and seeds, inserted with one
``executemany``; trajectories are written through :meth:`Store.write` (whatever encoding
the store uses) for the first ``with_trajectories`` episodes only.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from accord.bench.store import Store
from accord.bench.worker import EpisodeRecord


def grow_store(source: str | Path, source_run: str, target: str | Path, run: str, n: int,
               with_trajectories: int = 20) -> list[str]:
    """Write run ``run`` of ``n`` episodes into ``target`` from ``source_run`` of
    ``source``; returns the new ids in plan order."""
    src = Store.open_readonly(source)
    try:
        rows = [r for r in src.episodes(source_run) if r.status == "done"]
        trajectories = {r.id: src.trajectory(r.run, r.id) for r in rows[:with_trajectories]}
        cfg = src.runs()[0]
    finally:
        src.conn.close()
    if not rows:
        raise ValueError(f"run {source_run!r} of {source} has no finished episode to copy")
    ids: list[str] = []
    values = []
    now = time.time()
    for i in range(n):
        base = rows[i % len(rows)]
        eid = hashlib.sha256(f"{run}/{i}".encode()).hexdigest()[:16]
        ids.append(eid)
        spec = {**base.spec, "seed": i}
        values.append((run, eid, i, json.dumps(spec, sort_keys=True), json.dumps(base.labels),
                       "done", base.outcome, json.dumps(base.summary),
                       json.dumps(base.metrics), json.dumps(base.usage) if base.usage else None,
                       base.wall_time, now - n + i, now - n + i + 0.01, 1))
    with Store.open(target) as st:
        with st.conn:
            st.conn.execute(
                "INSERT INTO runs (name, config, source, accord_version, git_commit, created,"
                " updated) VALUES (?,?,?,?,?,?,?)",
                (run, json.dumps(cfg["config"] or {}), "synthetic", cfg["accord_version"],
                 cfg["git_commit"], now, now))
            st.conn.executemany(
                "INSERT INTO episodes (run, id, seq, spec, labels, status, outcome, summary,"
                " metrics, usage, wall_time, started, finished, attempts) VALUES "
                "(?,?,?,?,?,?,?,?,?,?,?,?,?,?)", values)
        for i, eid in enumerate(ids[:with_trajectories]):
            base = rows[i % len(rows)]
            text = trajectories.get(base.id)
            st.write(run, EpisodeRecord(eid, "done", outcome=base.outcome,
                                        summary=base.summary, metrics=base.metrics,
                                        trajectory=text, usage=base.usage,
                                        wall_time=base.wall_time or 0.0))
    return ids


__all__ = ["grow_store"]
