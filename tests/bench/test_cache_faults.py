"""Issue 24, item 7: a full disk under the LLM cache turned 8 of 10 episodes into ``error``
after their answers had been received (and paid for), with exit 0 and nothing on stderr.

Now a cache that cannot write keeps the episode (the answer is in hand) and warns once, on
stderr; and ``accord bench`` exits non-zero when episodes do end in error because of a
local fault. The fault is made by the cache's own write failing the way SQLite fails on a
full disk (``sqlite3.OperationalError('database or disk is full')``), over the built-in
mock provider, in-process (``--executor local``).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.llm.cache import CompletionCache

runner = CliRunner()

CONFIG = """
name: llm-full
domain: bargaining
scenarios: [split]
agents:
  - ["llm:mock/negotiator", linear]
seeds: 4
"""


#: LLM episodes next to code-only ones: a local fault under the cache ends only some
MIXED = CONFIG.replace('  - ["llm:mock/negotiator", linear]\n',
                       '  - ["llm:mock/negotiator", linear]\n  - [boulware, linear]\n')


def _bench(tmp_path: Path, *extra: str, config: str = CONFIG
           ) -> tuple[int, dict[str, object], str]:
    cfg = tmp_path / "llm.yaml"
    cfg.write_text(config)
    res = runner.invoke(app, ["bench", str(cfg), "--out", str(tmp_path / "runs.db"),
                              "--cache", str(tmp_path / "cache.db"), "--executor", "local",
                              "--json", *extra], env={"ACCORD_DEBUG": ""})
    return res.exit_code, json.loads(res.stdout), res.stderr


def test_a_cache_that_cannot_write_keeps_every_episode(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def full(self: CompletionCache, rows: list[object]) -> None:
        calls.append(len(rows))
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(CompletionCache, "_write_rows", full)
    code, report, stderr = _bench(tmp_path)
    assert calls, "the cache was never written to"
    assert code == 0, stderr
    assert report["done"] == 4 and report["errored"] == 0 and report["failed"] == 0
    # warned once, loudly, on stderr (per cache, however many writes failed)
    assert stderr.count("cannot be written (database or disk is full)") == 1, stderr
    assert "NOT recorded" in stderr
    res = runner.invoke(app, ["results", str(tmp_path / "runs.db"), "--per-episode",
                              "--json"])
    rows = json.loads(res.stdout)["episodes"]
    assert [r["outcome"] for r in rows].count("error") == 0


def test_a_local_fault_that_ends_episodes_is_a_non_zero_exit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: CompletionCache, key: str) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    async def broken_get(self: CompletionCache, key: str) -> None:
        broken(self, key)

    monkeypatch.setattr(CompletionCache, "get", broken_get)
    code, report, stderr = _bench(tmp_path, config=MIXED)
    # the LLM episodes end in error, the code-only ones agree: not "every episode failed"
    assert report["done"] == 8 and report["errored"] == 4, report
    assert code == 1, (report, stderr)
    assert "because of a local fault" in stderr
    assert "Traceback" not in stderr
