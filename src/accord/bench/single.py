"""Store one episode run by ``accord run`` (``--save STORE``), like a bench run would.

The episode lands in the run :data:`RUN_NAME` of the store, with the same id, spec,
labels, summary, metrics and trajectory a bench episode has, so ``accord show``,
``accord results``, ``accord serve`` and ``accord approve`` read it like any other.
With ``require_approval`` an agreement is gated (``pending`` in the approvals table).
Running the same command again replaces the stored episode (same id) but keeps an
existing decision.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from accord.bench import approvals
from accord.bench.expand import PlannedEpisode
from accord.bench.lineups import Lineup
from accord.bench.provenance import provenance
from accord.bench.store import Store
from accord.bench.worker import EpisodeRecord, jsonable

#: the run that ``accord run --save`` episodes belong to
RUN_NAME = "accord-run"


def store_episode(path: str | Path, spec: Any, result: Any, metrics: dict[str, Any] | None,
                  require_approval: bool = False, wall_time: float = 0.0,
                  seats: dict[int, str] | None = None) -> str:
    """Write one finished episode (``spec``: an ``EpisodeSpec``, ``result``: its
    ``EpisodeResult``) to the store at ``path``; returns the episode id. ``seats`` names
    the role a person played at a line-up position (``{0: "buyer"}``): the line-up then
    reads ``human (buyer) vs boulware``."""
    from accord.domains.ids import episode_id

    eid = str(episode_id(spec))
    lineup = Lineup(tuple(spec.agents))
    named = " vs ".join(f"{a} ({seats[i]})" if seats and i in seats else a
                        for i, a in enumerate(lineup.agent_labels()))
    now = time.time()
    with Store.open(path) as st:
        st.lock()
        existing = st.statuses(RUN_NAME)
        seq = len(existing) if eid not in existing else None
        session = st.begin_session(RUN_NAME, {"name": RUN_NAME, "command": "accord run",
                                              "require_approval": require_approval},
                                   None, provenance(), "accord run", 1)
        planned = PlannedEpisode(eid, spec, 0, {"lineup": named,
                                                "agents": lineup.agent_labels()},
                                 seq if seq is not None else 0)
        if seq is not None:
            st.add_planned(RUN_NAME, [planned])
        rec = EpisodeRecord(eid, "done", outcome=result.status,
                            summary=jsonable(result.summary()),
                            metrics=jsonable(metrics) if metrics is not None else None,
                            trajectory=result.trajectory.to_jsonl(),
                            usage=jsonable(getattr(result, "usage", None)) or None,
                            wall_time=wall_time, started=now - wall_time, finished=now,
                            worker="accord run")
        st.write(RUN_NAME, rec, session)
        if require_approval and result.status == "agreement":
            approvals.mark_pending(st.conn, RUN_NAME, [eid])
        st.end_session(session, "finished", {"planned": 1, "queued": 1, "done": 1,
                                             "failed": 0})
    return eid


def write_finished(path: str | Path, run: str, command: str,
                   items: Sequence[tuple[PlannedEpisode, Any, dict[str, Any] | None,
                                         dict[str, Any], float]]) -> None:
    """Write finished episodes that no bench plan made (``accord fork``, ``accord series``)
    to the run ``run`` of the store at ``path``, in one session of ``command``.

    ``items``: per episode, its planned form (id, spec, labels; its ``seq`` is assigned
    here), its ``EpisodeResult``, its metrics, what its summary adds (``{"fork": ...}``)
    and its wall time. An episode already stored keeps its place and is replaced.
    """
    now = time.time()
    with Store.open(path) as st:
        st.lock()
        existing = st.statuses(run)
        session = st.begin_session(run, {"name": run, "command": command}, None,
                                   provenance(), command, 1)
        seq = len(existing)
        for planned, result, metrics, extra, wall in items:
            if planned.id not in existing:
                st.add_planned(run, [dataclasses.replace(planned, seq=seq)])
                seq += 1
            st.write(run, EpisodeRecord(
                planned.id, "done", outcome=result.status,
                summary=jsonable({**result.summary(), **extra}),
                metrics=jsonable(metrics) if metrics is not None else None,
                trajectory=result.trajectory.to_jsonl(),
                usage=jsonable(result.usage) or None, wall_time=wall,
                started=now - wall, finished=now, worker=command), session)
        n = len(items)
        st.end_session(session, "finished", {"planned": n, "queued": n, "done": n,
                                             "failed": 0})


__all__ = ["RUN_NAME", "store_episode", "write_finished"]
