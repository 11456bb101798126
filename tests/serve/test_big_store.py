"""A run of 10^5 episodes pages like a run of 10: LIMIT/OFFSET on the plan-order index,
id lookup on the primary key (checked by the query plans, not by timing)."""

from __future__ import annotations

import re
import sqlite3

from accord.bench.store import Store

N = 100_000


def test_first_middle_and_last_pages(make_client, big_store):
    c = make_client(big_store)
    first = c.get("/api/stores/0/runs/big/episodes").json()
    assert first["total"] == N and first["pages"] == N // 50
    assert [e["seq"] for e in first["episodes"]] == list(range(50))
    last = c.get("/api/stores/0/runs/big/episodes", params={"page": N // 50}).json()
    assert [e["seq"] for e in last["episodes"]] == list(range(N - 50, N))
    beyond = c.get("/api/stores/0/runs/big/episodes", params={"page": 10**7}).json()
    assert beyond["page"] == N // 50  # clamped to the last page
    mid = c.get("/stores/0/runs/big", params={"page": 1234, "per_page": 20})
    seqs = [int(s) for s in re.findall(r'<tr data-id="[0-9a-f]+">\s*<td>(\d+)</td>', mid.text)]
    assert seqs == list(range(1233 * 20, 1234 * 20))
    desc = c.get("/api/stores/0/runs/big/episodes", params={"dir": "desc"}).json()
    assert desc["episodes"][0]["seq"] == N - 1


def test_filters_and_id_prefix_on_a_big_run(make_client, big_store):
    c = make_client(big_store)
    proc = c.get("/api/stores/0/runs/big/episodes", params={"scenario": "procurement"}).json()
    assert proc["total"] == N // 2
    assert {e["scenario"] for e in proc["episodes"]} == {"procurement"}
    st = Store.open_readonly(big_store)
    try:
        eid = st.select("run = ?", ("big",), "seq", 1, N - 1)[0].id
    finally:
        st.conn.close()
    doc = c.get(f"/api/episodes/{eid[:8]}").json()
    assert doc["id"] == eid and doc["seq"] == N - 1
    assert doc["trajectory"] == []  # copies past the first few have no trajectory stored
    sorted_pages = [c.get("/api/stores/0/runs/big/episodes",
                          params={"sort": "rounds", "dir": "desc", "page": p}).json()
                    for p in (1, 2, 2000)]
    assert all(doc["total"] == N for doc in sorted_pages)
    got = [e for doc in sorted_pages for e in doc["episodes"]]
    rounds = [e["rounds"] for e in got]
    assert rounds == sorted(rounds, reverse=True) and len({e["id"] for e in got}) == 150
    page = c.get(f"/episodes/{eid[:8]}")
    assert page.status_code == 200 and "No transcript stored." in page.text


def test_query_plans_use_indexes(big_store):
    """The run table's default page and the id lookup never scan the episodes table."""
    conn = sqlite3.connect(f"file:{big_store}?mode=ro", uri=True)
    try:
        def plan(sql: str, args: tuple) -> str:
            return " | ".join(r[3] for r in conn.execute(f"EXPLAIN QUERY PLAN {sql}", args))

        page = plan("SELECT id FROM episodes WHERE run = ? ORDER BY seq LIMIT 50 OFFSET 99950",
                    ("big",))
        assert "episodes_by_seq" in page and "TEMP B-TREE" not in page
        count = plan("SELECT count(*) FROM episodes WHERE run = ?", ("big",))
        assert "COVERING INDEX" in count
        look = plan("SELECT id FROM episodes WHERE run=? AND id >= ? AND id < ? LIMIT 6",
                    ("big", "ab", "ab\U0010ffff"))
        assert "sqlite_autoindex_episodes_1" in look and "id>? AND id<?" in look
    finally:
        conn.close()


def test_a_slow_aggregate_does_not_stall_other_requests(gated_store, tmp_path):
    """The first aggregate of a large run reads every row (seconds for 2x10^4 episodes);
    pages keep answering meanwhile (store reads run in the server's thread pool, not on
    its event loop)."""
    import threading
    import urllib.request

    from accord.serve.app import create_app
    from accord.testing.live import LiveServer
    from accord.testing.stores import grow_store

    grow_store(gated_store, "gated", tmp_path / "mid.db", "big", 20_000, with_trajectories=0)
    with LiveServer(create_app([tmp_path / "mid.db"])) as url:
        done = threading.Event()
        status: list[int] = []

        def slow() -> None:
            with urllib.request.urlopen(f"{url}/api/stores/0/runs/big/aggregate",
                                        timeout=600) as resp:
                status.append(resp.status)
            done.set()

        worker = threading.Thread(target=slow)
        worker.start()
        answered = 0
        for _ in range(3):
            with urllib.request.urlopen(f"{url}/api/stores/0/runs/big/episodes?page=7",
                                        timeout=60) as resp:
                assert resp.status == 200
            answered += 0 if done.is_set() else 1
        assert answered == 3, "page requests waited for the aggregate"
        worker.join(timeout=600)
        assert status == [200]
