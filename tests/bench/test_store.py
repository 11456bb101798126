"""The SQLite results store: schema, writes, resume selection, redaction, locking."""

from __future__ import annotations

import json
import sqlite3

import pytest

from accord.bench import (
    EpisodeRecord,
    Store,
    StoreError,
    expand,
    parse_config,
    redact,
    redact_text,
    select,
)

PROV = {"accord_version": "0.1.0", "git_commit": None, "cwd_commit": None, "host": "h"}


def _plan(n=3):
    return expand(parse_config({"name": "s", "domain": "bargaining", "scenarios": ["split"],
                                "agents": [["linear", "conceder"]], "seeds": n}))


def _store(tmp_path, plan):
    st = Store.open(tmp_path / "sub" / "s.db")
    sid = st.begin_session("s", {"name": "s"}, "cfg.yaml", PROV, "local", 2)
    st.add_planned("s", plan.episodes)
    return st, sid


def test_wal_mode_schema_and_pending_rows(tmp_path):
    plan = _plan()
    st, _ = _store(tmp_path, plan)
    assert st.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert st.conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    rows = st.episodes("s")
    assert [r.id for r in rows] == [e.id for e in plan.episodes]
    assert {r.status for r in rows} == {"pending"}
    assert rows[0].spec["domain"] == "bargaining" and rows[0].spec["repeat"] == 0
    run = st.runs()[0]
    assert run["name"] == "s" and run["accord_version"] == "0.1.0" and run["git_commit"] is None
    st.close()


def test_write_done_and_failed_then_select_for_resume(tmp_path):
    plan = _plan(3)
    st, sid = _store(tmp_path, plan)
    a, b, c = (e.id for e in plan.episodes)
    st.write("s", EpisodeRecord(a, "done", "agreement", {"status": "agreement"}, {"x": 1},
                                '{"seq": 0}\n', {"buyer": {"input_tokens": 3}}), sid)
    st.write("s", EpisodeRecord(b, "failed", error="RuntimeError: boom"), sid)
    statuses = st.statuses("s")
    assert statuses[a] == ("done", "agreement") and statuses[b] == ("failed", None)
    queue, done, failed = select(plan, statuses, retry_failed=False, retry_errors=False)
    assert [e.id for e in queue] == [c] and (done, failed) == (1, 1)
    queue, _, _ = select(plan, statuses, retry_failed=True, retry_errors=False)
    assert {e.id for e in queue} == {b, c}
    row = st.find(b)
    assert row.error == "RuntimeError: boom" and row.attempts == 1
    assert st.trajectory("s", a) == '{"seq": 0}\n'
    assert st.find(a).usage == {"buyer": {"input_tokens": 3}}
    # replanning keeps finished work
    st.add_planned("s", plan.episodes)
    assert st.statuses("s")[a] == ("done", "agreement")
    st.close()


def test_retry_errors_selects_error_outcomes(tmp_path):
    plan = _plan(2)
    st, sid = _store(tmp_path, plan)
    a, b = (e.id for e in plan.episodes)
    st.write("s", EpisodeRecord(a, "done", "error"), sid)
    st.write("s", EpisodeRecord(b, "done", "no_deal"), sid)
    assert select(plan, st.statuses("s"), False, False)[0] == []
    assert [e.id for e in select(plan, st.statuses("s"), False, True)[0]] == [a]
    st.close()


def test_find_by_unique_prefix(tmp_path):
    plan = _plan(20)
    st, _ = _store(tmp_path, plan)
    target = plan.episodes[5].id
    assert st.find(target[:10]).id == target
    with pytest.raises(StoreError, match="ambiguous"):
        st.find("")
    with pytest.raises(StoreError, match="no episode"):
        st.find("zzzz")
    st.close()


def test_secrets_never_reach_the_store(tmp_path, monkeypatch):
    key = "sk-test-1234567890abcdefghijklmnop"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-zyxwvutsrqp")
    plan = _plan(1)
    st = Store.open(tmp_path / "r.db")
    sid = st.begin_session("s", {"llm": {"api_key": key, "cache": "c.db"}}, None, PROV, "l", 1)
    st.add_planned("s", plan.episodes)
    eid = plan.episodes[0].id
    st.write("s", EpisodeRecord(
        eid, "failed", summary={"detail": f"Incorrect API key provided: {key}"},
        trajectory='{"feedback": "Authorization: Bearer tok-zyxwvutsrqp"}\n',
        error=f"AuthenticationError: key {key} rejected; token=tok-zyxwvutsrqp"), sid)
    st.close()
    raw = (tmp_path / "r.db").read_bytes()
    for wal in tmp_path.glob("r.db-wal"):
        raw += wal.read_bytes()
    assert key.encode() not in raw and b"tok-zyxwvutsrqp" not in raw
    conn = sqlite3.connect(tmp_path / "r.db")
    cfg = json.loads(conn.execute("SELECT config FROM runs").fetchone()[0])
    assert cfg["llm"] == {"api_key": "[REDACTED]", "cache": "c.db"}


def test_redaction_rules():
    assert redact({"OPENAI_API_KEY": "x" * 10, "max_tokens": 400, "token": ""}) == {
        "OPENAI_API_KEY": "[REDACTED]", "max_tokens": 400, "token": ""}
    assert redact_text("llm:openai/gpt?api_key=abc123&temperature=0.2", []) == (
        "llm:openai/gpt?api_key=[REDACTED]&temperature=0.2")
    assert redact_text("ghp_" + "a" * 30, []) == "[REDACTED]"
    assert redact_text("max_tokens=400 and sk-ant-api03-abcdefgh", []) == (
        "max_tokens=400 and [REDACTED]")


def test_second_writer_is_refused_and_missing_store_is_an_error(tmp_path):
    st = Store.open(tmp_path / "l.db")
    st.lock()
    other = Store.open(tmp_path / "l.db")
    with pytest.raises(StoreError, match="in use by another accord bench"):
        other.lock()
    other.close()
    st.close()
    again = Store.open(tmp_path / "l.db")
    again.lock()  # released with the first connection
    again.close()
    with pytest.raises(StoreError, match="no results store"):
        Store.open(tmp_path / "absent.db", create=False)


def test_foreign_files_are_rejected(tmp_path):
    bogus = tmp_path / "bogus.db"
    bogus.write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match="is not an accord store"):
        Store.open(bogus)
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(StoreError, match="is not an accord store"):
        Store.open(other, create=False)
    with pytest.raises(StoreError, match="is not an accord store"):
        Store.open(other)  # never adds tables to someone else's database
