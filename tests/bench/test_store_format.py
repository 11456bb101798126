"""Store format 2 (compressed columns) next to format 1: round trip, old stores, damage."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest
from typer.testing import CliRunner

from accord.bench import (
    BenchOptions,
    EpisodeRecord,
    EpisodeTask,
    LocalExecutor,
    Store,
    StoreError,
    aggregate,
    aggregate_stream,
    expand,
    parse_config,
    run_bench,
)
from accord.bench.store import SCHEMA_VERSION
from accord.cli.main import app
from accord.testing.legacy_store import create_format1_store

PROV = {"accord_version": "0.1.0", "git_commit": None, "cwd_commit": None, "host": "h"}
CFG = {"name": "s", "domain": "bargaining", "scenarios": ["buyer-seller", "split"],
       "agents": [["boulware", "conceder"], ["linear", "tit-for-tat"]], "seeds": 3}


@pytest.fixture(scope="module")
def episodes():
    """A real bargaining plan and its records (run once, no store)."""
    plan = expand(parse_config(CFG))

    async def run() -> list[EpisodeRecord]:
        tasks = [EpisodeTask(e.id, e.spec, e.repeat, "s") for e in plan.episodes]
        return [r async for r in LocalExecutor(4).run(tasks)]

    recs = asyncio.run(run())
    recs.append(EpisodeRecord("nosuch", "failed", error="ValueError: boom\n" * 50))
    return plan, recs


def _fill(path, plan, recs, fmt):
    if fmt == 1:
        create_format1_store(path)
    st = Store.open(path)
    assert st.format == fmt
    sid = st.begin_session("s", {"name": "s"}, None, PROV, "local", 1)
    st.add_planned("s", plan.episodes)
    for rec in recs:
        if rec.id != "nosuch":
            st.write("s", rec, sid)
    return st


def test_round_trip_is_lossless_and_compact(tmp_path, episodes):
    plan, recs = episodes
    old = _fill(tmp_path / "old.db", plan, recs, 1)
    new = _fill(tmp_path / "new.db", plan, recs, 2)
    assert SCHEMA_VERSION == 2
    a, b = old.episodes("s"), new.episodes("s")
    assert [r.to_dict() for r in a] == [r.to_dict() for r in b]
    by_id = {r.id: r for r in recs}
    for row in b:
        rec = by_id[row.id]
        assert row.summary == json.loads(json.dumps(rec.summary))
        assert row.metrics == rec.metrics and row.outcome == rec.outcome
        # the trajectory text comes back byte for byte
        assert new.trajectory("s", row.id) == rec.trajectory == old.trajectory("s", row.id)
    # format 2 stores frames (BLOBs) in the bulky columns, text in spec and labels
    kinds = new.conn.execute("SELECT DISTINCT typeof(summary), typeof(metrics), typeof(spec),"
                             " typeof(labels) FROM episodes").fetchall()
    assert kinds == [("blob", "blob", "text", "text")]
    raw = sum(len(r.trajectory or "") for r in recs)
    packed = new.conn.execute("SELECT sum(length(jsonl)) FROM trajectories").fetchone()[0]
    assert packed * 4 < raw  # the dictionary makes bargaining trajectories small
    # SQL can still reach inside compressed JSON
    reasons = {r for (r,) in new.conn.execute(
        "SELECT json_extract(accord_text(summary), '$.status') FROM episodes")}
    assert reasons <= {"agreement", "no_deal", "walk_away"} and reasons
    old.close()
    new.close()


def test_failed_episode_error_round_trips(tmp_path, episodes):
    plan, _recs = episodes
    st = _fill(tmp_path / "f.db", plan, [], 2)
    eid = plan.episodes[0].id
    st.write("s", EpisodeRecord(eid, "failed", error="ValueError: boom\n" * 50), None)
    row = st.find(eid)
    assert row.status == "failed" and row.error == "ValueError: boom\n" * 50
    assert st.trajectory("s", eid) is None
    st.close()


def test_format1_store_opens_reads_resumes_and_stays_format1(tmp_path, episodes):
    plan, recs = episodes
    path = tmp_path / "legacy.db"
    st = _fill(path, plan, recs[:4], 1)
    st.close()
    cfg = parse_config(CFG)
    rep = run_bench(cfg, BenchOptions(store=path, quiet=True))
    assert rep.already_done == 4 and rep.done == len(plan.episodes) - 4
    with Store.open(path, create=False) as st:
        assert st.format == 1
        assert st.conn.execute("SELECT value FROM meta").fetchone()[0] == "1"
        types = {t for (t,) in st.conn.execute("SELECT typeof(summary) FROM episodes")}
        assert types == {"text"}  # still readable by accord before the compact store
        assert "zdicts" not in st._names()
        assert len(st.episodes("s")) == len(plan.episodes)
    # the CLI reads it as a person would
    cli = CliRunner()
    res = cli.invoke(app, ["results", str(path), "-f", "md", "-g", "agents"])
    assert res.exit_code == 0, res.output
    assert "boulware vs conceder" in res.output
    show = cli.invoke(app, ["show", str(path), plan.episodes[0].id, "--json"])
    assert show.exit_code == 0, show.output
    assert json.loads(show.output)["trajectory"][0]["kind"] == "move"


def test_new_store_readable_after_the_shipped_dictionary_changes(tmp_path, episodes,
                                                                 monkeypatch):
    """The store keeps its own dictionary: a later accord with another shipped one reads it."""
    plan, recs = episodes
    st = _fill(tmp_path / "d.db", plan, recs, 2)
    st.close()
    import accord.bench.store as store_mod

    monkeypatch.setattr(store_mod, "shipped_dictionary", lambda: b"\x37\xa4\x30\xec" + b"\0" * 8)
    monkeypatch.setattr(store_mod, "dictionary_id", lambda raw: 7)
    with Store.open(tmp_path / "d.db", create=False) as st:
        assert st.trajectory("s", plan.episodes[0].id) == {r.id: r for r in recs}[
            plan.episodes[0].id].trajectory


def _damage(path, sql, args=()):
    conn = sqlite3.connect(path)
    conn.execute(sql, args)
    conn.commit()
    conn.close()


def test_damaged_values_name_the_episode(tmp_path, episodes):
    plan, recs = episodes
    path = tmp_path / "c.db"
    _fill(path, plan, recs, 2).close()
    first, second, third = (e.id for e in plan.episodes[:3])
    # flip bytes inside the compressed payload: the checksum catches it
    blob = sqlite3.connect(path).execute("SELECT summary FROM episodes WHERE id=?",
                                         (first,)).fetchone()[0]
    bad = blob[:12] + bytes(b ^ 0xFF for b in blob[12:20]) + blob[20:]
    _damage(path, "UPDATE episodes SET summary=? WHERE id=?", (bad, first))
    _damage(path, "UPDATE trajectories SET jsonl=? WHERE id=?", (b"not zstd at all", second))
    _damage(path, "UPDATE episodes SET metrics=? WHERE id=?", (b"\x28\xb5\x2f\xfd", third))
    with Store.open(path, create=False) as st:
        with pytest.raises(StoreError, match=rf"episode s/{first}: the stored summary"):
            st.episodes("s")
        with pytest.raises(StoreError, match=rf"episode s/{second}: the stored trajectory "
                                             r"cannot be read: not a zstd frame"):
            st.trajectory("s", second)
        with pytest.raises(StoreError, match=rf"episode s/{third}: the stored metrics"):
            st.find(third)
        # the other episodes stay readable
        assert st.find(plan.episodes[3].id).metrics
        assert st.conn.execute("SELECT accord_text(summary) FROM episodes WHERE id=?",
                               (first,)).fetchone()[0] is None
    res = CliRunner().invoke(app, ["show", str(path), first])
    assert res.exit_code != 0 and first in res.output and "summary" in res.output


def test_unknown_dictionary_is_a_clear_error(tmp_path, episodes):
    plan, recs = episodes
    path = tmp_path / "u.db"
    _fill(path, plan, recs, 2).close()
    _damage(path, "DELETE FROM zdicts")
    import zstandard

    d = zstandard.train_dictionary(1024, [json.dumps({"k": i, "v": "x" * (i % 7)}).encode()
                                          for i in range(400)])
    frame = zstandard.ZstdCompressor(dict_data=d).compress(b'{"a": 1}')
    eid = plan.episodes[0].id
    _damage(path, "UPDATE episodes SET usage=? WHERE id=?", (frame, eid))
    with Store.open(path, create=False) as st:
        with pytest.raises(StoreError, match=rf"{eid}: the stored usage cannot be read: "
                                             rf"compressed with dictionary {d.dict_id()}"):
            st.find(eid)
        # rows of the shipped dictionary still read (accord has it)
        assert st.find(plan.episodes[1].id).summary


def test_a_newer_format_is_refused_clearly(tmp_path, episodes):
    plan, recs = episodes
    path = tmp_path / "n.db"
    _fill(path, plan, recs[:1], 2).close()
    _damage(path, "UPDATE meta SET value='3' WHERE key='schema'")
    with pytest.raises(StoreError, match="schema version 3 is not one this accord reads"):
        Store.open(path, create=False)


def test_streamed_aggregate_equals_the_in_memory_one(tmp_path, episodes):
    plan, recs = episodes
    st = _fill(tmp_path / "a.db", plan, recs[:-3], 2)
    rows = st.episodes("s")
    for group_by in (None, ["agents"], ["scenario", "outcome"]):
        a = aggregate(rows, group_by)
        b = aggregate_stream(lambda: st.iter_episodes("s"), group_by)
        c = aggregate_stream(lambda: st.iter_episodes("s", summaries=False), group_by)
        assert a == b == c
    assert aggregate_stream(lambda: st.iter_episodes("s")).group_by == ["scenario", "agents"]
    light = next(st.iter_episodes("s", summaries=False))
    assert light.summary is None and light.metrics == rows[0].metrics
    st.close()


def _frame_dict(blob):
    import zstandard

    return zstandard.get_frame_parameters(bytes(blob)).dict_id


def test_store_made_with_the_earlier_dictionary_takes_on_the_new_one(tmp_path, episodes,
                                                                     monkeypatch):
    """A store an earlier accord made (compressing with ``store.zdict``) keeps its frames;
    its new rows use the current dictionary, added to its ``zdicts``; every row reads with
    only the store's own dictionaries (what any accord reading format 2 has)."""
    import accord.bench.store as store_mod
    from accord.bench.compact import (
        Codec,
        dictionary_id,
        earlier_dictionaries,
        shipped_dictionary,
    )

    plan, recs = episodes
    old_raw, new_raw = earlier_dictionaries()[0], shipped_dictionary()
    old_id, new_id = dictionary_id(old_raw), dictionary_id(new_raw)
    assert old_id != new_id
    recs = [r for r in recs if r.id != "nosuch"]
    half = len(recs) // 2
    path = tmp_path / "earlier.db"
    with monkeypatch.context() as m:  # the earlier accord: it shipped store.zdict only
        m.setattr(store_mod, "shipped_dictionary", lambda: old_raw)
        _fill(path, plan, recs[:half], 2).close()
    with Store.open(path) as st:
        assert [i for (i,) in st.conn.execute("SELECT id FROM zdicts")] == [old_id]
        sid = st.begin_session("s", {"name": "s"}, None, PROV, "local", 1)
        st.write_many("s", recs[half:], sid)
        assert {i for (i,) in st.conn.execute("SELECT id FROM zdicts")} == {old_id, new_id}
        ids = {r.id: k for k, r in enumerate(recs)}
        for eid, summary, jsonl in st.conn.execute(
                "SELECT e.id, summary, jsonl FROM episodes e JOIN trajectories t USING (run, id)"):
            want = old_id if ids[eid] < half else new_id
            assert _frame_dict(summary) == want and _frame_dict(jsonl) == want, eid
        own = Codec({int(i): bytes(d) for i, d in st.conn.execute("SELECT id, dict FROM zdicts")},
                    None)
        by_id = {r.id: r for r in recs}
        for eid, summary, jsonl in st.conn.execute(
                "SELECT e.id, summary, jsonl FROM episodes e JOIN trajectories t USING (run, id)"):
            assert json.loads(own.decompress(summary)) == by_id[eid].summary
            assert own.decompress(jsonl) == by_id[eid].trajectory
    with Store.open(path) as st:  # opened again: still writes with the current one
        assert st.encoder_spec().dict_id == new_id
        got = {e.id: e.metrics for e in st.episodes("s") if e.status == "done"}
        assert got == {i: r.metrics for i, r in by_id.items()}
