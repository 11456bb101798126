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
