"""The results pages on a phone (390 px wide, real headless Chromium): no page scrolls
sideways, and an approval's margins are on screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

from accord.bench.store import Store
from accord.serve.app import create_app
from accord.testing.live import LiveServer

from .conftest import bench

PHONE = 390
#: elements that end right of the window without a scrolling box around them
OFF_SCREEN = """
const width = document.documentElement.clientWidth, out = [];
for (const el of document.querySelectorAll('body *')) {
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.right <= width + 1) continue;
  let p = el.parentElement, boxed = false;
  for (; p; p = p.parentElement) {
    if (['auto', 'scroll'].includes(getComputedStyle(p).overflowX)) { boxed = true; break; }
  }
  if (!boxed) out.push(el.tagName.toLowerCase() + '.' + el.className);
}
return [document.documentElement.scrollWidth, width, out.slice(0, 8)];
"""


@pytest.fixture(scope="module")
def llm_gated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bench(tmp_path_factory.mktemp("phone") / "phone.db", {
        "name": "phone", "domain": "bargaining", "scenarios": ["buyer-seller"],
        "agents": [["llm:mock/negotiator", "boulware"]], "seeds": 1,
        "require_approval": True})


@pytest.fixture
def phone(fresh_browser):
    fresh_browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": PHONE, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    try:
        yield fresh_browser
    finally:
        fresh_browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_pages_fit_a_phone(phone, llm_gated: Path, tmp_path: Path) -> None:
    path = tmp_path / "phone.db"
    path.write_bytes(llm_gated.read_bytes())
    st = Store.open_readonly(path)
    try:
        (row,) = list(st.episodes())
    finally:
        st.conn.close()
    d = phone
    with LiveServer(create_app([path])) as url:
        for page, css in (("/", "table.runs"), (f"/episodes/{row.id}", "table.transcript")):
            d.get(url + page)
            WebDriverWait(d, 20).until(ec.presence_of_element_located((By.CSS_SELECTOR, css)))
            scroll, width, off = d.execute_script(OFF_SCREEN)
            assert width == PHONE
            # the index's runs table and the episode's utilities and LLM calls tables
            # pushed the whole page sideways (909 and 628 px wide)
            assert scroll <= width and not off, (page, scroll, off)
        # the margins a reviewer approves on, on screen without scrolling anything
        margins = d.find_elements(By.CSS_SELECTOR, "#audit table.utilities td:last-child")
        assert len(margins) == 2
        for m in margins:
            assert m.text.startswith(("+", "-")) and m.rect["x"] + m.rect["width"] <= PHONE
