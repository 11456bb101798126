"""An LLM episode's page in a real headless Chromium: the usage table speaks words, while
its JSON twin keeps the stored fields and full precision."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

from accord.bench.store import Store
from accord.serve.app import create_app
from accord.testing.live import LiveServer

from .conftest import bench


@pytest.fixture(scope="module")
def llm_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bench(tmp_path_factory.mktemp("usage") / "usage.db", {
        "name": "usage", "domain": "bargaining", "scenarios": ["buyer-seller"],
        "agents": [["llm:mock/negotiator", "boulware"]], "seeds": 1})


def test_usage_table_headings_are_words(fresh_browser, llm_store: Path, tmp_path: Path) -> None:
    path = tmp_path / "usage.db"
    path.write_bytes(llm_store.read_bytes())
    st = Store.open_readonly(path)
    try:
        (row,) = list(st.episodes())
    finally:
        st.conn.close()
    d = fresh_browser
    with LiveServer(create_app([path])) as url:
        d.get(f"{url}/episodes/{row.id}")
        table = WebDriverWait(d, 20).until(ec.presence_of_element_located(
            (By.CSS_SELECTOR, "table.usage")))
        heads = [th.text for th in table.find_elements(By.CSS_SELECTOR, "thead th")]
        cells = [td.text for td in table.find_elements(By.CSS_SELECTOR, "tbody td")]
        api = httpx.get(f"{url}/api/episodes/{row.id}", timeout=60).json()
    # field names such as cache_hits and prompt_tokens are no headings for a person
    assert not [h for h in heads if "_" in h], heads
    assert "prompt tokens" in heads and "completion tokens" in heads
    assert "answered from the cache" in heads and "latency (s)" in heads
    # dollars as the summary card writes them ($0.0000), not as a bare 0.00
    cost = cells[heads.index("cost")]
    assert cost.startswith("$") and len(cost.split(".")[1]) == 4, cells
    # the JSON twin keeps the stored fields, unrounded
    usage = api["usage"][next(iter(api["usage"]))]
    assert {"cache_hits", "prompt_tokens", "latency", "cost"} <= set(usage)
    assert usage["latency"] == row.usage[next(iter(row.usage))]["latency"]
