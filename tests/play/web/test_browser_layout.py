"""The play page at 1280x900 (the reviewer's screen) in a real headless Chromium: a
three-party bargaining turn shows its offers table and the preferences table whole, with
no sideways scrolling (measured through the page's own DOM)."""

from __future__ import annotations

from typing import Any

from selenium.webdriver.common.by import By

from .conftest import Server
from .test_browser import my_turn, start, submit

#: [page scroll width, page client width]
PAGE = ("return [document.documentElement.scrollWidth, "
        "document.documentElement.clientWidth]")
#: [table width, its wrapper's visible width, table's right edge]
FITS = ("const t = document.getElementById(arguments[0]); const w = t.parentElement; "
        "return [t.getBoundingClientRect().width, w.clientWidth, "
        "t.getBoundingClientRect().right];")


def test_three_party_turn_fits_1280_pixels(server: Server, browser: Any) -> None:
    """Issue 28's walk at 1280 px: the offers table of sprint-planning (five issue
    columns and the person's utility) pushed the page 64 px sideways, and the brief's
    preferences table was cut at its 'best' column; the 'on the table' line ran the
    last value into the dash (``on_call=engineering— your utility``)."""
    browser.set_window_size(1280, 900)
    start(browser, server, "bargaining", "sprint-planning", "boulware")
    my_turn(browser)
    submit(browser, "btn-offer")  # the other two answer; the person's turn comes back
    my_turn(browser)
    assert browser.find_elements(By.ID, "offers")
    sw, cw = browser.execute_script(PAGE)
    assert sw <= cw, f"the page scrolls sideways: {sw} > {cw}"
    width, room, right = browser.execute_script(FITS, "offers")
    assert width <= room + 1 and right <= cw, (width, room, right)
    pref = browser.find_element(By.CSS_SELECTOR, "#brief table[data-key=preferences]")
    width, room, _ = browser.execute_script(FITS, pref.get_attribute("id"))
    assert width <= room + 1, f"the preferences table is cut: {width} > {room}"
    table = browser.find_elements(By.ID, "on-table")
    if table:  # a counter-offer stands: the last value, a space, then the dash
        assert "= " not in table[0].text and " — your utility" in table[0].text
