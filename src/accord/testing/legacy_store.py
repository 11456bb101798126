"""A results store in format 1 (plain JSON text columns, accord before the compact store),
for tests and benchmarks that check old stores keep opening, reading and resuming.

Format 1 is format 2 without the ``zdicts`` table and with ``schema`` 1 in ``meta``; the
store module writes such a store in format 1 from then on.
"""

from __future__ import annotations

import sqlite3
from importlib import resources
from pathlib import Path

from accord.bench.store import _statements


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
