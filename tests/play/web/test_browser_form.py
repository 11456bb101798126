"""The new-game form in a real headless Chromium: a refused form comes back as the person
filled it in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait

import accord.domains.bargaining

from .conftest import Server

#: the built-in bargaining scenarios' files
DATA = Path(accord.domains.bargaining.__file__).parent / "data"


def _open(browser: Any, url: str) -> None:
    browser.get(url + "/")
    WebDriverWait(browser, 20).until(
        lambda d: d.execute_script("return document.body.dataset.ready") == "1")


def _refused(browser: Any) -> str:
    """Start, and the refusal's text from the page that comes back (never from the page
    the click left: a second refusal's ``#error`` is already on that one)."""
    page = browser.find_element(By.TAG_NAME, "html")
    browser.find_element(By.ID, "start").click()
    WebDriverWait(browser, 20).until(ec.staleness_of(page))
    return WebDriverWait(browser, 20).until(
        ec.presence_of_element_located((By.ID, "error"))).text


def test_a_refused_form_keeps_the_chosen_game_and_seat(server: Server, browser: Any) -> None:
    _open(browser, server.url)
    browser.find_element(By.ID, "domain-games").click()
    Select(browser.find_element(By.ID, "scenario-games")).select_by_value("golden-balls")
    Select(browser.find_element(By.ID, "seat")).select_by_value("1")
    browser.find_element(By.ID, "opponent").send_keys("no-such-kind")
    browser.find_element(By.ID, "rounds").send_keys("2")
    assert "unknown games agent kind 'no-such-kind'" in _refused(browser)
    # everything as the person left it: the game and the seat too (they came back as the
    # first game of the list and the first party, so Start played another game)
    assert browser.find_element(By.ID, "domain-games").is_selected()
    assert Select(browser.find_element(By.ID, "scenario-games")
                  ).first_selected_option.get_attribute("value") == "golden-balls"
    assert Select(browser.find_element(By.ID, "seat")
                  ).first_selected_option.text == "second party"
    assert browser.find_element(By.ID, "opponent").get_attribute("value") == "no-such-kind"
    assert browser.find_element(By.ID, "rounds").get_attribute("value") == "2"


def test_a_refused_form_keeps_the_scenario_and_asks_for_the_file_again(
        server: Server, browser: Any, tmp_path: Path) -> None:
    _open(browser, server.url)
    Select(browser.find_element(By.ID, "scenario-bargaining")).select_by_value("procurement")
    browser.find_element(By.ID, "opponent").send_keys("nonsense-kind")
    assert "nonsense-kind" in _refused(browser)
    assert Select(browser.find_element(By.ID, "scenario-bargaining")
                  ).first_selected_option.get_attribute("value") == "procurement"
    assert not browser.find_elements(By.ID, "upload-again")
    # an uploaded file cannot come back (no browser refills a file field): the page says
    # so, instead of offering the first built-in scenario as if it were the person's file
    upload = tmp_path / "mine.yaml"
    upload.write_text((DATA / "buyer-seller.yaml").read_text(encoding="utf-8"),
                      encoding="utf-8")
    browser.find_element(By.ID, "upload").send_keys(str(upload))
    assert "nonsense-kind" in _refused(browser)
    again = browser.find_element(By.ID, "upload-again")
    assert again.is_displayed() and "Choose your scenario file again" in again.text


def test_an_uploaded_scenario_is_called_by_its_name_not_the_servers_path(
        server: Server, browser: Any, tmp_path: Path) -> None:
    name = "Laptops <img src=x onerror=window.__pwned=1></script>"
    text = (DATA / "buyer-seller.yaml").read_text(encoding="utf-8").replace(
        "name: buyer-seller", f'name: "{name}"', 1)
    upload = tmp_path / "mine.yaml"
    upload.write_text(text, encoding="utf-8")
    _open(browser, server.url)
    browser.find_element(By.ID, "upload").send_keys(str(upload))
    Select(browser.find_element(By.ID, "opponent-bargaining")).select_by_value("boulware")
    browser.find_element(By.ID, "start").click()
    h1 = WebDriverWait(browser, 20).until(
        ec.presence_of_element_located((By.ID, "move-form"))) and \
        browser.find_element(By.TAG_NAME, "h1").text
    # the scenario's own name, as text; never the file the server saved the upload to
    assert h1 == f"bargaining: {name} (uploaded)"
    assert ".yaml" not in h1 and ".yaml" not in browser.title
    assert browser.execute_script("return window.__pwned") is None


def test_a_game_that_is_gone_says_so_on_a_page_with_a_way_back(server: Server,
                                                               browser: Any) -> None:
    import httpx

    browser.get(server.url + "/g/no-such-game")
    # a page like the others, not a bare "<p>404: ...</p>" with nowhere to go
    assert browser.find_element(By.TAG_NAME, "h1").text == "Not found"
    assert "no such game" in browser.find_element(By.ID, "error").text
    assert browser.find_element(By.TAG_NAME, "header")
    browser.find_element(By.ID, "again").click()
    WebDriverWait(browser, 20).until(ec.presence_of_element_located((By.ID, "new-form")))
    # the game page's poll reads JSON, and a gone game is a 404 it can act on
    r = httpx.get(server.url + "/g/no-such-game/state", timeout=60)
    assert r.status_code == 404 and "no such game" in r.json()["error"]
