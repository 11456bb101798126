"""The approval gate of seed 002 (V1 Human-in-the-Loop): a person's decision on an agreement.

With ``accord run --require-approval --store PATH`` or the bench spec key
``require_approval: true``, every episode that ends in an agreement gets a ``pending``
row in the store's ``approvals`` table; a person approves or rejects it (in
``accord serve`` or with ``accord approve``), with the time and a comment (required to
reject). The episode's own record is never changed: the decision lives in its own table,
created on first use, so stores written before the gate existed keep working and a
read-only reader treats a missing table as "no approvals".
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from typing import Any

#: the states of an approval row
PENDING, APPROVED, REJECTED = "pending", "approved", "rejected"
DECISIONS = (APPROVED, REJECTED)
#: longest comment kept (characters)
MAX_COMMENT = 4000

DDL = """CREATE TABLE IF NOT EXISTS approvals (
  run       TEXT NOT NULL,
  id        TEXT NOT NULL,
  state     TEXT NOT NULL,          -- pending | approved | rejected
  requested REAL NOT NULL,          -- unix time the agreement was gated
  decided   REAL,                   -- unix time of the decision
  comment   TEXT,
  decided_by TEXT,                  -- who decided (free text: cli, web)
  PRIMARY KEY (run, id)
)"""


class ApprovalError(ValueError):
    """An approval that cannot be recorded (no such agreement, not pending, no comment)."""


@dataclass(frozen=True)
class Approval:
    """One approval row."""

    run: str
    id: str
    state: str
    requested: float
    decided: float | None
    comment: str | None
    decided_by: str | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``approval`` in ``accord show --json`` and the web API)."""
        return {"state": self.state, "requested": self.requested, "decided": self.decided,
                "comment": self.comment, "decided_by": self.decided_by}


def has_table(conn: sqlite3.Connection) -> bool:
    """Whether the store has an ``approvals`` table yet."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND "
                        "name='approvals'").fetchone() is not None


def ensure_table(conn: sqlite3.Connection) -> None:
    """Create the ``approvals`` table if missing (a writable connection)."""
    with conn:
        conn.execute(DDL)


def mark_pending(conn: sqlite3.Connection, run: str, ids: list[str]) -> None:
    """Gate these agreements: a ``pending`` row each (existing decisions are kept)."""
    if not ids:
        return
    ensure_table(conn)
    now = time.time()
    with conn:
        conn.executemany("INSERT OR IGNORE INTO approvals (run, id, state, requested) "
                         "VALUES (?,?,?,?)", [(run, i, PENDING, now) for i in ids])


def gate_agreements(conn: sqlite3.Connection, run: str) -> None:
    """Gate every stored agreement of ``run`` that has no approval row yet (a resumed
    bench run whose previous session stopped between an episode and its gate)."""
    ensure_table(conn)
    now = time.time()
    with conn:
        conn.execute("INSERT OR IGNORE INTO approvals (run, id, state, requested) "
                     "SELECT run, id, ?, ? FROM episodes WHERE run=? AND status='done' "
                     "AND outcome='agreement'", (PENDING, now, run))


def _row(r: tuple[Any, ...]) -> Approval:
    return Approval(*r)


_COLS = "SELECT run, id, state, requested, decided, comment, decided_by FROM approvals"


def get(conn: sqlite3.Connection, run: str, episode: str) -> Approval | None:
    """The approval of one episode, or ``None`` (not gated, or no table)."""
    if not has_table(conn):
        return None
    r = conn.execute(f"{_COLS} WHERE run=? AND id=?", (run, episode)).fetchone()
    return None if r is None else _row(r)


def of_episodes(conn: sqlite3.Connection, keys: list[tuple[str, str]]
                ) -> dict[tuple[str, str], Approval]:
    """Approvals of the given ``(run, id)`` episodes (one page of a table)."""
    if not keys or not has_table(conn):
        return {}
    out: dict[tuple[str, str], Approval] = {}
    for start in range(0, len(keys), 400):
        chunk = keys[start:start + 400]
        cond = " OR ".join("(run=? AND id=?)" for _ in chunk)
        args = [x for k in chunk for x in k]
        for r in conn.execute(f"{_COLS} WHERE {cond}", args):
            out[(r[0], r[1])] = _row(r)
    return out


def counts(conn: sqlite3.Connection, run: str) -> dict[str, int]:
    """``state -> count`` of a run's approvals."""
    if not has_table(conn):
        return {}
    cur = conn.execute("SELECT state, count(*) FROM approvals WHERE run=? GROUP BY state",
                       (run,))
    return {s: int(n) for s, n in cur}


def check(conn: sqlite3.Connection, run: str, episode: str, state: str,
          comment: str | None) -> str:
    """Whether a decision could be recorded now (reads only): the stripped comment, or
    :class:`ApprovalError` with the reason (what :func:`decide` checks first; a web page
    asks it before its confirmation step)."""
    if state not in DECISIONS:
        raise ApprovalError(f"decision must be one of {', '.join(DECISIONS)}, got {state!r}")
    text = (comment or "").strip()
    if state == REJECTED and not text:
        raise ApprovalError("a rejection needs a comment saying why")
    if len(text) > MAX_COMMENT:
        raise ApprovalError(f"comment is {len(text)} characters; at most {MAX_COMMENT}")
    current = get(conn, run, episode)
    if current is None:
        raise ApprovalError(f"episode {episode} of run {run!r} has no agreement awaiting "
                            "approval (it was not run with require_approval, or ended "
                            "without an agreement)")
    if current.state != PENDING:
        raise ApprovalError(f"episode {episode} was already {current.state}"
                            + (f" ({current.comment})" if current.comment else ""))
    return text


def decide(conn: sqlite3.Connection, run: str, episode: str, state: str,
           comment: str | None, by: str) -> Approval:
    """Record a decision on a pending agreement (a writable connection).

    Rejecting needs a comment; a decided agreement cannot be decided again (the first
    decision is the record). Raises :class:`ApprovalError` with the reason otherwise.
    """
    text = check(conn, run, episode, state, comment)
    with conn:
        cur = conn.execute("UPDATE approvals SET state=?, decided=?, comment=?, decided_by=? "
                           "WHERE run=? AND id=? AND state=?",
                           (state, time.time(), text or None, by, run, episode, PENDING))
    if cur.rowcount != 1:
        raise ApprovalError(f"episode {episode} was decided meanwhile; reload")
    result = get(conn, run, episode)
    assert result is not None
    return result


__all__ = ["APPROVED", "DECISIONS", "PENDING", "REJECTED", "Approval", "ApprovalError",
           "check", "counts", "decide", "ensure_table", "gate_agreements", "get", "has_table",
           "mark_pending", "of_episodes"]
