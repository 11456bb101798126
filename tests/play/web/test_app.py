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


# -- the form opens only what the app serves (issue 24) -----------------------------------
GAME_FILE = """\
{"name": "my-game", "type": "normal", "players": ["Ann", "Ben"],
 "actions": [["C", "D"], ["C", "D"]], "payoffs": [[[3, 3], [0, 5]], [[5, 0], [1, 1]]]}
"""


def _error_of(page: str) -> str:
    found = re.search(r'<p class="error" id="error">(.*?)</p>', page, re.S)
    assert found, page[:500]
    return found.group(1)


def test_the_form_never_opens_a_server_path(client: TestClient, tmp_path: Path) -> None:
    """Paths in the scenario fields are unknown names: refused with the same message
    whether the path exists, is a device, a directory, a secret-looking YAML file or even
    a valid scenario or game file -- nothing about the file system shows."""
    secret = tmp_path / "secret.yaml"
    secret.write_text("db_host: 10.0.0.1\ndb_password: hunter2\n")
    real = tmp_path / "real.yaml"
    real.write_text(SCENARIO)  # a valid scenario file on the server: still not playable
    game = tmp_path / "real.json"
    game.write_text(GAME_FILE)
    paths = ["/etc/passwd", "/proc/self/environ", "../../../../etc/passwd", "/dev/zero",
             "/dev/stdin", "/etc", "/no/such/file.yaml", str(secret), str(real), str(game),
             "bargaining/../../etc/passwd.yaml"]
    for domain in ("bargaining", "games"):
        messages = set()
        for path in paths:
            r = new(client, domain=domain, **{f"scenario.{domain}": path})
            assert r.status_code == 400, (domain, path, r.status_code)
            error = _error_of(r.text)
            assert "unknown" in error and "choose one of" in error, error
            for leak in ("db_host", "hunter2", "root:", "No such file", "directory",
                         "Errno", "device", "not a file", "exist"):
                assert leak not in error, (path, error)
            from markupsafe import escape

            shown = str(escape(repr(path[:40] + ("..." if len(path) > 40 else ""))))
            messages.add(error.replace(shown, "NAME"))
        assert len(messages) == 1, messages  # one message, whatever the path is
    for path in ("/etc/passwd", "../../../../etc/passwd", "/dev/zero"):
        r = new(client, domain="deal-or-no-deal", **{"scenario.deal-or-no-deal": path})
        assert r.status_code == 400 and "must look like test/" in _error_of(r.text)
    assert not any(g for g in client.app.state.play.games.games.values())  # none started
    # catalog names still play, and an upload is kept under the app's own name
    assert new(client).status_code == 303
    assert new(client, domain="games", opponent="rational",
               **{"scenario.games": "stag-hunt"}).status_code == 303


def test_an_uploaded_file_is_the_only_path_a_game_may_name(client: TestClient,
                                                           tmp_path: Path) -> None:
    games = client.app.state.play.games
    r = client.post("/new", data={"csrf": token(client), "domain": "bargaining",
                                  "opponent": "boulware", "seat": "1"},
                    files={"upload": ("tiny.yaml", SCENARIO.encode(), "text/yaml")},
                    follow_redirects=False)
    assert r.status_code == 303, r.text
    saved = next(iter(games.uploaded))
    assert Path(saved).parent == tmp_path / "play.sqlite.scenarios"
    # naming that same file in the form (instead of uploading it) is refused too: a
    # request never names a path, even one the app wrote
    r = new(client, **{"scenario.bargaining": saved})
    assert r.status_code == 400 and "unknown bargaining scenario" in r.text
    # an oversized upload is refused before it is parsed
    big = b"name: x\n" + b"#" * (300 * 1024)
    r = client.post("/new", data={"csrf": token(client), "domain": "bargaining",
                                  "opponent": "boulware", "seat": "0"},
                    files={"upload": ("big.yaml", big, "text/yaml")}, follow_redirects=False)
    assert r.status_code == 400 and "larger than" in r.text


def test_whole_numbers_are_ascii_digits_of_sane_length(client: TestClient) -> None:
    for seed in ("²", "٣", "9" * 5000, "-1", "1e3"):
        r = new(client, seed=seed)
        assert r.status_code == 400 and "seed must be a whole number" in r.text, seed
    for rounds in ("²", "9" * 5000, "0"):
        r = new(client, rounds=rounds)
        assert r.status_code == 400 and "rounds must be a whole number" in r.text, rounds


def test_malformed_forms_are_400_not_500(client: TestClient) -> None:
    two = {"upload": ("a.yaml", b"x", "text/yaml"), "other": ("b.yaml", b"y", "text/yaml")}
    r = client.post("/new", data={"csrf": token(client), "domain": "bargaining"}, files=two)
    assert r.status_code in (400, 403)
    r = client.post("/new", data={"csrf": token(client), **{f"f{i}": "x" for i in range(300)}})
    assert r.status_code in (400, 403)
    r = client.post("/new", content=b"--x\r\nbroken", headers={
        "content-type": "multipart/form-data; boundary=x"})
    assert r.status_code in (400, 403)


def test_an_uploaded_game_file_is_validated_kept_and_played(client: TestClient,
                                                            tmp_path: Path) -> None:
    form = {"csrf": token(client), "domain": "games", "scenario.games": "stag-hunt",
            "opponent": "rational", "seat": "0"}
    r = client.post("/new", data=form, follow_redirects=False,
                    files={"upload.games": ("g.json", GAME_FILE.encode(), "application/json")})
    assert r.status_code == 303, r.text
    url = r.headers["location"]
    until(client, url, "your_turn")
    assert "my-game" in client.get(url).text or "Ann" in client.get(url).text
    kept = list((tmp_path / "play.sqlite.scenarios").glob("game-*.json"))
    assert len(kept) == 1 and kept[0].read_text() == GAME_FILE
    bad = GAME_FILE.replace('"normal"', '"chess"')
    r = client.post("/new", data=form, follow_redirects=False,
                    files={"upload.games": ("g.json", bad.encode(), "application/json")})
    assert r.status_code == 400 and "uploaded game" in r.text
    r = client.post("/new", data=form, follow_redirects=False,
                    files={"upload.games": ("g.yaml", b"players: [a", "text/yaml")})
    assert r.status_code == 400 and "uploaded game" in r.text


def test_stopping_the_server_stops_running_games_and_their_threads(tmp_path: Path) -> None:
    app = create_app(tmp_path / "play.sqlite", PlaySettings())
    with TestClient(app, base_url="http://127.0.0.1") as c:
        c.get("/")
        url = new(c).headers["location"]
        until(c, url, "your_turn")
        game = next(iter(app.state.play.games.games.values()))
        assert game.thread is not None and game.thread.is_alive()
        assert game.loop is not None and game.thread.name == f"accord-play-{game.id}"
    # the lifespan's shutdown cancelled it: the thread ended, nothing was stored
    assert not game.thread.is_alive()
    assert game.done and "stopped" in str(game.error) and game.episode is None


def test_a_browser_form_with_both_empty_file_inputs_starts_a_game(client: TestClient) -> None:
    """Browsers send every file input, empty ones as ``filename=""`` parts."""
    parts = {"csrf": token(client), "domain": "bargaining", "scenario.bargaining":
             "buyer-seller", "opponent": "boulware", "seat": "0", "seed": "0"}
    body = b"".join(f'--B\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
                    for k, v in parts.items())
    for name in ("upload", "upload.games"):
        body += (f'--B\r\nContent-Disposition: form-data; name="{name}"; filename=""\r\n'
                 "Content-Type: application/octet-stream\r\n\r\n\r\n").encode()
    body += b"--B--\r\n"
    r = client.post("/new", content=body, follow_redirects=False,
                    headers={"content-type": "multipart/form-data; boundary=B"})
    assert r.status_code == 303, r.text


def test_a_game_briefing_is_shown_to_the_person_escaped(client: TestClient) -> None:
    """A scenario with a briefing (an imported LLM-Deliberation game has one) shows the
    person the rules, the public and its own private texts; text is escaped."""
    briefed = SCENARIO.replace("parties:\n", "instructions: Agree on a <script>x</script> "
                               "price.\nrules: {opener: a}\nparties:\n").replace(
        "  b:\n    batna: 0.1\n", "  b:\n    batna: 0.1\n    instructions: Only b reads "
        "this.\n    persona: greedy\n")
    r = client.post("/new", data={"csrf": token(client), "domain": "bargaining",
                                  "scenario.bargaining": "buyer-seller", "opponent": "boulware",
                                  "seat": "1"},
                    files={"upload": ("brief.yaml", briefed.encode(), "text/yaml")},
                    follow_redirects=False)
    assert r.status_code == 303, r.text
    url = r.headers["location"]
    until(client, url, "your_turn")
    page = client.get(url).text
    assert 'id="briefing"' in page and "a makes the first and the last proposal" in page
    assert "&lt;script&gt;x&lt;/script&gt;" in page and "<script>x</script>" not in page
    assert "Only b reads this." in page and "Your stance is greedy" in page
