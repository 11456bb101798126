"""HTTP-level tests of the play app: every route, CSRF, uploads, errors, the store."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from accord.bench.store import Store
from accord.play.web import PlaySettings, create_app
from accord.play.web.app import CSRF_COOKIE

SCENARIO = """\
name: tiny-upload
issues:
  price: [1, 2, 3]
parties:
  a:
    batna: 0.1
    utility:
      {type: linear_additive, weights: {price: 1.0}, values: {price: {1: 0.0, 2: 0.5, 3: 1.0}}}
  b:
    batna: 0.1
    utility:
      {type: linear_additive, weights: {price: 1.0}, values: {price: {1: 1.0, 2: 0.5, 3: 0.0}}}
"""


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(tmp_path / "play.sqlite", PlaySettings(max_games=3))
    with TestClient(app, base_url="http://127.0.0.1") as c:
        c.get("/")
        yield c


def token(c: TestClient) -> str:
    return str(c.cookies.get(CSRF_COOKIE))


def new(c: TestClient, **form: Any) -> Any:
    data = {"csrf": token(c), "domain": "bargaining", "scenario.bargaining": "buyer-seller",
            "opponent": "boulware", "seat": "0", **form}
    return c.post("/new", data=data, follow_redirects=False)


def until(c: TestClient, url: str, status: str) -> dict[str, Any]:
    for _ in range(400):
        state = c.get(url + "/state").json()
        if state["status"] == status:
            return dict(state)
        time.sleep(0.01)
    raise AssertionError(f"game never reached {status}: {state}")


def test_new_page_sets_csrf_cookie_and_a_strict_csp(client: TestClient) -> None:
    r = client.get("/")
    assert r.status_code == 200 and "New negotiation" in r.text
    assert token(client) and f'value="{token(client)}"' in r.text
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert "buyer-seller" in r.text and "prisoners-dilemma" in r.text
    assert client.get("/static/play.js").status_code == 200
    assert not re.search(r'(src|href)="(https?:)?//', r.text)  # nothing from the internet


def test_state_changing_requests_need_the_csrf_token_and_same_origin(
        client: TestClient) -> None:
    assert new(client, csrf="").status_code == 403
    assert new(client, csrf="forged").status_code == 403
    r = client.post("/new", data={"csrf": token(client), "domain": "games"},
                    headers={"origin": "http://evil.example"})
    assert r.status_code == 403 and "cross-site" in r.text
    assert client.get("/new").status_code == 405  # never a GET


def test_bad_requests_get_specific_escaped_errors(client: TestClient) -> None:
    r = new(client, opponent="<script>alert(1)</script>")
    assert r.status_code == 400 and "<script>alert" not in r.text
    assert "&lt;script&gt;" in r.text and "unknown agent" in r.text.lower()
    assert "not another person" in new(client, opponent="human").text
    assert "unknown domain" in new(client, domain="chess").text
    assert "seed must be a whole number" in new(client, seed="x").text
    assert "rounds must be a whole number" in new(client, rounds="0").text
    r = new(client, upload="issues: [oops")
    assert r.status_code == 400 and "uploaded scenario" in r.text
    assert client.get("/g/nope").status_code == 404
    assert client.get("/g/nope/state").status_code == 404


def test_uploaded_scenario_is_validated_kept_and_played(client: TestClient, tmp_path: Path
                                                        ) -> None:
    r = client.post("/new", data={"csrf": token(client), "domain": "bargaining",
                                  "scenario.bargaining": "buyer-seller", "opponent": "boulware",
                                  "seat": "1"},
                    files={"upload": ("tiny.yaml", SCENARIO.encode(), "text/yaml")},
                    follow_redirects=False)
    assert r.status_code == 303, r.text
    url = r.headers["location"]
    until(client, url, "your_turn")
    page = client.get(url).text
    assert "tiny-upload" in page or "scenarios" in page
    kept = list((tmp_path / "play.sqlite.scenarios").glob("*.yaml"))
    assert len(kept) == 1 and kept[0].read_text() == SCENARIO


def test_a_move_through_the_form_reaches_the_engine_and_the_store(client: TestClient,
                                                                  tmp_path: Path) -> None:
    url = new(client, seat="1").headers["location"]
    state = until(client, url, "your_turn")
    page = client.get(url).text
    assert 'id="on-table"' in page and "btn-accept" in page
    util = client.get(url + "/utility", params={"pkg.price": "1200", "pkg.delivery_days": "10",
                                                "pkg.warranty_years": "0"}).json()
    assert util == {"utility": 1.0}
    assert client.get(url + "/utility", params={"pkg.price": "1200"}).json() == {
        "utility": None}
    # a stale form (old version) is ignored, the current one is taken
    client.post(url + "/move", data={"csrf": token(client), "version": "0", "kind": "walk"})
    assert client.get(url + "/state").json()["status"] == "your_turn"
    client.post(url + "/move", data={"csrf": token(client), "version": str(state["version"]),
                                     "kind": "counter", "pkg.price": "1200",
                                     "pkg.delivery_days": "10", "pkg.warranty_years": "0",
                                     "message": "my counter"})
    until(client, url, "your_turn")
    page = client.get(url).text
    assert "my counter" in page
    state = client.get(url + "/state").json()
    client.post(url + "/leave", data={"csrf": token(client)})
    done = until(client, url, "done")
    page = client.get(url).text
    assert "quit" in page and done["episode"] in page
    with Store.open(tmp_path / "play.sqlite", create=False) as store:
        row = store.find(done["episode"])
        assert row.outcome == "no_deal" and row.summary["reason"] == "quit"
        assert row.summary["who"] == "seller"
        assert store.trajectory("play", row.id)


def test_games_started_at_once_are_capped(client: TestClient) -> None:
    for _ in range(3):
        assert new(client).status_code == 303
    r = new(client)
    assert r.status_code == 400 and "games are running" in r.text
