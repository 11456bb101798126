"""Every route of ``accord serve`` and its JSON twin, over HTTP (Starlette TestClient)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from accord.bench.store import Store


def _ids(store: Path, run: str) -> list[str]:
    st = Store.open_readonly(store)
    try:
        return [e.id for e in st.episodes(run)]
    finally:
        st.conn.close()


def test_index_lists_stores_and_runs(make_client, gated_store, xss_store):
    c = make_client(gated_store, xss_store)
    page = c.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "/stores/0/runs/gated" in page.text and "/stores/1/runs/xss" in page.text
    assert "8 awaiting approval" in page.text  # every agreement of the gated run awaits it
    assert "still to run" in page.text and "pending" not in page.text.replace(
        "appr pending", "")  # "pending" alone never labels anything a person reads
    doc = c.get("/api/stores").json()
    runs = doc["stores"][0]["runs"]
    assert runs[0]["name"] == "gated" and runs[0]["episodes"] == 8 and runs[0]["done"] == 8
    assert runs[0]["accord_version"] and runs[0]["require_approval"] is True
    assert runs[0]["approvals"] == {"pending": 8}
    assert doc["stores"][1]["runs"][0]["name"] == "xss"


def test_run_page_table_filters_sorting_and_aggregate(make_client, gated_store):
    c = make_client(gated_store)
    page = c.get("/stores/0/runs/gated")
    assert page.status_code == 200
    assert page.text.count('<tr data-id="') == 8
    assert "computing the aggregate" in page.text  # first visit: loaded by app.js
    frag = c.get("/stores/0/runs/gated/aggregate")
    assert frag.status_code == 200 and '<table class="aggregate">' in frag.text
    assert "buyer-seller" in frag.text and "boulware vs conceder" in frag.text
    again = c.get("/stores/0/runs/gated")  # now cached: rendered in the page
    assert '<table class="aggregate">' in again.text
    only = c.get("/api/stores/0/runs/gated/episodes", params={"scenario": "procurement"})
    doc = only.json()
    assert doc["total"] == 4 and {e["scenario"] for e in doc["episodes"]} == {"procurement"}
    lineup = c.get("/api/stores/0/runs/gated/episodes",
                   params={"agents": "linear vs linear", "outcome": "agreement"}).json()
    assert lineup["total"] == 4 and all(e["agents"] == "linear vs linear"
                                        for e in lineup["episodes"])
    by_rounds = c.get("/api/stores/0/runs/gated/episodes",
                      params={"sort": "rounds", "dir": "desc"}).json()["episodes"]
    rounds = [e["rounds"] for e in by_rounds]
    assert rounds == sorted(rounds, reverse=True) and rounds[0] > rounds[-1]
    assert c.get("/api/stores/0/runs/gated/episodes",
                 params={"status": "failed"}).json()["total"] == 0
    assert c.get("/api/stores/0/runs/gated/episodes",
                 params={"approval": "pending"}).json()["total"] == 8
    assert c.get("/api/stores/0/runs/gated/episodes",
                 params={"flag": "sycophancy"}).json()["total"] == 0
    agg = c.get("/api/stores/0/runs/gated/aggregate").json()
    assert agg["group_by"] == ["scenario", "agents"] and len(agg["groups"]) == 4
    assert agg["choices"]["scenario"] == ["buyer-seller", "procurement"]
    assert "sycophancy" in agg["flags"]
    # an unknown sort key or a bad page number is ignored, never reaches SQL
    odd = c.get("/api/stores/0/runs/gated/episodes",
                params={"sort": "seq; DROP TABLE episodes", "page": "x", "per_page": "-3"})
    assert odd.status_code == 200 and odd.json()["total"] == 8


def test_pagination_links_walk_every_episode(make_client, gated_store):
    c = make_client(gated_store)
    seen: list[str] = []
    url = "/stores/0/runs/gated?per_page=3"
    while url:
        page = c.get(url)
        seen += re.findall(r'<tr data-id="([0-9a-f]+)"', page.text)
        nxt = re.search(r'rel="next" href="([^"]+)"', page.text)
        url = ("/stores/0/runs/gated" + nxt.group(1).replace("&amp;", "&")) if nxt else ""
    assert seen == _ids(gated_store, "gated")


def test_episode_page_by_prefix_with_transcript_record_and_plot(make_client, gated_store):
    c = make_client(gated_store)
    eid = _ids(gated_store, "gated")[0]
    page = c.get(f"/episodes/{eid[:6]}")
    assert page.status_code == 200
    text = page.text
    assert eid in text and "Transcript" in text and "counter-offer" in text
    # the record in labelled sections, not a flattened key dump
    assert "Agreement artefact" in text and "<caption>Terms</caption>" in text
    assert "record.agreement.price" not in text and "flags.accepted_below_batna" not in text
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="plane"' in text
    assert 'class="pareto"' in text and 'class="nash"' in text and 'class="agreement"' in text
    assert text.count('class="batna"') == 2 and text.count('class="offers"') == 2
    assert "Approval: <span class=\"appr pending\">awaiting approval</span>" in text
    doc = c.get(f"/api/episodes/{eid[:6]}").json()
    assert doc["id"] == eid and doc["status"] == "done" and doc["outcome"] == "agreement"
    assert doc["approval"]["state"] == "pending" and doc["trajectory"]
    assert doc["trajectory"][0]["kind"] == "move"


def test_llm_calls_with_token_usage(make_client, xss_store):
    c = make_client(xss_store)
    eid = _ids(xss_store, "xss")[0]
    doc = c.get(f"/api/episodes/{eid}").json()
    assert doc["llm_calls"] and doc["llm_calls"][0]["model"] == "openai-api/stub/xss"
    assert doc["llm_calls"][0]["prompt_tokens"] > 0
    page = c.get(f"/episodes/{eid}").text
    assert "LLM calls" in page and "token usage and cost per role" in page
    assert "<th>prompt tokens</th>" in page and "<th>prompt_tokens</th>" not in page


def test_ambiguous_unknown_and_bad_ids(make_client, gated_store, tmp_path):
    twin = tmp_path / "twin.db"
    twin.write_bytes(gated_store.read_bytes())
    c = make_client(gated_store, twin)
    eid = _ids(gated_store, "gated")[0]
    amb = c.get(f"/episodes/{eid}")  # the same id in two stores
    assert amb.status_code == 300 and f"/episodes/{eid}?store=1" in amb.text
    assert c.get(f"/api/episodes/{eid}").status_code == 300
    assert c.get(f"/episodes/{eid}?store=1&run=gated").status_code == 200
    assert c.get("/episodes/ffffffffffff").status_code == 404
    assert c.get("/api/episodes/ffffffffffff").json()["error"].startswith("no episode")
    for bad in ("..%2F..%2Fetc%2Fpasswd", "%2Fetc%2Fpasswd", "a%00b", "x'or'1'='1"):
        assert c.get(f"/episodes/{bad}").status_code == 404
    assert c.get("/stores/7/runs/gated").status_code == 404
    assert c.get("/stores/0/runs/nope").status_code == 404
    assert c.get("/api/stores/0/runs/nope/episodes").json() == {
        "error": f"no run 'nope' in {gated_store.name}"}
    assert c.get("/static/../../bench/store.py").status_code == 404
    assert c.get("/static/style.css").status_code == 200
    assert c.get("/static/app.js").status_code == 200


def test_approve_and_reject_through_form_and_api(make_client, csrf, tmp_path, gated_store):
    store = tmp_path / "copy.db"
    store.write_bytes(gated_store.read_bytes())
    c = make_client(store)
    ids = _ids(store, "gated")
    token = csrf(c)
    pending = {"approval": "pending"}
    assert c.get("/api/stores/0/runs/gated/episodes", params=pending).json()["total"] == 8
    # reject without a comment: refused, nothing stored, the reason shown on the page
    r = c.post(f"/episodes/{ids[0]}/approval", data={"decision": "reject", "comment": " ",
                                                      "csrf": token})
    assert r.status_code == 400 and "a rejection needs a comment" in r.text
    # an error text is never taken from the URL (a forged link shows nothing)
    assert "forged" not in c.get(f"/episodes/{ids[0]}?error=forged").text
    # the buttons lead to a confirmation page; nothing is recorded before it is confirmed
    r = c.post(f"/episodes/{ids[0]}/approval", data={"decision": "approve", "comment": "",
                                                      "csrf": token}, follow_redirects=False)
    assert r.status_code == 200 and "Approve this agreement?" in r.text
    assert 'name="confirmed" value="yes"' in r.text and 'id="cancel"' in r.text
    assert c.get(f"/api/episodes/{ids[0]}").json()["approval"]["state"] == "pending"
    r = c.post(f"/episodes/{ids[0]}/approval", data={"decision": "approve", "comment": "",
                                                      "confirmed": "yes", "csrf": token},
               follow_redirects=False)
    assert r.status_code == 303
    assert c.get(f"/api/episodes/{ids[0]}").json()["approval"]["state"] == "approved"
    api = c.post(f"/api/episodes/{ids[1]}/approval",
                 json={"decision": "reject", "comment": "price too high"},
                 headers={"X-CSRF-Token": token})
    assert api.status_code == 200 and api.json()["approval"]["state"] == "rejected"
    again = c.post(f"/api/episodes/{ids[1]}/approval", json={"decision": "approve"},
                   headers={"X-CSRF-Token": token})
    assert again.status_code == 409 and "already rejected" in again.json()["error"]
    # the filtered views follow the store (cached orderings are keyed by its change stamp)
    assert c.get("/api/stores/0/runs/gated/episodes", params=pending).json()["total"] == 6
    assert c.get("/api/stores/0/runs/gated/episodes", params={"approval": "rejected"}
                 ).json()["episodes"][0]["id"] == ids[1]
    table = c.get("/api/stores/0/runs/gated/episodes").json()["episodes"]
    assert [e["approval"] for e in table[:3]] == ["approved", "rejected", "pending"]
    # the episode's own record is untouched; the decision lives in its own table
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT count(*) FROM episodes WHERE status='done'"
                            ).fetchone()[0] == 8
        rows = conn.execute("SELECT id, state, comment, decided_by FROM approvals WHERE "
                            "state != 'pending' ORDER BY decided").fetchall()
    assert rows == [(ids[0], "approved", None, "web"),
                    (ids[1], "rejected", "price too high", "web")]


def test_old_store_without_approvals_or_seq_index_browses(make_client, tmp_path, gated_store):
    store = tmp_path / "old.db"
    store.write_bytes(gated_store.read_bytes())
    with sqlite3.connect(store) as conn:
        conn.execute("DROP TABLE approvals")
        conn.execute("DROP INDEX episodes_by_seq")
    c = make_client(store)
    assert c.get("/stores/0/runs/gated").status_code == 200
    assert c.get("/api/stores/0/runs/gated/episodes",
                 params={"approval": "pending"}).json()["total"] == 0
    eid = _ids(store, "gated")[0]
    assert c.get(f"/api/episodes/{eid}").json()["approval"] is None
    # browsing wrote nothing: still no approvals table and no new index
    with sqlite3.connect(store) as conn:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert "approvals" not in names and "episodes_by_seq" not in names
    # a writer (accord bench, accord approve) adds the index on open
    Store.open(store, create=False).close()
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT 1 FROM sqlite_master WHERE name='episodes_by_seq'"
                            ).fetchone()


def test_not_a_store_is_reported_not_crashed(make_client, tmp_path, gated_store):
    junk = tmp_path / "junk.db"
    junk.write_text("not sqlite")
    c = make_client(gated_store, junk)
    page = c.get("/")
    assert page.status_code == 200 and "is not an accord store" in page.text
    assert c.get("/stores/1/runs/x").status_code == 503


def test_task_exchange_episode_has_its_figure(make_client, tmp_path):
    from accord.bench import BenchOptions, parse_config, run_bench

    cfg = parse_config({"name": "tx", "domain": "task-exchange", "scenarios": ["competitive"],
                        "agents": [["utility-aware", "utility-aware"]], "seeds": 1}, "<test>")
    run_bench(cfg, BenchOptions(store=str(tmp_path / "tx.db"), quiet=True))
    c = make_client(tmp_path / "tx.db")
    eid = _ids(tmp_path / "tx.db", "tx")[0]
    page = c.get(f"/episodes/{eid}").text
    png = re.search(r'<img class="figure" alt="[^"]+" src="data:image/png;base64,([^"]+)">',
                    page)
    assert png, "no Figure 2 on a task-exchange episode"
    import base64

    assert base64.b64decode(png.group(1)).startswith(b"\x89PNG\r\n")
