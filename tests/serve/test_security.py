"""Token, CSRF, Host and escaping: what keeps ``accord serve`` safe to run."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from accord.bench.store import Store
from accord.serve.security import Guard, check_csrf, csrf_field, csrf_token

#: the payload the xss_store fixture's model says (tests/serve/conftest.py)
XSS = "<script>alert(1)</script> <img src=x onerror=alert(2)>"
TOKEN = "s3cret-token-for-tests"


def _first(store: Path, run: str) -> str:
    st = Store.open_readonly(store)
    try:
        return st.episodes(run)[0].id
    finally:
        st.conn.close()


def test_token_is_needed_for_every_request(make_client, gated_store):
    c = make_client(gated_store, token=TOKEN)
    eid = _first(gated_store, "gated")
    for url in ("/", "/api/stores", "/stores/0/runs/gated", f"/episodes/{eid}",
                f"/api/episodes/{eid}", "/static/style.css", "/nope"):
        r = c.get(url)
        assert r.status_code == 401, url
        assert "access token" in r.text and "gated" not in r.text
    assert c.get("/", headers={"Authorization": "Bearer wrong-token"}).status_code == 401
    assert c.get("/?token=wrong-token").status_code == 401
    assert c.get("/api/stores", headers={"Authorization": f"Bearer {TOKEN}"}).status_code \
        == 200
    assert c.get("/api/stores", headers={"X-Accord-Token": TOKEN}).status_code == 200
    assert c.post(f"/api/episodes/{eid}/approval", json={"decision": "approve"}
                  ).status_code == 401


def test_token_from_url_once_sets_a_cookie(make_client, gated_store):
    c = make_client(gated_store, token=TOKEN)
    r = c.get(f"/stores/0/runs/gated?token={TOKEN}&page=1", follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] == "/stores/0/runs/gated?page=1"  # token dropped from URL
    cookie = r.headers["set-cookie"]
    assert f"accord_token={TOKEN}" in cookie and "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie
    assert c.get("/stores/0/runs/gated").status_code == 200  # the cookie does it now


def test_csrf_refuses_posts_without_the_browser_token(make_client, csrf, tmp_path,
                                                       gated_store):
    store = tmp_path / "c.db"
    store.write_bytes(gated_store.read_bytes())
    c = make_client(store)
    eid = _first(store, "gated")
    token = csrf(c)
    for kwargs in ({"data": {"decision": "approve"}},
                   {"data": {"decision": "approve", "csrf": "x" * 32}},
                   {"json": {"decision": "approve"}},
                   {"json": {"decision": "approve"}, "headers": {"X-CSRF-Token": "nope"}},
                   {"files": {"decision": (None, "approve")}}):
        r = c.post(f"/episodes/{eid}/approval", follow_redirects=False, **kwargs)
        assert r.status_code == 403, kwargs
    assert c.get(f"/api/episodes/{eid}").json()["approval"]["state"] == "pending"
    # a multipart form with the token passes
    r = c.post(f"/api/episodes/{eid}/approval",
               files={"decision": (None, "approve"), "csrf": (None, token)})
    assert r.status_code == 200 and r.json()["approval"]["state"] == "approved"
    # a GET never changes anything
    assert c.get(f"/episodes/{eid}/approval").status_code == 405
    huge = c.post(f"/api/episodes/{eid}/approval", content=b"x" * (3 * 1024 * 1024),
                  headers={"X-CSRF-Token": token, "content-type": "application/json"})
    assert huge.status_code == 413


def test_csrf_cookie_is_http_only_and_strict(make_client, gated_store):
    c = make_client(gated_store)
    cookie = c.get("/").headers["set-cookie"]
    assert cookie.startswith("accord_csrf=") and "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie


def test_other_host_names_are_refused(make_client, gated_store):
    c = make_client(gated_store)
    assert c.get("/", headers={"Host": "evil.example"}).status_code == 400
    assert c.get("/", headers={"Host": "localhost:8765"}).status_code == 200


def test_guard_covers_a_mounted_app():
    """What ``/play`` gets: the guard checks its posts; the helpers give its forms the
    token."""
    async def form(request: Request) -> PlainTextResponse:
        return PlainTextResponse(f"{csrf_field(request)}|{csrf_token(request)}")

    async def move(request: Request) -> PlainTextResponse:
        await check_csrf(request)
        data = await request.form()
        return PlainTextResponse(f"moved {data['move']}")

    inner = Starlette(routes=[Route("/form", form), Route("/move", move, methods=["POST"])])
    c = TestClient(Guard(inner, TOKEN), base_url="http://127.0.0.1")
    assert c.get("/form").status_code == 401
    c.headers["X-Accord-Token"] = TOKEN
    field, token = c.get("/form").text.split("|")
    assert field == f'<input type="hidden" name="csrf" value="{token}">'
    assert c.post("/move", data={"move": "offer"}).status_code == 403
    ok = c.post("/move", data={"move": "offer", "csrf": token})
    assert ok.status_code == 200 and ok.text == "moved offer"


def test_model_text_is_escaped_in_pages(make_client, xss_store):
    c = make_client(xss_store)
    eid = _first(xss_store, "xss")
    page = c.get(f"/episodes/{eid}").text
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(2)&gt;" in page
    doc = c.get(f"/api/episodes/{eid}").json()
    moves = [e["move"] for e in doc["trajectory"] if e["kind"] == "move"]
    assert any((m.get("message") or (m.get("counter") or {}).get("message")) == XSS
               for m in moves)  # the JSON twin keeps the text as it was said
    run = c.get("/stores/0/runs/xss").text
    assert "<script>" not in run.replace('<script src="/static/app.js" defer></script>', "")


@pytest.mark.parametrize("field", ["comment"])
def test_comment_is_escaped(make_client, csrf, tmp_path, gated_store, field):
    store = tmp_path / "e.db"
    store.write_bytes(gated_store.read_bytes())
    c = make_client(store)
    eid = _first(store, "gated")
    confirm = c.post(f"/episodes/{eid}/approval", data={"decision": "reject", field: XSS,
                                                         "csrf": csrf(c)}).text
    # the confirmation page repeats it (as text, and in its hidden field as a value)
    assert "Reject this agreement?" in confirm
    assert "<script>alert" not in confirm and "<img src=x" not in confirm
    c.post(f"/episodes/{eid}/approval", data={"decision": "reject", field: XSS,
                                               "confirmed": "yes", "csrf": csrf(c)})
    page = c.get(f"/episodes/{eid}").text
    assert "rejected" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<img src=x" not in page


def test_play_without_the_play_feature_is_a_clear_error(monkeypatch, gated_store, tmp_path):
    """An accord without ``accord.play.web:create_app`` refuses ``play=True`` with a
    message naming what is missing (``accord serve --play`` exits 2 with it). The real
    mount is tested in ``test_play_mount.py``."""
    import sys
    import types

    monkeypatch.setitem(sys.modules, "accord.play.web", types.ModuleType("accord.play.web"))
    from accord.serve.app import create_app

    with pytest.raises(RuntimeError, match=r"--play needs accord\.play\.web:create_app"):
        create_app([gated_store], play=True, play_store=tmp_path / "play.db")


def test_origin_null_is_refused_on_state_changes(make_client, csrf, tmp_path, gated_store):
    """Sandboxed frames and ``file:``/``data:`` pages send ``Origin: null``: never ours."""
    store = tmp_path / "n.db"
    store.write_bytes(gated_store.read_bytes())
    c = make_client(store)
    eid = _first(store, "gated")
    token = csrf(c)
    for origin in ("null", "NULL", " null"):
        r = c.post(f"/api/episodes/{eid}/approval", json={"decision": "approve"},
                   headers={"X-CSRF-Token": token, "origin": origin})
        assert r.status_code == 403 and "cross-site" in r.text, origin
    r = c.post(f"/episodes/{eid}/approval", data={"decision": "approve", "csrf": token},
               headers={"origin": "null"}, follow_redirects=False)
    assert r.status_code == 403
    assert c.get(f"/api/episodes/{eid}").json()["approval"]["state"] == "pending"
    # the same request from the page's own origin passes
    r = c.post(f"/api/episodes/{eid}/approval", json={"decision": "approve"},
               headers={"X-CSRF-Token": token, "origin": "http://127.0.0.1"})
    assert r.status_code == 200 and r.json()["approval"]["state"] == "approved"


def test_a_planted_csrf_cookie_does_not_count(make_client, tmp_path, gated_store):
    """A cookie the server did not issue (set by another page or service on the host) is
    replaced, and a request repeating the planted value is refused."""
    store = tmp_path / "p.db"
    store.write_bytes(gated_store.read_bytes())
    c = make_client(store)
    eid = _first(store, "gated")
    planted = "attacker-chosen-value-0123456789abcdef"
    for origin in ({}, {"origin": "null"}):
        c.cookies.set("accord_csrf", planted)
        r = c.post(f"/api/episodes/{eid}/approval", json={"decision": "approve"},
                   headers={"X-CSRF-Token": planted, **origin})
        assert r.status_code == 403, origin
        c.cookies.set("accord_csrf", planted)
        r = c.post(f"/episodes/{eid}/approval", data={"decision": "approve",
                                                      "csrf": planted, **origin},
                   follow_redirects=False)
        assert r.status_code == 403, origin
    assert c.get(f"/api/episodes/{eid}").json()["approval"]["state"] == "pending"
    # a planted cookie is answered with a fresh one the server signed
    c.cookies.clear()
    c.cookies.set("accord_csrf", planted)
    fresh = c.get("/").headers["set-cookie"]
    assert fresh.startswith("accord_csrf=") and planted not in fresh
    # nor does a token issued by another server (another secret) count here
    other = make_client(store)
    other.get("/")
    foreign = str(other.cookies.get("accord_csrf"))
    c.cookies.clear()
    c.cookies.set("accord_csrf", foreign)
    r = c.post(f"/api/episodes/{eid}/approval", json={"decision": "approve"},
               headers={"X-CSRF-Token": foreign})
    assert r.status_code == 403


def test_issued_tokens_are_signed_by_the_guard():
    guard = Guard(PlainTextResponse("x"))
    token = guard.issue()
    assert guard.issued(token) and token != guard.issue()
    nonce, _, mac = token.rpartition(".")
    assert not guard.issued(f"{nonce}x.{mac}") and not guard.issued(f"{nonce}.{mac[:-1]}")
    assert not guard.issued("") and not guard.issued(None) and not guard.issued(mac)
    assert not Guard(PlainTextResponse("x")).issued(token)  # another secret
    assert Guard(PlainTextResponse("x"), secret=b"k" * 32).issued(
        Guard(PlainTextResponse("x"), secret=b"k" * 32).issue())
