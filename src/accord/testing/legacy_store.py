"""A results store in format 1 (plain JSON text columns, accord before the compact store),
for tests and benchmarks that check old stores keep opening, reading and resuming; and the
store's encoding before issue 30 (:func:`legacy_encode`), the reference new encodings
must equal byte for byte.

Format 1 is format 2 without the ``zdicts`` table and with ``schema`` 1 in ``meta``; the
store module writes such a store in format 1 from then on.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from accord.bench.store import Store, _statements
from accord.bench.worker import EpisodeRecord
from accord.core.redact import _TRIGGERS, Redactor


def create_format1_store(path: str | Path) -> Path:
    """Create an empty format-1 store at ``path`` (which must not exist)."""
    p = Path(path)
    if p.exists():
        raise FileExistsError(p)
    ddl = resources.files("accord.bench").joinpath("data", "schema.sql").read_text("utf-8")
    conn = sqlite3.connect(str(p))
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        for statement in _statements(ddl):
            code = "\n".join(ln for ln in statement.splitlines()
                             if not ln.lstrip().startswith("--"))
            if "zdicts" not in code:
                conn.execute(statement)
        conn.execute("INSERT INTO meta VALUES ('schema', '1')")
        conn.commit()
    finally:
        conn.close()
    return p


class LegacyRedactor(Redactor):
    """The redaction as the store used it before issue 30 (the trigger scan without gates,
    ``json.dumps`` per value), verbatim: the reference of the byte-identity tests."""

    def _suspect(self, text: str) -> bool:
        low = text.lower()
        return any(t in low for t in _TRIGGERS)

    def json(self, value: Any, **dumps: Any) -> str | None:
        """``value`` as JSON text with credentials masked, as before issue 30."""
        if value is None:
            return None
        text = json.dumps(value, ensure_ascii=False, default=str, **dumps)
        if not self._suspect(text) and not any(v in text for v in self.env):
            return text
        return json.dumps(self.value(value), ensure_ascii=False, default=str, **dumps)


def legacy_encode(st: Store, run: str, rec: EpisodeRecord, session: int | None,
                  redactor: Redactor | None = None
                  ) -> tuple[tuple[Any, ...], tuple[Any, ...] | None]:
    """``Store.encode`` as it was before issue 30 (each value redacted, serialised and
    compressed on its own), verbatim: ``(episode row, trajectory row or None)``."""
    r = redactor or LegacyRedactor()
    pack: Callable[[str | None], Any] = (
        st.codec().compress_or_none if st.format >= 2 else (lambda t: t))
    summary, metrics, usage = r.json(rec.summary), r.json(rec.metrics), r.json(rec.usage)
    row = (rec.status, rec.outcome, pack(summary), pack(metrics), pack(usage),
           None if rec.error is None else pack(r.text(rec.error)), rec.wall_time,
           rec.started, rec.finished, session, rec.worker, run, rec.id)
    traj = None if rec.trajectory is None else (run, rec.id, pack(r.text(rec.trajectory)))
    return row, traj


def decoded(st: Store, row: tuple[Any, ...], traj: tuple[Any, ...] | None
            ) -> tuple[Any, ...]:
    """What readers get from one episode's encoded rows (:meth:`Store.encode`): the
    columns with ``summary``, ``metrics`` and ``usage`` decompressed and parsed, ``error``
    and the trajectory as text. Two encodings are equal for every reader exactly when
    these are (the JSON encoder may space and write floats differently; the values are
    the same)."""
    def text(v: Any) -> Any:
        return v if v is None or isinstance(v, str) else st.codec().decompress(bytes(v))

    def value(v: Any) -> Any:
        t = text(v)
        return None if t is None else json.loads(t)

    cols = (*row[:2], value(row[2]), value(row[3]), value(row[4]), text(row[5]), *row[6:])
    return cols, None if traj is None else (*traj[:2], text(traj[2]))
