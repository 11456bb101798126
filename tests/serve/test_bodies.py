"""Request bodies of ``accord serve``: bounded in size and depth, a 400 or 413, never 500."""

from __future__ import annotations

import json

import pytest
from starlette.exceptions import HTTPException

from accord.bench.store import Store
from accord.serve.bodies import MAX_DEPTH, json_depth, parse_json


def _pending(store) -> str:
    with Store.open(store, create=False) as st:
        return str(st.conn.execute("SELECT id FROM approvals WHERE state='pending'"
                                   ).fetchone()[0])


@pytest.fixture
def store(tmp_path, gated_store):
    path = tmp_path / "b.db"
    path.write_bytes(gated_store.read_bytes())
    return path


@pytest.mark.parametrize("body", [
    b"[" * 50_000,
    b'{"decision": ' + b"[" * 5000 + b"]" * 5000 + b"}",
    b'{"decision": "approve", "comment": ' + b'{"a":' * 3000 + b"1" + b"}" * 3000 + b"}",
])
def test_deeply_nested_json_is_a_400(make_client, csrf, store, body):
    c = make_client(store)
    eid = _pending(store)
    r = c.post(f"/api/episodes/{eid}/approval", content=body,
               headers={"X-CSRF-Token": csrf(c), "content-type": "application/json"})
    assert r.status_code == 400, r.text
    assert "nested deeper than" in r.json()["error"]
    assert c.get(f"/api/episodes/{eid}").json()["approval"]["state"] == "pending"


def test_malformed_and_oversized_bodies_are_400_or_413(make_client, csrf, store):
    c = make_client(store)
    eid = _pending(store)
    url = f"/api/episodes/{eid}/approval"
    hdr = {"X-CSRF-Token": csrf(c), "content-type": "application/json"}
    cases = {b"\xff\xfe{}": (400, "not UTF-8"), b"{": (400, "not JSON"),
             b"[1, 2]": (400, "JSON object"),
             json.dumps({"decision": "approve", "comment": "x" * 70_000}).encode():
             (413, "over")}
    for body, (status, words) in cases.items():
        r = c.post(url, content=body, headers=hdr)
        assert r.status_code == status and words in r.json()["error"], (body[:20], r.text)
    # a form with a file where none is expected, or too many fields: 400
    r = c.post(url, headers={"X-CSRF-Token": csrf(c)},
               files={"decision": ("a.txt", b"approve", "text/plain")})
    assert r.status_code == 400
    r = c.post(url, headers={"X-CSRF-Token": csrf(c)},
               data={f"f{i}": "x" for i in range(500)})
    assert r.status_code == 400
    # the HTML route answers a page, also 400
    r = c.post(f"/episodes/{eid}/approval", content=b"[" * 50_000, follow_redirects=False,
               headers=hdr)
    assert r.status_code == 400 and "nested deeper" in r.text
    assert c.get(f"/api/episodes/{eid}").json()["approval"]["state"] == "pending"
    ok = c.post(url, json={"decision": "approve", "comment": {"why": [1, [2, [3]]]}},
                headers={"X-CSRF-Token": csrf(c)})
    assert ok.status_code == 200 and ok.json()["approval"]["state"] == "approved"


def test_json_depth_skips_strings_and_escapes():
    assert json_depth('{"a": [1, {"b": "[[[{{{"}]}') == 3
    assert json_depth(r'["\"[[[", "\\", [[]]]') == 3
    assert json_depth("[" * 10 + "]" * 10, limit=4) == 5  # stops past the limit
    assert json_depth("1") == 0


def test_parse_json_bounds_depth_and_reads_the_rest():
    assert parse_json(b'{"a": [1, 2]}') == {"a": [1, 2]}
    with pytest.raises(HTTPException) as exc:
        parse_json(b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1))
    assert exc.value.status_code == 400
    assert parse_json(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) is not None


def test_hostile_store_numbers_in_urls_are_404_not_500(make_client, store):
    c = make_client(store)
    for url in ("/stores/" + "9" * 5000 + "/runs/gated", "/api/stores/" + "9" * 5000
                + "/runs/gated/episodes", "/stores/²/runs/gated", "/stores/-1/runs/gated",
                "/api/stores/99999999999/runs/gated/aggregate", "/episodes/abc?store="
                + "9" * 5000, "/api/episodes/abc?store=٣"):
        r = c.get(url)
        assert r.status_code == 404, (url[:40], r.status_code)
    assert c.get("/stores/0/runs/gated").status_code == 200
    assert c.get("/api/stores/0/runs/gated/episodes").status_code == 200
