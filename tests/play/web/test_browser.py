"""A person plays in a real headless Chromium: bargaining, Deal or No Deal, games, XSS."""

from __future__ import annotations

import re
from typing import Any

import pytest
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait

from accord.bench.store import Store
from accord.domains.bargaining.stub import NegotiatorPolicy
from accord.llm.policy import Outcome, PolicyRequest, Reply, register_policy

from .conftest import Server, data_dir

#: a page that reloads between finding an element and reading it: look again
STALE = (StaleElementReferenceException,)

XSS = "<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">"


@register_policy("xss-negotiator")
class XssNegotiator(NegotiatorPolicy):
    """The stub negotiator, with a hostile message in every reply."""

    name = "xss-negotiator"

    def respond(self, request: PolicyRequest) -> Outcome:
        out = super().respond(request)
        assert isinstance(out, Reply)
        return Reply(out.text + f"\n<MESSAGE>{XSS}</MESSAGE>")


def wait(driver: Any, css: str, timeout: float = 30) -> Any:
    return WebDriverWait(driver, timeout, ignored_exceptions=STALE).until(
        ec.presence_of_element_located((By.CSS_SELECTOR, css)))


def start(driver: Any, server: Server, domain: str, scenario: str, opponent: str,
          seat: str = "0", rounds: str = "") -> None:
    driver.get(server.url + "/")
    driver.find_element(By.ID, f"domain-{domain}").click()
    field = driver.find_element(By.ID, f"scenario-{domain}")
    if field.tag_name == "select":
        Select(field).select_by_value(scenario)
    else:
        field.clear()
        field.send_keys(scenario)
    opp = driver.find_element(By.ID, "opponent")
    opp.clear()
    opp.send_keys(opponent)
    Select(driver.find_element(By.ID, "seat")).select_by_value(seat)
    if rounds:
        driver.find_element(By.ID, "rounds").send_keys(rounds)
    driver.find_element(By.ID, "start").click()


def my_turn(driver: Any) -> None:
    """Wait until the page shows the person's turn (or the outcome), scripts attached."""
    WebDriverWait(driver, 30, ignored_exceptions=STALE).until(
        lambda d: (d.find_elements(By.ID, "move-form") or d.find_elements(By.ID, "outcome"))
        and d.execute_script("return document.body.dataset.ready === '1'"))


def replaced(old: Any) -> Any:
    """A wait condition: the element ``old`` belongs to a page that is gone (what
    ``ec.staleness_of`` checks, also when Chromium answers that the node "does not belong
    to the document": asked while the new page replaced the old one, it says so instead of
    calling the element stale)."""
    def check(_: Any) -> bool:
        try:
            old.is_enabled()
        except StaleElementReferenceException:
            return True
        except WebDriverException as exc:
            if "does not belong to the document" in str(exc):
                return True
            raise
        return False
    return check


def submit(driver: Any, button: str) -> None:
    """Click a form button and wait for the page it leads to: the page that was shown must
    go first (else :func:`my_turn` could still see the old page's form on a loaded
    machine), then the person's next turn or the outcome."""
    press(driver, button)
    my_turn(driver)


def press(driver: Any, button: str) -> None:
    """Click a button that leads to another page, and wait until the page that was shown
    is gone (a click lost to the page's own poller reloading it is made again)."""
    for attempt in range(5):
        WebDriverWait(driver, 30).until(
            lambda d: d.execute_script("return document.readyState") == "complete")
        try:
            old = driver.find_element(By.TAG_NAME, "html")
            driver.find_element(By.ID, button).click()
            break
        except (StaleElementReferenceException, WebDriverException) as exc:
            # the page's own poller reloaded it between the lookup and the click (the other
            # side moved): the click did not happen; find the button on the new page
            if attempt == 4 or not (isinstance(exc, StaleElementReferenceException)
                                    or "does not belong to the document" in str(exc)):
                raise
    WebDriverWait(driver, 30).until(replaced(old))


def stored(server: Server, episode: str) -> Any:
    with Store.open(server.store, create=False) as store:
        return store.find(episode)


def test_person_bargains_against_boulware_to_an_agreement_and_it_is_stored(
        server: Server, browser: Any) -> None:
    start(browser, server, "bargaining", "buyer-seller", "boulware")
    my_turn(browser)
    assert "Your BATNA" in browser.find_element(By.CSS_SELECTOR, ".private").text
    # build the offer issue by issue; the utility of the package updates live
    Select(browser.find_element(By.ID, "pkg-price")).select_by_value("800")
    Select(browser.find_element(By.ID, "pkg-delivery_days")).select_by_value("2")
    Select(browser.find_element(By.ID, "pkg-warranty_years")).select_by_value("3")
    WebDriverWait(browser, 10, ignored_exceptions=STALE).until(
        lambda d: d.find_element(By.ID, "live-utility").text == "1.000")
    Select(browser.find_element(By.ID, "pkg-price")).select_by_value("1200")
    Select(browser.find_element(By.ID, "pkg-delivery_days")).select_by_value("10")
    Select(browser.find_element(By.ID, "pkg-warranty_years")).select_by_value("0")
    WebDriverWait(browser, 10, ignored_exceptions=STALE).until(
        lambda d: d.find_element(By.ID, "live-utility").text == "0.000")
    browser.find_element(By.ID, "message").send_keys("a generous offer")
    submit(browser, "btn-offer")
    wait(browser, "#outcome")
    assert browser.find_element(By.ID, "status").text == "agreement"
    assert "price=1200" in browser.find_element(By.ID, "agreement").text
    episode = browser.find_element(By.ID, "episode").text
    row = stored(server, episode)
    assert row.status == "done" and row.outcome == "agreement"
    assert row.spec["agents"] == ["human", "boulware"] and row.spec["scenario"] == "buyer-seller"


def test_invalid_move_gets_feedback_and_is_asked_again(server: Server, browser: Any) -> None:
    start(browser, server, "deal-or-no-deal", "test/0", "greedy")
    if not data_dir():
        pytest.skip("Deal-or-No-Deal data not found (set ACCORD_DATA)")
    my_turn(browser)
    browser.find_element(By.ID, "btn-accept" if browser.find_elements(By.ID, "btn-accept")
                         else "btn-offer")
    box = browser.find_element(By.ID, "pkg-book")
    browser.execute_script("arguments[0].removeAttribute('max')", box)  # a person can type
    box.clear()
    box.send_keys("99")
    submit(browser, "btn-offer")
    fb = wait(browser, "#feedback")
    assert "count_out_of_range" in fb.text and "99" in fb.text
    assert browser.find_elements(By.ID, "move-form")  # asked again


def test_person_plays_deal_or_no_deal_to_the_end(server: Server, browser: Any) -> None:
    if not data_dir():
        pytest.skip("Deal-or-No-Deal data not found (set ACCORD_DATA)")
    start(browser, server, "deal-or-no-deal", "test/0", "greedy")
    my_turn(browser)
    text = browser.find_element(By.CSS_SELECTOR, "table[data-key=preferences]").text
    assert "your value each" in text
    browser.find_element(By.ID, "message").send_keys("what would you like?")
    submit(browser, "btn-message")
    table = wait(browser, "#on-table")
    assert "proposes to take" in table.text
    worth = browser.find_element(By.ID, "table-utility").text
    submit(browser, "btn-accept")
    wait(browser, "#outcome")
    assert browser.find_element(By.ID, "status").text == "agreement"
    assert browser.find_element(By.ID, "yours").text == worth
    row = stored(server, browser.find_element(By.ID, "episode").text)
    assert row.outcome == "agreement"


def test_person_plays_a_game_with_cheap_talk_to_the_end(server: Server, browser: Any) -> None:
    start(browser, server, "games", "prisoners-dilemma", "rational", rounds="1")
    my_turn(browser)
    payoffs = browser.find_element(By.CSS_SELECTOR, "table[data-key=payoffs]")
    assert not browser.find_elements(By.TAG_NAME, "pre")  # a real table, not ASCII art
    cells = [td.text for td in payoffs.find_elements(By.CSS_SELECTOR, "td.payoff")]
    assert cells == ["3 / 3", "0 / 5", "5 / 0", "1 / 1"]  # Alice's payoff first
    browser.find_element(By.ID, "message").send_keys("I will cooperate")
    submit(browser, "btn-message")
    wait(browser, "button.action")
    assert "I will play defect" in browser.find_element(By.ID, "messages").text
    buttons = {b.text: b for b in browser.find_elements(By.CSS_SELECTOR, "button.action")}
    buttons["cooperate"].click()
    my_turn(browser)
    wait(browser, "#outcome")
    assert browser.find_element(By.ID, "status").text == "completed"
    assert browser.find_element(By.ID, "yours").text == "0"
    assert "Alice=cooperate, Bob=defect" in browser.find_element(By.ID, "played").text
    assert "not a Nash equilibrium" in browser.find_element(By.ID, "verdict").text
    assert stored(server, browser.find_element(By.ID, "episode").text).outcome == "completed"


def test_llm_opponent_xss_renders_as_inert_text(server: Server, browser: Any) -> None:
    start(browser, server, "bargaining", "buyer-seller", "llm:mock/xss-negotiator", seat="1")
    my_turn(browser)
    msgs = wait(browser, "#messages")
    assert XSS in msgs.text  # shown as text, character for character
    assert browser.execute_script("return window.__pwned === undefined")
    assert not browser.find_elements(By.CSS_SELECTOR, "#messages img, #messages script")
    submit(browser, "btn-walk")
    wait(browser, "#outcome")
    assert XSS in browser.find_element(By.ID, "transcript").text
    assert browser.execute_script("return window.__pwned === undefined")
    assert re.fullmatch(r"[0-9a-f]{16}", browser.find_element(By.ID, "episode").text)
