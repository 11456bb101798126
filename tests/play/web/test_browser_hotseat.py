"""Hot-seat play in a real headless Chromium: two people at one screen, each turn handed
over by seat name with nothing private on the hand-over page, each person shown only their
own brief, both debriefs after."""

from __future__ import annotations

from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from .conftest import Server
from .test_browser import STALE, my_turn, press, stored, wait
from .test_browser_seats import brief_rows, facts


def handover(driver: Any, seat: str) -> None:
    """Wait for ``seat``'s hand-over page (the poller brings it), check it shows nothing
    private, then say that person is at the screen."""
    WebDriverWait(driver, 30, ignored_exceptions=STALE).until(
        lambda d: d.find_elements(By.ID, "handover-seat")
        and d.find_element(By.ID, "handover-seat").text == seat)
    text = driver.find_element(By.TAG_NAME, "main").text
    assert f"{seat}: your turn; pass the keyboard" in text
    assert not driver.find_elements(By.ID, "brief") and "BATNA" not in text
    click(driver, "btn-here")
    my_turn(driver)


def click(driver: Any, button: str) -> None:
    press(driver, button)


def test_two_people_bargain_at_one_screen(server: Server, browser: Any) -> None:
    browser.get(server.url + "/")
    browser.find_element(By.ID, "domain-bargaining").click()
    Select(browser.find_element(By.ID, "scenario-bargaining")).select_by_value("buyer-seller")
    browser.find_element(By.ID, "hotseat").click()
    click(browser, "start")
    handover(browser, "Seat 1, buyer")
    assert browser.find_element(By.ID, "role").text == "Seat 1, buyer"
    f = facts(browser)
    assert f["You are"] == "buyer" and f["Your BATNA (utility with no deal)"] == "0.4"
    assert ["price", "0.6", "800", "1", "best"] in brief_rows(browser)
    Select(browser.find_element(By.ID, "pkg-price")).select_by_value("1100")
    Select(browser.find_element(By.ID, "pkg-delivery_days")).select_by_value("10")
    Select(browser.find_element(By.ID, "pkg-warranty_years")).select_by_value("1")
    WebDriverWait(browser, 10, ignored_exceptions=STALE).until(
        lambda d: d.find_element(By.ID, "live-utility").text == "0.275")
    click(browser, "btn-offer")

    handover(browser, "Seat 2, seller")
    f = facts(browser)
    assert f["You are"] == "seller" and f["Your BATNA (utility with no deal)"] == "0.35"
    rows = brief_rows(browser)
    assert ["price", "0.7", "1200", "1", "best"] in rows
    assert not [r for r in rows if r[:2] == ["price", "0.6"]]  # none of the buyer's weights
    assert len(browser.find_elements(By.CSS_SELECTOR, "section.brief")) == 1  # one brief only
    click(browser, "btn-accept")

    wait(browser, "#outcome")
    assert browser.find_element(By.ID, "status").text == "agreement"
    assert not browser.find_elements(By.ID, "yours")
    buyer = browser.find_element(By.ID, "debrief-1").text
    seller = browser.find_element(By.ID, "debrief-2").text
    assert buyer.startswith("Debrief: Seat 1, buyer")
    assert "You agreed: your utility 0.275, seller's 0.854 (now revealed)." in buyer
    assert seller.startswith("Debrief: Seat 2, seller")
    assert "You agreed: your utility 0.854, buyer's 0.275 (now revealed)." in seller
    assert browser.find_element(By.ID, "debrief-plane-1") and \
        browser.find_element(By.ID, "debrief-plane-2")
    row = stored(server, browser.find_element(By.ID, "episode").text)
    assert row.spec["agents"] == ["human", "human"]
    assert row.lineup == "human (buyer) vs human (seller)"
