"""The run summary read from columns (:func:`accord.serve.runsummary.compute`, over
:func:`accord.bench.runscan.scan_run`) equals the one from decoded rows (``aggregate`` over
``store.episodes``, ``lineups``, the filter choices): the same numbers, not close ones."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from accord.bench import BenchOptions, parse_config, run_bench
from accord.bench.aggregate import aggregate
from accord.bench.runscan import ScanError, scan_run
from accord.bench.store import Store
from accord.serve.runsummary import compute, from_rows

#: two domains, random strategies (varied outcomes, utilities and rounds), an LLM agent
#: (token usage), a round cap that varies (a parameter column)
VARIED = {"name": "varied", "seeds": 3, "sweeps": [
    {"domain": "bargaining", "scenarios": ["buyer-seller", "procurement"],
     "agents": [["random", "conceder"], ["boulware", "random"],
                ["llm:mock/negotiator", "linear"]],
     "params": {"max_rounds": [4, 30]}},
    {"domain": "games", "scenarios": ["prisoners-dilemma", "stag-hunt"],
     "agents": [["rational", "random"]], "params": {"negotiation_rounds": [0, 1]}}]}


@pytest.fixture(scope="module")
def varied_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real bench run of 48 episodes, then (as a crash or a stopped run leaves them) one
    episode failed and one still pending, and one finished episode's metrics holding a
    missing value, a text value and a number where others have a boolean."""
    path = tmp_path_factory.mktemp("varied") / "varied.db"
    run_bench(parse_config(VARIED, "<test>"), BenchOptions(store=str(path), quiet=True))
    with Store.open(path) as st:
        rows = st.episodes("varied")
        assert len(rows) == 48 and len({r.outcome for r in rows}) >= 3
        with st.conn:
            st.conn.execute("UPDATE episodes SET status='failed', outcome=NULL, metrics=NULL "
                            "WHERE run='varied' AND seq=3")
            st.conn.execute("UPDATE episodes SET status='pending', outcome=NULL, summary=NULL,"
                            " metrics=NULL, wall_time=NULL WHERE run='varied' AND seq=7")
            odd = {**(rows[10].metrics or {}), "rounds": None, "note": "text",
                   "agreement": 0.5}
            st.conn.execute("UPDATE episodes SET metrics=? WHERE run='varied' AND seq=10",
                            (st._pack(json.dumps(odd)),))
    return path


def _both(path: Path, run: str) -> tuple[object, object]:
    st = Store.open_readonly(path)
    try:
        return compute(st, run), from_rows(st.episodes(run))
    finally:
        st.conn.close()


def test_columns_equal_rows_on_a_varied_run(varied_store):
    fast, slow = _both(varied_store, "varied")
    assert fast == slow
    agg = fast.aggregate  # type: ignore[attr-defined]
    # what makes the comparison worth something: groups over both domains and the swept
    # parameters, failed and pending counts, usage, several outcomes, utilities per party
    assert agg.group_by[:3] == ["domain", "scenario", "agents"]
    assert "params.max_rounds" in agg.group_by
    assert len(agg.groups) == 16
    assert sum(g.failed for g in agg.groups) == 1 and sum(g.pending for g in agg.groups) == 1
    assert agg.usage and any(k.endswith("tokens") for k in agg.usage)
    assert agg.metrics["agreement"] == "number"  # a 0.5 among booleans
    assert "note" not in agg.metrics and agg.metrics["rounds"] == "number"
    assert {"agreement", "no_deal"} <= set(fast.choices["outcome"])  # type: ignore[attr-defined]
    lineups = fast.lineups  # type: ignore[attr-defined]
    assert any(len(g["utilities"]) == 2 for g in lineups)
    assert any(sd is not None for g in lineups for _, sd in g["utilities"].values())


def test_columns_equal_aggregate_of_rows_on_a_format_1_store(tmp_path, varied_store):
    """Text columns (a store written before the compact format) read the same way."""
    old = tmp_path / "old.db"
    old.write_bytes(varied_store.read_bytes())
    with Store.open(old) as st:
        rows = st.episodes("varied")
        with st.conn:
            for r in rows:
                st.conn.execute(
                    "UPDATE episodes SET summary=?, metrics=?, usage=? WHERE run=? AND id=?",
                    (json.dumps(r.summary) if r.summary is not None else None,
                     json.dumps(r.metrics) if r.metrics is not None else None,
                     json.dumps(r.usage) if r.usage is not None else None, r.run, r.id))
        kinds = {t for (t,) in st.conn.execute("SELECT DISTINCT typeof(summary) FROM episodes")}
        assert kinds == {"text", "null"}
    fast, slow = _both(old, "varied")
    assert fast == slow


def test_scan_aggregate_equals_aggregate_of_the_gated_run(gated_store):
    st = Store.open_readonly(gated_store)
    try:
        assert scan_run(st, "gated").aggregate == aggregate(st.episodes("gated"))
    finally:
        st.conn.close()


def test_a_damaged_value_falls_back_to_the_row_reader_that_names_it(tmp_path, varied_store):
    """A frame SQLite cannot decompress stops the column scan (ScanError), and the page's
    summary then reads rows, whose error names the episode (not a silent gap)."""
    bad = tmp_path / "bad.db"
    bad.write_bytes(varied_store.read_bytes())
    con = sqlite3.connect(bad)
    with con:
        eid = con.execute("SELECT id FROM episodes WHERE run='varied' AND seq=5").fetchone()[0]
        con.execute("UPDATE episodes SET summary=? WHERE run='varied' AND seq=5",
                    (b"\x28\xb5\x2f\xfd damaged",))
    con.close()
    st = Store.open_readonly(bad)
    try:
        with pytest.raises(ScanError):
            scan_run(st, "varied", ("$.reason", "$.flags"), lambda *a: None)
        with pytest.raises(Exception, match=eid):
            compute(st, "varied")
    finally:
        st.conn.close()


def test_the_served_run_page_shows_the_column_summary(make_client, varied_store):
    """The page's aggregate (the API twin) is the row aggregate's."""
    c = make_client(varied_store)
    doc = c.get("/api/stores/0/runs/varied/aggregate").json()
    from accord.serve.views import aggregate_json

    st = Store.open_readonly(varied_store)
    try:
        want = aggregate_json(aggregate(st.episodes("varied")))
    finally:
        st.conn.close()
    assert {k: doc[k] for k in want} == json.loads(json.dumps(want))


def test_columns_equal_rows_on_thousands_of_repeated_and_distinct_values(tmp_path,
                                                                         varied_store):
    """6000 episodes grown from the varied run (each value repeated: the parsed texts are
    reused), the second half of them made distinct (metrics and summaries: past the point
    where the scan stops remembering texts)."""
    from accord.testing.stores import grow_store

    path = tmp_path / "grown.db"
    grow_store(varied_store, "varied", path, "grown", 6000, with_trajectories=0)
    con = sqlite3.connect(path)
    with con:
        n = con.execute(
            "UPDATE episodes SET metrics = json_set(metrics, '$.rounds', seq), "
            "summary = json_set(summary, '$.flags.tick', seq % 7 = 0) "
            "WHERE seq >= 3000 AND typeof(metrics) = 'text' AND typeof(summary) = 'text'"
        ).rowcount
    con.close()
    assert n == 3000
    fast, slow = _both(path, "grown")
    assert fast == slow
    assert "tick" in fast.flags  # type: ignore[attr-defined]
