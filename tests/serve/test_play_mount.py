"""``accord serve --play``: the play app mounted at ``/play`` under serve's one token/CSRF
scheme -- over HTTP (test client and the real command) and as a person in Chromium."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from accord.bench import approvals
from accord.bench.store import Store
from accord.serve.app import create_app
from accord.testing.live import announced_url

TOKEN = "play-mount-token-123"
GAME = {"domain": "bargaining", "scenario.bargaining": "buyer-seller", "opponent": "boulware",
        "seat": "0"}


@pytest.fixture
def gated_copy(tmp_path: Path, gated_store: Path) -> Path:
    path = tmp_path / "gated.db"
    path.write_bytes(gated_store.read_bytes())
    return path


def _csrf_in(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, "the page has no CSRF field"
    return found.group(1)


# -- HTTP: the mounted app under serve's guard ---------------------------------------------
def test_play_is_mounted_with_serves_csrf(tmp_path: Path, gated_copy: Path) -> None:
    app = create_app([gated_copy], play=True, play_store=tmp_path / "play.db")
    with TestClient(app, base_url="http://127.0.0.1") as c:
        page = c.get("/play/")
        assert page.status_code == 200 and "New negotiation" in page.text
        token = _csrf_in(page.text)
        # one scheme: the form carries serve's accord_csrf cookie value; no second cookie
        assert token == c.cookies.get("accord_csrf")
        assert c.cookies.get("accord_play_csrf") is None
        assert c.post("/play/new", data=GAME, follow_redirects=False).status_code == 403
        assert c.post("/play/new", data={**GAME, "csrf": "forged"},
                      follow_redirects=False).status_code == 403
        cross = c.post("/play/new", data={**GAME, "csrf": token}, follow_redirects=False,
                       headers={"origin": "http://evil.example"})
        assert cross.status_code == 403 and "cross-site" in cross.text
        ok = c.post("/play/new", data={**GAME, "csrf": token}, follow_redirects=False)
        assert ok.status_code == 303 and ok.headers["location"].startswith("/play/g/")
        game = c.get(ok.headers["location"])
        assert game.status_code == 200 and "buyer-seller" in game.text
        # the same token serves serve's own forms (one browser, one token)
        assert c.get("/play/g/nope").status_code == 404
        assert c.get("/play/new").status_code == 405  # state changes are POST only


def test_play_under_serve_opens_no_server_path_and_refuses_origin_null(
        tmp_path: Path, gated_copy: Path) -> None:
    """Issue 24: ``POST /play/new`` with a path played any readable scenario file and
    told whether a path existed; ``Origin: null`` and planted cookies passed CSRF."""
    secret = tmp_path / "creds.yaml"
    secret.write_text("db_host: 10.0.0.1\n")
    app = create_app([gated_copy], play=True, play_store=tmp_path / "play.db")
    with TestClient(app, base_url="http://127.0.0.1") as c:
        token = _csrf_in(c.get("/play/").text)
        errors = set()
        for path in ("/etc/passwd", "/proc/self/environ", "../../../../etc/passwd",
                     "/dev/zero", "/dev/stdin", str(secret), "/no/such.yaml"):
            r = c.post("/play/new", data={**GAME, "csrf": token,
                                           "scenario.bargaining": path})
            assert r.status_code == 400 and "unknown bargaining scenario" in r.text, path
            assert "db_host" not in r.text and "No such file" not in r.text
            errors.add(re.sub(r"&#39;.*?&#39;;", "NAME;", re.search(
                r'id="error">(.*?)</p>', r.text, re.S).group(1)))  # type: ignore[union-attr]
        assert len(errors) == 1, errors
        r = c.post("/play/new", data={**GAME, "csrf": token}, headers={"origin": "null"},
                   follow_redirects=False)
        assert r.status_code == 403
        planted = "planted-cookie-value-0123456789"
        c.cookies.set("accord_csrf", planted)
        r = c.post("/play/new", data={**GAME, "csrf": planted}, follow_redirects=False)
        assert r.status_code == 403


def test_cross_site_posts_to_serve_are_refused(gated_copy: Path) -> None:
    with TestClient(create_app([gated_copy]), base_url="http://127.0.0.1") as c:
        c.get("/")
        token = str(c.cookies.get("accord_csrf"))
        with Store.open(gated_copy, create=False) as st:
            eid = st.conn.execute("SELECT id FROM approvals WHERE state='pending'"
                                  ).fetchone()[0]
        r = c.post(f"/api/episodes/{eid}/approval", json={"decision": "approve"},
                   headers={"X-CSRF-Token": token, "origin": "http://evil.example"})
        assert r.status_code == 403 and "cross-site" in r.text
        with Store.open(gated_copy, create=False) as st:
            assert approvals.get(st.conn, "gated", eid).state == "pending"  # type: ignore[union-attr]
        r = c.post(f"/api/episodes/{eid}/approval", json={"decision": "approve"},
                   headers={"X-CSRF-Token": token, "origin": "http://127.0.0.1"})
        assert r.status_code == 200 and r.json()["approval"]["state"] == "approved"


def test_token_covers_play_and_the_play_store_is_served(tmp_path: Path, gated_copy: Path
                                                        ) -> None:
    app = create_app([gated_copy], token=TOKEN, play=True, play_store=tmp_path / "play.db")
    with TestClient(app, base_url="http://127.0.0.1") as c:
        for path in ("/play/", "/play/static/play.js", "/play/g/nope/state"):
            assert c.get(path).status_code == 401, path
        assert c.post("/play/new", data=GAME).status_code == 401
        auth = {"X-Accord-Token": TOKEN}
        page = c.get("/play/", headers=auth)
        assert page.status_code == 200
        token = _csrf_in(page.text)
        # the access token alone does not make a POST: the CSRF token is still needed
        assert c.post("/play/new", data=GAME, headers=auth,
                      follow_redirects=False).status_code == 403
        ok = c.post("/play/new", data={**GAME, "csrf": token}, headers=auth,
                    follow_redirects=False)
        assert ok.status_code == 303
        stores = c.get("/api/stores", headers=auth).json()["stores"]
        assert [s["name"] for s in stores] == [gated_copy.name, "play.db"]


# -- the real command ------------------------------------------------------------------------
class Served:
    """``accord serve ... --play`` running as a subprocess."""

    def __init__(self, url: str, play_store: Path, proc: subprocess.Popen[str]) -> None:
        self.url, self.play_store, self.proc = url, play_store, proc


def start_serve(args: list[str], cwd: Path) -> tuple[str, subprocess.Popen[str], str]:
    """``accord serve ARGS --port 0`` (token from the environment, as the README
    advises) once it answers: its URL, its process and what it wrote to stderr so far."""
    env = {**os.environ, "ACCORD_SERVE_TOKEN": TOKEN}
    # --port 0: the system picks the port as it binds, and the server says which
    proc = subprocess.Popen([sys.executable, "-m", "accord", "serve", *args, "--port", "0"],
                            cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    url, said = announced_url(proc)
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(url + "/", timeout=5)
            return url, proc, said
        except httpx.TransportError:
            if proc.poll() is not None:
                raise AssertionError(f"accord serve exited: {proc.communicate()[1]}") from None
            if time.monotonic() > deadline:
                proc.terminate()
                raise
            time.sleep(0.1)


def stop(proc: subprocess.Popen[str], said: str = "") -> str:
    """Stop the server; what it wrote to stderr (never the token), ``said`` (what
    :func:`start_serve` read of it) first."""
    proc.terminate()
    _, rest = proc.communicate(timeout=30)
    err = said + rest
    assert TOKEN not in err  # a secret: never printed
    return err


@pytest.fixture
def served(tmp_path: Path, gated_copy: Path) -> Iterator[Served]:
    """``accord serve gated.db --play --play-store play.db --require-approval``."""
    play_store = tmp_path / "play.db"
    url, proc, said = start_serve([str(gated_copy), "--play", "--play-store", str(play_store),
                                   "--require-approval"], tmp_path)
    try:
        yield Served(url, play_store, proc)
    finally:
        stop(proc, said)


def test_serve_play_in_an_empty_folder_serves_the_play_store(tmp_path: Path) -> None:
    """No stores and no ./runs yet: ``accord serve --play`` still starts, serving the
    play store it will create (runs/play.db)."""
    url, proc, said = start_serve(["--play"], tmp_path)
    try:
        auth = {"X-Accord-Token": TOKEN}
        assert httpx.get(url + "/play/", headers=auth, timeout=60).status_code == 200
        stores = httpx.get(url + "/api/stores", headers=auth, timeout=60).json()["stores"]
        assert [s["name"] for s in stores] == ["play.db"]
    finally:
        err = stop(proc, said)
    assert "accord serve: 1 store(s) on" in err


def test_serve_play_command_mounts_the_app(served: Served) -> None:
    with httpx.Client(base_url=served.url, timeout=30) as c:
        assert c.get("/play/").status_code == 401  # --token covers /play
        assert c.post("/play/new", data=GAME).status_code == 401
        c.headers["X-Accord-Token"] = TOKEN
        page = c.get("/play/")
        assert page.status_code == 200 and "New negotiation" in page.text
        token = _csrf_in(page.text)
        assert c.post("/play/new", data=GAME).status_code == 403
        ok = c.post("/play/new", data={**GAME, "csrf": token})
        assert ok.status_code == 303 and ok.headers["location"].startswith("/play/g/")
        state = c.get(ok.headers["location"] + "/state").json()
        assert state["status"] in ("your_turn", "waiting")


# -- a person, in Chromium -----------------------------------------------------------------
def test_person_plays_on_play_then_approves_it_in_the_run_table(
        served: Served, fresh_browser: Any) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import Select, WebDriverWait

    # a page that reloads between finding an element and reading it: look again
    stale = (StaleElementReferenceException,)

    d = fresh_browser

    def wait(css: str, timeout: float = 30) -> Any:
        return WebDriverWait(d, timeout, ignored_exceptions=stale).until(
            ec.presence_of_element_located((By.CSS_SELECTOR, css)))

    def my_turn() -> None:
        WebDriverWait(d, 30, ignored_exceptions=stale).until(
            lambda drv: (drv.find_elements(By.ID, "move-form")
                         or drv.find_elements(By.ID, "outcome"))
            and drv.execute_script("return document.body.dataset.ready === '1'"))

    # without the token, /play is closed too; the printed URL?token=... opens everything
    d.get(served.url + "/play/")
    assert "needs its access token" in d.find_element(By.TAG_NAME, "body").text
    d.get(served.url + f"/play/?token={TOKEN}")
    wait("#start")
    assert "token" not in d.current_url
    # a new negotiation against boulware, the person in the buyer's seat
    d.find_element(By.ID, "domain-bargaining").click()
    Select(d.find_element(By.ID, "scenario-bargaining")).select_by_value("buyer-seller")
    opp = d.find_element(By.ID, "opponent")
    opp.clear()
    opp.send_keys("boulware")
    Select(d.find_element(By.ID, "seat")).select_by_value("0")
    d.find_element(By.ID, "start").click()
    my_turn()
    assert "Your BATNA" in d.find_element(By.CSS_SELECTOR, ".private").text
    # the package best for the seller: boulware accepts it at once
    Select(d.find_element(By.ID, "pkg-price")).select_by_value("1200")
    Select(d.find_element(By.ID, "pkg-delivery_days")).select_by_value("10")
    Select(d.find_element(By.ID, "pkg-warranty_years")).select_by_value("0")
    WebDriverWait(d, 10, ignored_exceptions=stale).until(
        lambda drv: drv.find_element(By.ID, "live-utility").text == "0.000")
    d.find_element(By.ID, "message").send_keys("<b>deal?</b>")
    d.find_element(By.ID, "btn-offer").click()
    my_turn()
    wait("#outcome")
    assert d.find_element(By.ID, "status").text == "agreement"
    eid = d.find_element(By.ID, "episode").text
    assert re.fullmatch(r"[0-9a-f]{8,}", eid), eid
    assert "pending" in d.find_element(By.ID, "approval").text
    link = d.find_element(By.ID, "transcript-link").get_attribute("href")
    assert link == f"{served.url}/episodes/{eid}"
    # the served run table lists the play store's run; the episode is there, pending
    d.get(served.url + "/")
    d.find_element(By.LINK_TEXT, "play").click()
    wait("table.episodes")
    table = d.current_url
    rows = d.find_elements(By.CSS_SELECTOR, f"table.episodes tbody tr[data-id='{eid}']")
    assert len(rows) == 1
    assert rows[0].find_element(By.CSS_SELECTOR, "td.approval").text == "awaiting approval"
    rows[0].find_element(By.TAG_NAME, "a").click()
    wait("table.transcript")
    assert eid in d.find_element(By.TAG_NAME, "h1").text
    messages = [c.text for c in d.find_elements(By.CSS_SELECTOR, "table.transcript td.msg")]
    assert "<b>deal?</b>" in messages  # the person's text, shown as text
    assert "Agreement artefact" in d.page_source
    # approve it there (the button leads to a confirmation page)
    d.find_element(By.ID, "approve").click()
    wait("#confirm").click()
    WebDriverWait(d, 20, ignored_exceptions=stale).until(
        lambda drv: "approved" in drv.find_element(By.ID, "approval").text)
    with Store.open(served.play_store, create=False) as st:
        appr = approvals.get(st.conn, "play", eid)
        assert appr is not None and appr.state == "approved" and appr.decided_by == "web"
        row = st.find(eid)
        assert row.outcome == "agreement" and row.spec["agents"] == ["human", "boulware"]
    d.get(table)
    wait("table.episodes")
    row = d.find_element(By.CSS_SELECTOR, f"table.episodes tbody tr[data-id='{eid}']")
    assert row.find_element(By.CSS_SELECTOR, "td.approval").text == "approved"
