"""The run page's charts in a real headless Chromium: every row label inside its chart,
and axis and bar labels a person reads (round ticks, no exponent form)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

from accord.serve.app import create_app
from accord.testing.live import LiveServer

from .conftest import bench

#: what the labels of a chart look like to a person (tick labels, bar values)
LABELS = """
return Array.from(document.querySelectorAll('svg.chart')).map(svg => {
  const box = svg.getBoundingClientRect();
  return {title: svg.getAttribute('aria-label'),
          rows: Array.from(svg.querySelectorAll(':scope > text[text-anchor="end"]')).map(
            t => [t.textContent, t.getBoundingClientRect().left - box.left]),
          ticks: Array.from(svg.querySelectorAll(':scope > text[text-anchor="middle"]')).map(
            t => t.textContent),
          // the value written beside each bar (the outcome chart's legend is no value)
          values: svg.classList.contains('bars') ? Array.from(
            svg.querySelectorAll(':scope > text:not([text-anchor])')).map(
            t => t.textContent) : []};
});
"""


@pytest.fixture(scope="module")
def long_labels_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Bargaining with long line-up labels (cut to 30 characters in the charts) and a
    Golden Balls run where both players steal: every payoff is 0."""
    path = tmp_path_factory.mktemp("charts") / "charts.db"
    return bench(path, {"name": "charts", "sweeps": [
        {"domain": "bargaining", "scenarios": ["procurement"],
         "agents": [["boulware", "random"], ["llm:mock/negotiator", "boulware"]],
         "seeds": 1},
        {"domain": "games", "scenarios": ["golden-balls"], "agents": [["rational", "rational"]],
         "seeds": 1}]})


def test_chart_labels_fit_and_read_as_numbers(fresh_browser, long_labels_store: Path,
                                              tmp_path: Path) -> None:
    path = tmp_path / "charts.db"
    path.write_bytes(long_labels_store.read_bytes())
    d = fresh_browser
    with LiveServer(create_app([path])) as url:
        d.get(url + "/stores/0/runs/charts")
        WebDriverWait(d, 20).until(ec.presence_of_element_located(
            (By.CSS_SELECTOR, "svg.chart")))
        charts = d.execute_script(LABELS)
    assert len(charts) >= 3, charts
    for chart in charts:
        # a row label starting left of its chart is cut off ("oulware vs ran… · procurement")
        for text, left in chart["rows"]:
            assert left >= 0, (chart["title"], text, left)
        for tick in chart["ticks"]:
            # "0.41", "2.5e-10" and "1e-09" are no ticks a person reads
            assert "e" not in tick and re.fullmatch(r"-?[\d,]+(\.\d\d?)?%?", tick), (
                chart["title"], chart["ticks"])
        for value in chart["values"]:
            assert "e" not in value, (chart["title"], chart["values"])
    utilities = next(c for c in charts if "utility" in c["title"])
    assert utilities["ticks"][0] in ("0", "0.0") or utilities["ticks"][0].startswith("-")
    assert all(re.fullmatch(r"\d\.\d\d", v) for v in utilities["values"]), utilities
    payoffs = next(c for c in charts if "payoff" in c["title"])
    # all payoffs 0: the axis still runs to 1, not to a billionth
    assert payoffs["ticks"][-1] == "1.0" and payoffs["values"] == ["0.00", "0.00"], payoffs
