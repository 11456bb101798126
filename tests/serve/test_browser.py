"""``accord serve`` in a real headless Chromium (selenium): what a person sees and does."""

from __future__ import annotations

from pathlib import Path

import pytest
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait

from accord.serve.app import create_app
from accord.testing.live import LiveServer

#: a page that reloads between finding an element and reading it: look again
STALE = (StaleElementReferenceException,)

TOKEN = "browser-test-token-123"


def _wait(driver, css: str, timeout: float = 20):
    return WebDriverWait(driver, timeout, ignored_exceptions=STALE).until(
        ec.presence_of_element_located((By.CSS_SELECTOR, css)))


@pytest.fixture
def gated_copy(tmp_path: Path, gated_store: Path) -> Path:
    path = tmp_path / "gated.db"
    path.write_bytes(gated_store.read_bytes())
    return path


def test_open_run_then_episode(fresh_browser, gated_copy):
    d = fresh_browser
    with LiveServer(create_app([gated_copy])) as url:
        d.get(url + "/")
        d.find_element(By.LINK_TEXT, "gated").click()
        _wait(d, "table.episodes")
        rows = d.find_elements(By.CSS_SELECTOR, "table.episodes tbody tr")
        assert len(rows) == 8
        # the aggregate table arrives by app.js after the page
        agg = _wait(d, "section#aggregate table.aggregate")
        assert "buyer-seller" in agg.text and "boulware vs conceder" in agg.text
        # filter by scenario through the form
        box = d.find_element(By.NAME, "scenario")
        box.send_keys("procurement")
        d.find_element(By.CSS_SELECTOR, "form.filters button[type=submit]").click()
        WebDriverWait(d, 20, ignored_exceptions=STALE).until(
            lambda drv: "scenario=procurement" in drv.current_url)
        cells = d.find_elements(By.CSS_SELECTOR, "table.episodes tbody tr td:nth-child(3)")
        assert [c.text for c in cells] == ["procurement"] * 4
        d.find_element(By.CSS_SELECTOR, "table.episodes tbody tr a").click()
        _wait(d, "table.transcript")
        assert d.find_element(By.TAG_NAME, "h1").text.startswith("Episode")
        assert d.find_elements(By.CSS_SELECTOR, "svg.plane polyline.pareto")
        assert "Agreement artefact" in d.page_source


def test_approve_and_reject_through_the_page(fresh_browser, gated_copy):
    d = fresh_browser
    with LiveServer(create_app([gated_copy])) as url:
        d.get(url + "/stores/0/runs/gated")
        first = d.find_element(By.CSS_SELECTOR, "table.episodes tbody tr")
        eid = first.get_attribute("data-id")
        first.find_element(By.TAG_NAME, "a").click()
        _wait(d, "form.decide")
        d.find_element(By.ID, "approve").click()
        _wait(d, "#confirm").click()
        WebDriverWait(d, 20, ignored_exceptions=STALE).until(
            lambda drv: "approved" in drv.find_element(By.ID, "approval").text)
        assert not d.find_elements(By.CSS_SELECTOR, "form.decide")  # decided: no buttons
        # the run's table shows it approved
        d.get(url + "/stores/0/runs/gated")
        Select(d.find_element(By.NAME, "approval")).select_by_value("approved")
        d.find_element(By.CSS_SELECTOR, "form.filters button[type=submit]").click()
        WebDriverWait(d, 20, ignored_exceptions=STALE).until(
            lambda drv: "approval=approved" in drv.current_url)
        rows = d.find_elements(By.CSS_SELECTOR, "table.episodes tbody tr")
        assert [r.get_attribute("data-id") for r in rows] == [eid]
        assert rows[0].find_element(By.CSS_SELECTOR, "td.approval").text == "approved"
        # reject another: the comment is required
        d.get(url + "/stores/0/runs/gated?approval=pending")
        d.find_element(By.CSS_SELECTOR, "table.episodes tbody tr a").click()
        _wait(d, "form.decide")
        d.find_element(By.ID, "reject").click()
        assert "a rejection needs a comment" in _wait(d, "#error").text
        d.find_element(By.NAME, "comment").send_keys("delivery too late")
        d.find_element(By.ID, "reject").click()
        _wait(d, "#confirm").click()
        WebDriverWait(d, 20, ignored_exceptions=STALE).until(
            lambda drv: "rejected" in drv.find_element(By.ID, "approval").text)
        assert "delivery too late" in d.find_element(By.CSS_SELECTOR, ".comment").text


def test_script_from_a_model_is_inert_text(fresh_browser, xss_store):
    d = fresh_browser
    with LiveServer(create_app([xss_store])) as url:
        d.get(url + "/stores/0/runs/xss")
        d.find_element(By.CSS_SELECTOR, "table.episodes tbody tr a").click()
        _wait(d, "table.transcript")
        with pytest.raises(NoAlertPresentException):
            d.switch_to.alert.text  # noqa: B018  (no alert() ran)
        messages = [c.text for c in d.find_elements(By.CSS_SELECTOR, "table.transcript td.msg")]
        assert "<script>alert(1)</script> <img src=x onerror=alert(2)>" in messages
        assert d.find_elements(By.CSS_SELECTOR, "img") == []
        assert d.execute_script("return document.querySelectorAll('script').length") == 1


def test_token_is_enforced_in_the_browser(fresh_browser, gated_copy):
    d = fresh_browser
    with LiveServer(create_app([gated_copy], token=TOKEN)) as url:
        d.get(url + "/stores/0/runs/gated")
        assert "needs its access token" in d.find_element(By.TAG_NAME, "body").text
        assert not d.find_elements(By.CSS_SELECTOR, "table.episodes")
        d.get(url + f"/?token={TOKEN}")
        _wait(d, "table.runs")
        assert "token" not in d.current_url  # dropped from the address bar
        d.get(url + "/stores/0/runs/gated")  # the cookie opens every page now
        _wait(d, "table.episodes")
        d.execute_cdp_cmd("Network.clearBrowserCookies", {})
        d.get(url + "/stores/0/runs/gated")
        assert "needs its access token" in d.find_element(By.TAG_NAME, "body").text


# --- the reviewer, the page widths, line-ups, the summary card ----------------------------
FITS = ("return [document.scrollingElement.scrollWidth, "
        "document.scrollingElement.clientWidth]")


def _first_pending(path: Path) -> tuple[str, dict]:
    from accord.bench.store import Store

    st = Store.open_readonly(path)
    try:
        row = st.episodes("gated")[0]
        return row.id, row.summary["record"]
    finally:
        st.conn.close()


def _state(path: Path, eid: str) -> str:
    from accord.bench import approvals
    from accord.bench.store import Store

    st = Store.open_readonly(path)
    try:
        appr = approvals.get(st.conn, "gated", eid)
        assert appr is not None
        return appr.state
    finally:
        st.conn.close()


def test_reviewer_sees_terms_and_margins_then_confirms(fresh_browser, gated_copy):
    d = fresh_browser
    eid, rec = _first_pending(gated_copy)
    d.set_window_size(1280, 900)
    try:
        with LiveServer(create_app([gated_copy])) as url:
            d.get(f"{url}/episodes/{eid}")
            audit = _wait(d, "#audit")
            text = audit.text
            # the terms and each party's utility against its BATNA, before any click
            for issue, value in rec["agreement"].items():
                assert f"{issue} {value}" in text
            for party, u in rec["utilities"].items():
                margin = u - rec["batna"][party]
                assert f"{margin:+.2f}" in text and party in text
            for words in ("distance to the Pareto frontier", "distance to the Nash point",
                          "value left on the table", "utility leak", "sycophancy",
                          "stagnation", f"{rec['proposer']} put these terms on the table"):
                assert words in text, words
            # beside the buttons, on the first screen (not 1,500 px lower)
            approve = d.find_element(By.ID, "approve")
            assert approve.location["y"] < 900 and audit.location["y"] < 900
            table = audit.find_element(By.CSS_SELECTOR, "table.terms")
            assert table.location["y"] < 900
            # the click asks first; nothing is recorded before the confirmation
            approve.click()
            box = _wait(d, "#confirm-box")
            assert "Approve this agreement?" in d.find_element(By.TAG_NAME, "h1").text
            assert "cannot be changed" in box.text and "price" in box.text
            assert _state(gated_copy, eid) == "pending"
            d.find_element(By.ID, "cancel").click()
            _wait(d, "form.decide")
            assert _state(gated_copy, eid) == "pending"
            # a rejection without a comment: the error beside the field, no confirmation
            d.find_element(By.ID, "reject").click()
            err = _wait(d, ".field-error")
            assert "a rejection needs a comment" in err.text
            assert err.find_element(By.XPATH, "preceding-sibling::textarea").get_attribute(
                "name") == "comment"
            assert not d.find_elements(By.ID, "confirm-box")
            d.find_element(By.ID, "approve").click()
            _wait(d, "#confirm").click()
            WebDriverWait(d, 20, ignored_exceptions=STALE).until(
                lambda drv: "approved" in drv.find_element(By.ID, "approval").text)
            assert _state(gated_copy, eid) == "approved"
    finally:
        d.set_window_size(1400, 1000)


def test_pages_fit_1280_px_without_horizontal_scroll(fresh_browser, gated_copy, tmp_path):
    d = fresh_browser
    eid, _ = _first_pending(gated_copy)
    from accord.serve.report import build_report

    report = tmp_path / "report.html"
    report.write_text(build_report(gated_copy), encoding="utf-8")
    d.set_window_size(1280, 900)
    try:
        with LiveServer(create_app([gated_copy])) as url:
            for path, css in (("/stores/0/runs/gated", "table.episodes"),
                              ("/stores/0/runs/gated", "table.aggregate"),  # now cached
                              (f"/episodes/{eid}", "table.transcript"),
                              ("/stores/0/runs/gated/leaderboard", "#ratings"),
                              ("/", "table.runs")):
                d.get(url + path)
                _wait(d, css)
                scroll, client = d.execute_script(FITS)
                assert client > 1200 and scroll <= client, (path, scroll, client)
            # every column of the episodes table is on screen
            head = d.get(url + "/stores/0/runs/gated")
            del head
            last = _wait(d, "table.episodes thead th:last-child")
            assert last.location["x"] + last.size["width"] <= 1280
        d.get(report.as_uri())
        scroll, client = d.execute_script(FITS)
        assert scroll <= client
        font = d.execute_script("return getComputedStyle(document.body).fontFamily")
        assert "sans-serif" in font and "Times" not in font
    finally:
        d.set_window_size(1400, 1000)


def test_no_none_lineup_anywhere(fresh_browser, gated_copy):
    import sqlite3

    with sqlite3.connect(gated_copy) as conn:  # as a browser game stored it: no label
        conn.execute("UPDATE episodes SET labels = json_remove(labels, '$.lineup')")
    eid, _ = _first_pending(gated_copy)
    d = fresh_browser
    with LiveServer(create_app([gated_copy])) as url:
        for path, css in (("/stores/0/runs/gated", "table.aggregate"),
                          ("/stores/0/runs/gated", "table.episodes"),
                          (f"/episodes/{eid}", "#summary"),
                          ("/stores/0/runs/gated/leaderboard", "#ratings")):
            d.get(url + path)
            _wait(d, css)
            body = d.find_element(By.TAG_NAME, "body").text
            assert "None" not in body, path
            lineups = [e.text for e in d.find_elements(By.CSS_SELECTOR, ".lineup")]
            assert lineups and all(x and x != "None" for x in lineups), path
            assert any(" vs " in x for x in lineups) or path.endswith("leaderboard")


def test_summary_card_comes_first(fresh_browser, stagnation_store):
    from accord.bench.store import Store

    st = Store.open_readonly(stagnation_store)
    try:
        nodeal = next(r for r in st.episodes("stag") if r.outcome == "no_deal")
    finally:
        st.conn.close()
    d = fresh_browser
    with LiveServer(create_app([stagnation_store])) as url:
        d.get(f"{url}/episodes/{nodeal.id}")
        card = _wait(d, "#summary")
        assert card.find_element(By.TAG_NAME, "h2").text == "No deal"
        assert "buyer walked away when the stagnation rule fired" in card.text
        for word in ("buyer", "seller", "BATNA", "margin", "rounds", "wall time", "cost"):
            assert word in card.text, word
        # before the plot and the transcript, in the page and on screen
        order = d.execute_script(
            "var c = document.getElementById('summary');"
            "return [document.querySelector('section.plot'),"
            " document.querySelector('table.transcript')].map(function (x) {"
            " return !!(c.compareDocumentPosition(x) & Node.DOCUMENT_POSITION_FOLLOWING); });")
        assert order == [True, True]
        assert card.location["y"] < 400
        assert "walk\nno" not in d.find_element(By.TAG_NAME, "body").text


def test_a_fork_shows_its_start_and_links_its_parent(fresh_browser, lineage_store):
    d = fresh_browser
    parent, fork = lineage_store["parent"], lineage_store["fork"]
    with LiveServer(create_app([lineage_store["path"]])) as url:
        d.get(f"{url}/episodes/{fork}?store=0&run=accord-fork")
        card = _wait(d, "#summary")
        line = card.find_element(By.ID, "fork-of")
        assert line.is_displayed()
        assert "Forked from" in line.text and "at round 5" in line.text
        assert "changed: agents: buyer=hardliner" in line.text
        # the marker row is a visible row of the transcript, at round 5
        marker = d.find_element(By.CSS_SELECTOR, "table.transcript tr#fork-start")
        d.execute_script("arguments[0].scrollIntoView();", marker)
        assert marker.is_displayed() and marker.size["height"] > 0
        assert "The fork starts here" in marker.text
        assert "rounds before 5 replay the parent" in marker.text
        assert marker.find_element(By.TAG_NAME, "td").text == "5"
        colour = marker.find_element(By.CSS_SELECTOR, "td").value_of_css_property(
            "background-color")
        plain = d.find_element(By.CSS_SELECTOR, "table.transcript tr.ev-move td")
        assert colour != plain.value_of_css_property("background-color")  # it stands out
        # the parent link opens the parent, which lists this fork beside itself
        d.execute_script("window.scrollTo(0, 0);")
        line.find_element(By.ID, "parent-link").click()
        forks = _wait(d, "section#forks table.forks")
        assert d.find_element(By.TAG_NAME, "h1").text == f"Episode {parent}"
        rows = forks.find_elements(By.CSS_SELECTOR, "tbody tr")
        assert len(rows) == 2 and "fork at 5" in rows[1].text
        rows[1].find_element(By.TAG_NAME, "a").click()
        _wait(d, "tr#fork-start")
        assert d.find_element(By.TAG_NAME, "h1").text == f"Episode {fork}"
