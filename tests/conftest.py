"""Shared fixtures: small scenarios built in code and paths to shared data."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from accord.domains.bargaining import parse_scenario

# Hypothesis's timing checks (a 200 ms deadline per example, "input generation is slow")
# measure the machine, not accord: on a loaded CI runner they failed correct tests. Every
# test keeps its own settings; these are the defaults beneath them.
settings.register_profile("accord", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "accord"))

REPO = Path(__file__).resolve().parents[1]


def shared_data(*parts: str) -> Path:
    """Path under ``../shared/data`` (or ``$ACCORD_DATA``)."""
    base = Path(os.environ.get("ACCORD_DATA", REPO.parent / "shared" / "data"))
    return base.joinpath(*parts)


LAPTOP = {
    "name": "laptop-sale",
    "issues": {"price": [900, 1000, 1100, 1200], "warranty": [0, 1, 2]},
    "parties": {
        "buyer": {"batna": 0.3, "utility": {
            "type": "linear_additive", "weights": {"price": 0.7, "warranty": 0.3},
            "values": {"price": {900: 1.0, 1000: 0.7, 1100: 0.3, 1200: 0.0},
                       "warranty": {0: 0.0, 1: 0.6, 2: 1.0}}}},
        "seller": {"batna": 0.2, "utility": {
            "type": "table", "default": 0.0,
            "table": {"price=1200,warranty=0": 1.0, "price=1100,warranty=0": 0.8}}},
    },
}


@pytest.fixture
def laptop():
    """The issue's example scenario, parsed."""
    return parse_scenario(LAPTOP, "laptop.yaml")


@pytest.fixture
def laptop_dict():
    """The issue's example scenario as the mapping a YAML file holds."""
    import copy

    return copy.deepcopy(LAPTOP)


# -- browser tests ------------------------------------------------------------------------
#: the system browser and its driver (Debian's chromium and chromium-driver; .ci/run
#: installs them)
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    """A real headless Chromium driven by selenium, shared by the session's browser tests.

    Offline and private: no background networking, updates, sync or first-run pages; a
    temporary profile. Use it with :class:`accord.testing.live.LiveServer` to serve the
    app under test. Cookies are cleared after each test that uses
    :func:`fresh_browser`.
    """
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.fail(f"browser tests need {CHROMIUM} and {CHROMEDRIVER} (apt-get install "
                    "chromium chromium-driver; .ci/run does it)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
                "--window-size=1400,1000"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def fresh_browser(browser):
    """:func:`browser` with no cookies from earlier tests (and none left after)."""
    browser.execute_cdp_cmd("Network.clearBrowserCookies", {})
    yield browser
    browser.execute_cdp_cmd("Network.clearBrowserCookies", {})


@pytest.fixture
def stub_env(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Point the ``openai-api/stub/<model>`` endpoint at a running stub server."""
    def point(stub: Any) -> None:
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("STUB_API_KEY", "sk-golden")
    return point
