"""Fixtures for the play app: a real uvicorn server on 127.0.0.1 and headless Chromium."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from accord.play.web import PlaySettings, create_app
from accord.testing.live import LiveServer

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


@dataclass
class Server:
    """A running play app: its base URL and the store it records games in."""

    url: str
    store: Path


def data_dir() -> str | None:
    base = Path(os.environ.get("ACCORD_DATA", Path(__file__).resolve().parents[3].parent
                               / "shared" / "data"))
    for cand in (base, base / "dealornodeal"):
        if (cand / "test.txt").is_file():
            return str(cand)
    return None


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """The play app served by uvicorn in a thread (real HTTP, real event loop)."""
    store = tmp_path / "play.sqlite"
    app = create_app(store, PlaySettings(data=data_dir()))
    with LiveServer(app) as url:  # the port is bound as it is chosen: no other can take it
        yield Server(url, store)


@pytest.fixture
def browser() -> Iterator[object]:
    """Headless Chromium driven by selenium (system chromium and chromedriver)."""
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.fail(f"browser tests need {CHROMIUM} and {CHROMEDRIVER} (apt-get install "
                    "chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="accord-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                 f"--user-data-dir={profile}", "--window-size=1200,1000"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
