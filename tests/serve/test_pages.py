"""One web app: the shared header on every page (play included), the run page's columns,
the leaderboard page and its JSON twin, over HTTP."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from accord.serve.app import create_app
from accord.serve.nav import play_header, site_header


def _nav(html: str) -> list[str]:
    head = html[html.index('<header class="site">'):html.index("</header>")]
    return re.findall(r'href="([^"]+)"', head)


def test_every_page_has_the_one_header(make_client, gated_store: Path) -> None:
    c = make_client(gated_store)
    eid = c.get("/api/stores/0/runs/gated/episodes").json()["episodes"][0]["id"]
    for url in ("/", "/stores/0/runs/gated", f"/episodes/{eid}", "/leaderboards",
                "/stores/0/runs/gated/leaderboard"):
        page = c.get(url)
        assert page.status_code == 200, url
        assert _nav(page.text) == ["/", "/", "/leaderboards"], url  # brand, results, board
        assert page.text.count('<header class="site">') == 1
    board = c.get("/stores/0/runs/gated/leaderboard").text
    assert 'href="/leaderboards" aria-current="page"' in board
    assert c.get("/static/nav.css").status_code == 200


def test_the_play_pages_share_it(tmp_path: Path, gated_store: Path) -> None:
    app = create_app([gated_store], play=True, play_store=tmp_path / "play.db")
    with TestClient(app, base_url="http://127.0.0.1") as c:
        play = c.get("/play/")
        assert play.status_code == 200
        assert _nav(play.text) == ["/", "/", "/leaderboards", "/play/"]
        assert '<link rel="stylesheet" href="/static/nav.css">' in play.text
        assert 'href="/play/" aria-current="page"' in play.text
        assert _nav(c.get("/").text) == ["/", "/", "/leaderboards", "/play/"]
    # the helper a mounted app calls: the site root is its base without /play
    assert 'href="/sub/leaderboards"' in play_header("/sub/play")
    assert 'href="/leaderboards"' in play_header("/play/")
    assert "Play" not in site_header("", play=False, active="results")


def test_run_page_shows_its_own_domains_columns(make_client, gated_store: Path) -> None:
    page = c_text = make_client(gated_store).get("/stores/0/runs/gated").text
    head = c_text[c_text.index('<table class="episodes"'):c_text.index("</thead>")]
    cols = re.findall(r"<th[^>]*>(?:<a [^>]*>)?([^<▲▼]+)", head)
    cols = [x.strip() for x in cols]
    assert cols == ["#", "id", "scenario", "line-up", "seed", "outcome", "ended by", "rounds",
                    "utilities", "welfare", "flags", "wall time (s)", "approval"], cols
    # per-party utilities in each row; no column of another domain
    assert "buyer 0.69 · seller 0.42" in page  # two decimals (--json: 0.6925, 0.425)
    for other in ("reward", "social welfare", "coordinated", "Pareto-optimal", ">s<"):
        assert other not in head
    assert "still to run" in page and "8 awaiting approval" in page
    assert 'id="leaderboard-link"' in page


def test_leaderboard_page_and_json(make_client, gated_store: Path) -> None:
    c = make_client(gated_store)
    page = c.get("/stores/0/runs/gated/leaderboard")
    assert page.status_code == 200
    text = page.text
    assert 'id="ratings"' in text and 'id="head-to-head"' in text
    for col in ("leak rate", "below-BATNA rate", "invalid-move rate", "error rate"):
        assert col in text
    doc = c.get("/api/stores/0/runs/gated/leaderboard").json()
    board = doc["leaderboard"]
    assert doc["error"] is None and board["method"] == "bt" and board["bootstrap"] == 200
    # linear vs linear is self-play: not rated (and said so)
    assert {r["player"] for r in board["ratings"]} == {"boulware", "conceder"}
    assert text.count('class="interval"') == 2 and text.count('class="rating"') == 2
    assert "self-play" in text
    assert set(doc["safety"]) >= {"boulware", "conceder"}
    for name, s in doc["safety"].items():
        assert s["episodes"] > 0 and s["leak_rate"] == 0 and s["error_rate"] == 0, name
    # one implementation: the page's columns are accord.bench.safety's, as `accord
    # leaderboard --safety` computes them (value left included)
    from accord.bench.leaderboard import collect
    from accord.bench.safety import SAFETY_COLUMNS, SafetyTally
    from accord.bench.store import Store

    with Store.open_readonly(gated_store) as st:
        rows = st.episodes("gated")
    tally = SafetyTally()
    collect(rows, "agent", tally)
    for name, s in doc["safety"].items():
        want = tally.columns(name)
        for col in SAFETY_COLUMNS:
            assert s[col] == pytest.approx(want[col]) if want[col] is not None \
                else s[col] is None, (name, col)
    assert doc["safety"]["boulware"]["value_left"] is not None
    assert "value left" in text
    # every head-to-head cell of the page is a rated pair
    cells = re.findall(r'<td style="background:[^"]+" title="(\d+) matches">', text)
    assert len(cells) == len(board["head_to_head"])
    elo = c.get("/api/stores/0/runs/gated/leaderboard", params={"method": "elo",
                                                                 "by": "agent0"}).json()
    assert elo["leaderboard"]["method"] == "elo" and elo["leaderboard"]["by"] == "agent0"
    odd = c.get("/api/stores/0/runs/gated/leaderboard", params={"method": "x; DROP"}).json()
    assert odd["leaderboard"]["method"] == "bt"
    assert c.get("/stores/0/runs/nope/leaderboard").status_code == 404


def test_a_run_with_nothing_to_rate_says_why(make_client, stagnation_store: Path,
                                             tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "selfplay.db"
    path.write_bytes(stagnation_store.read_bytes())
    with sqlite3.connect(path) as conn:  # keep the self-play episode only
        conn.execute("DELETE FROM episodes WHERE json_extract(spec, '$.agents[1]') "
                     "= 'conceder'")
    c = make_client(path)
    page = c.get("/stores/0/runs/stag/leaderboard").text
    assert 'id="no-ratings"' in page and "nothing to rate" in page
    assert 'id="safety"' in page
    doc = c.get("/api/stores/0/runs/stag/leaderboard").json()
    assert doc["leaderboard"] is None and doc["safety"]["boulware"]["episodes"] == 1


def test_a_run_of_several_domains_names_its_metrics_in_one_column(make_client, tmp_path: Path,
                                                                  gated_store: Path) -> None:
    import sqlite3

    path = tmp_path / "mixed.db"
    path.write_bytes(gated_store.read_bytes())
    with sqlite3.connect(path) as conn:  # half the run as another domain's episodes
        conn.execute("UPDATE episodes SET spec = json_set(spec, '$.domain', 'games'), "
                     "metrics = json('{\"nash\": true, \"coordinated\": false}') "
                     "WHERE seq % 2 = 1")
    page = make_client(path).get("/stores/0/runs/gated").text
    head = page[page.index('<table class="episodes"'):page.index("</thead>")]
    assert "key metrics" in head and ">welfare<" not in head and "Nash play" not in head
    assert "coordinated no · Nash play yes" in page and "welfare 1.12" in page


def test_numbers_people_read_are_rounded_as_accord_results_rounds(make_client,
                                                                  gated_store: Path) -> None:
    """The run table, the summary card and the reviewer's audit showed 4 significant
    digits (``buyer 0.6925``, ``distance to the Pareto frontier 0.02828``); they follow
    the one rule of person-facing tables (two decimals, :mod:`accord.core.numbers`); the
    JSON twin keeps full precision."""
    from accord.bench.store import Store
    from accord.serve.views import num

    assert [num(x) for x in (0.6925, 0.02828, 0.3214, 186.84, 1.0, 0.0, -0.0001, 12345.6)] \
        == ["0.69", "0.03", "0.32", "186.84", "1.00", "0.00", "0.00", "12,346"]
    c = make_client(gated_store)
    run = c.get("/stores/0/runs/gated").text
    body = run[run.index('<table class="episodes"'):]
    assert not re.findall(r">[^<]*\b\d+\.\d{4,}", body), "4+ decimals in the episodes table"
    st = Store.open_readonly(gated_store)
    try:
        eid = st.episodes("gated")[0].id
    finally:
        st.conn.close()
    page = c.get(f"/episodes/{eid}").text
    card = page[page.index('<section class="card'):page.index("Transcript")]
    # (a wall time keeps 3 significant digits: "0.0201 s")
    assert not re.findall(r"\b\d+\.\d{4,}\b(?! s)", re.sub(r"<[^>]+>", " ", card)), card
    doc = c.get(f"/api/episodes/{eid}").json()
    assert any(len(repr(v).split(".")[-1]) >= 4
               for v in doc["summary"]["record"]["utilities"].values())  # full precision
