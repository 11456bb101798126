"""Synthetic bargaining tournaments with a known ground truth, for rating tests and the
leaderboard benchmark.

Every episode pairs two agents drawn at random; agent ``a`` beats ``b`` with probability
``1 / (1 + exp(s_b - s_a))`` (a Bradley–Terry model with the given log-strengths ``s``),
or, with probability ``draw``, the episode ends without a deal (both score 0: a draw).
The winner's normalised surplus over its BATNA is drawn above the loser's, so
``accord leaderboard`` sees exactly the outcome drawn. Episodes are written as a real
``accord bench`` run would leave them: ``Store.add_planned`` then ``Store.write`` per
episode, or (``bulk=True``, for 10^5 episodes) one ``executemany`` of the same rows.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from accord.agents.spec import AgentSpec
from accord.bench.expand import PlannedEpisode
from accord.bench.store import Store
from accord.bench.worker import EpisodeRecord
from accord.domains.base import EpisodeSpec

BATNA = {"buyer": 0.4, "seller": 0.3}
PROV = {"accord_version": "synthetic", "git_commit": None, "cwd_commit": None,
        "host": "synthetic"}


def _episode(a: str, b: str, outcome: float, rng: np.random.Generator
             ) -> tuple[str, dict[str, object], dict[str, object]]:
    """``(outcome, summary, metrics)`` of one synthetic episode: ``outcome`` is 1 when
    ``a`` (the buyer) wins, 0 when ``b`` wins, 0.5 for no deal."""
    agreed = outcome != 0.5
    lo, hi = sorted(rng.uniform(0.05, 0.95, size=2).tolist())
    if lo == hi:
        hi = min(1.0, lo + 0.01)
    norm = {"buyer": hi if outcome == 1 else lo, "seller": lo if outcome == 1 else hi}
    utils = {p: BATNA[p] + norm[p] * (1 - BATNA[p]) for p in BATNA} if agreed else {}
    metrics: dict[str, object] = {"agreement": agreed, "error": False, "rounds": 5,
                                  "sycophancy": False}
    for p in BATNA:
        u = utils.get(p)
        metrics[f"u_{p}"] = u
        metrics[f"gain_{p}"] = None if u is None else u - BATNA[p]
    status = "agreement" if agreed else "no_deal"
    summary: dict[str, object] = {
        "status": status, "reason": None if agreed else "deadline", "rounds": 5,
        "record": {"parties": list(BATNA), "utilities": utils, "batna": dict(BATNA)},
        "flags": {}}
    return status, summary, metrics


def synthetic_tournament(path: str | Path, strengths: Mapping[str, float], episodes: int,
                         seed: int = 0, draw: float = 0.0, run: str = "synthetic",
                         bulk: bool = False) -> None:
    """Write ``episodes`` random pairings of the agents of ``strengths`` into run ``run``
    of the store at ``path`` (see the module docstring)."""
    names = list(strengths)
    if len(names) < 2:
        raise ValueError("a tournament needs at least two agents")
    rng = np.random.default_rng(seed)
    s = np.array([strengths[n] for n in names], dtype=float)
    first = rng.integers(0, len(names), size=episodes)
    second = (first + rng.integers(1, len(names), size=episodes)) % len(names)
    p_win = 1.0 / (1.0 + np.exp(s[second] - s[first]))
    u = rng.random(episodes)
    is_draw = rng.random(episodes) < draw
    outcomes = np.where(is_draw, 0.5, np.where(u < p_win, 1.0, 0.0))
    planned, records = [], []
    for k in range(episodes):
        a, b = names[int(first[k])], names[int(second[k])]
        spec = EpisodeSpec("bargaining", "synthetic", (AgentSpec(a), AgentSpec(b)), {}, k)
        eid = hashlib.sha256(f"{run}/{k}".encode()).hexdigest()[:16]
        planned.append(PlannedEpisode(eid, spec, 0, {"agents": [a, b],
                                                     "lineup": f"{a} vs {b}"}, k))
        status, summary, metrics = _episode(a, b, float(outcomes[k]), rng)
        records.append(EpisodeRecord(eid, "done", status, summary, metrics))
    with Store.open(path) as st:
        sid = st.begin_session(run, {"name": run, "synthetic": True}, "synthetic", PROV,
                               "local", 1)
        if bulk:
            now = time.time()
            with st.conn:
                st.conn.executemany(
                    "INSERT INTO episodes (run, id, seq, spec, labels, status, outcome,"
                    " summary, metrics, started, finished, attempts)"
                    " VALUES (?,?,?,?,?,?,?,?,?,?,?,1)",
                    ((run, e.id, e.seq, json.dumps(e.spec_record(), sort_keys=True),
                      json.dumps(e.labels), "done", r.outcome, json.dumps(r.summary),
                      json.dumps(r.metrics), now, now)
                     for e, r in zip(planned, records, strict=True)))
        else:
            st.add_planned(run, planned)
            for r in records:
                st.write(run, r, sid)
        st.end_session(sid, "finished", {"planned": episodes, "done": episodes})


__all__ = ["synthetic_tournament"]
