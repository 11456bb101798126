"""A person plays a three-party bargaining scenario in a real headless Chromium and reads
its debrief: every party against its BATNA, the value left on the table, a
parallel-coordinates chart and one utility plane per other party."""

from __future__ import annotations

import asyncio
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from accord.agents.human import Reply, Seat, Turn
from accord.agents.human.brief import num
from accord.agents.spec import AgentSpec
from accord.domains.base import EpisodeSpec, RunContext, get_domain
from accord.play.debrief import debrief

from .conftest import Server
from .test_browser import STALE, my_turn, start, stored, submit, wait

OFFER = {"features": "5", "tech_debt_share": "10%", "release": "week 2", "on_call": "shared"}


class Offers(Seat):
    """The same person, scripted: proposes ``OFFER`` (the expected debrief, off the page)."""

    async def ask(self, turn: Turn) -> Reply:
        return {"kind": "offer", "package": OFFER}


def expected() -> dict[str, Any]:
    spec = EpisodeSpec("bargaining", "sprint-planning",
                       (AgentSpec("human"), AgentSpec("accept-all"), AgentSpec("accept-all")),
                       {}, 0)
    result = asyncio.run(get_domain("bargaining").run_episode(
        spec, RunContext(extra={"seat": Offers()})))
    data = debrief(spec, result, "engineering")
    assert data is not None
    return data


def test_three_party_bargaining_debrief_in_the_browser(server: Server, browser: Any) -> None:
    start(browser, server, "bargaining", "sprint-planning", "accept-all", seat="0")
    my_turn(browser)
    for issue, value in OFFER.items():
        Select(browser.find_element(By.ID, f"pkg-{issue}")).select_by_value(value)
    WebDriverWait(browser, 10, ignored_exceptions=STALE).until(
        lambda d: d.find_element(By.ID, "live-utility").text == "0.400")
    submit(browser, "btn-offer")
    wait(browser, "#debrief")
    want = expected()
    text = browser.find_element(By.ID, "debrief").text
    for sentence in want["sentences"]:
        assert sentence in text
    assert "You agreed: your utility 0.4; product's 0.812, operations' 0.64" in text
    assert "Value left on the table: 0.127 in total" in text
    assert browser.find_element(By.ID, "value-left").text == num(want["value_left"])
    assert browser.find_element(By.ID, "l2-pareto").text == num(want["l2_to_pareto"])
    # the table of every party: utility, BATNA, margin, Nash point, best for you
    table = browser.find_element(By.ID, "debrief-table")
    head = [th.text for th in table.find_elements(By.CSS_SELECTOR, "thead th")]
    assert head == ["party", "this episode", "BATNA", "margin", "Nash point", "best for you"]
    rows = [[c.text for c in tr.find_elements(By.CSS_SELECTOR, "th, td")]
            for tr in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
    assert rows == want["rows"]
    assert rows[0][:4] == ["you (engineering)", "0.4", "0.35", "+0.05"]
    # the charts: a parallel-coordinates chart and one plane per other party
    par = browser.find_element(By.ID, "debrief-parallel")
    for key in ("episode", "nash", "best"):
        assert par.find_elements(By.CSS_SELECTOR, f"polyline.line-{key}")
    assert len(par.find_elements(By.CSS_SELECTOR, "line.batna")) == 3
    assert par.find_elements(By.CSS_SELECTOR, "g.frontier polyline")
    planes = browser.find_elements(By.CSS_SELECTOR, "#debrief-planes svg.plane")
    assert [p.get_attribute("id") for p in planes] == ["debrief-plane-1", "debrief-plane-2"]
    for svg in planes:
        assert svg.find_elements(By.CSS_SELECTOR, "g.pareto circle")  # projected: dots
        assert svg.find_elements(By.CSS_SELECTOR, "rect.nash")
        assert svg.find_elements(By.CSS_SELECTOR, "path.outcome")
        assert svg.find_elements(By.CSS_SELECTOR, "circle.better")  # value was left
    captions = [c.text for c in browser.find_elements(By.CSS_SELECTOR,
                                                      "#debrief-planes figcaption")]
    assert captions[0].startswith("You against product") and \
        captions[1].startswith("You against operations")
    assert not browser.find_elements(By.ID, "debrief-plane")  # no two-party plane
    # the page fits its width: the charts do not push it sideways
    assert browser.execute_script(
        "return document.documentElement.scrollWidth <= window.innerWidth")
    row = stored(server, browser.find_element(By.ID, "episode").text)
    assert row.outcome == "agreement"
    assert row.spec["agents"] == ["human", "accept-all", "accept-all"]
