"""A run that mixes domains: one aggregate table and one utility chart per domain, so the
run page fits 1280 px and a game's payoffs never share an axis with utilities."""

from __future__ import annotations

import re
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

from accord.serve.app import create_app
from accord.testing.live import LiveServer


def _tables(html: str) -> dict[str, list[str]]:
    """Each compact aggregate table's domain and column headings."""
    out = {}
    for m in re.finditer(r'<table class="aggregate" data-domain="([^"]+)">(.*?)</thead>', html,
                         re.S):
        out[m.group(1)] = re.findall(r"<th>([^<]*)</th>", m.group(2))
    return out


def test_one_aggregate_table_per_domain_with_its_own_columns(make_client, mixed_store: Path
                                                             ) -> None:
    html = make_client(mixed_store).get("/stores/0/runs/mixed/aggregate").text
    tables = _tables(html)
    assert list(tables) == ["bargaining", "games", "task-exchange"]
    bargaining, games, te = tables["bargaining"], tables["games"], tables["task-exchange"]
    # the parameter as a readable heading, only where the domain has it
    assert "stagnation rounds" in bargaining and "params.stagnation_rounds" not in html.split(
        '<details class="all-metrics">')[0]
    assert "stagnation rounds" not in games and "stagnation rounds" not in te
    assert "domain" not in bargaining  # the table says it in its caption
    # only each domain's own metrics: no welfare-less "-" columns of the others
    assert "agreement rate" in bargaining and "to Nash" in bargaining
    assert "agreement rate" not in games and "reward" not in games
    assert "Nash play rate" in games and "to Nash" not in games
    assert "social welfare" in te and "Nash play rate" not in te
    # per-party utilities in every domain, in its unit, one party per line
    assert bargaining[-1] == "mean utility per party (± SD)"
    assert games[-1] == "mean payoff per party (± SD)"
    assert te[-1] == "mean utility per party (± SD)"
    assert re.search(r'<td class="parties">buyer [0-9.]+<br>seller [0-9.]+</td>', html)
    assert re.search(r'<td class="parties">player 1 [0-9.]+<br>player 2 [0-9.]+</td>', html)
    assert re.search(r'<td class="parties">Alice [0-9.]+<br>Bob [0-9.]+</td>', html)


def test_the_utility_chart_is_drawn_per_domain_in_its_unit(make_client, mixed_store: Path
                                                            ) -> None:
    html = make_client(mixed_store).get("/stores/0/runs/mixed/aggregate").text
    titles = re.findall(r"<figcaption><b>([^<]*)</b>", html)
    assert titles == ["Agreement rate per line-up",
                      "Mean utility per line-up and party, bargaining",
                      "Mean payoff per line-up and party, games",
                      "Mean utility per line-up and party, task-exchange",
                      "Outcomes per line-up"]
    # the games' chart holds the payoffs; the bargaining chart none of them
    charts = re.findall(r'<svg [^>]*aria-label="(Mean [^"]*)".*?</svg>', html, re.S)
    assert len(charts) == 3
    barg = html[html.index('aria-label="Mean utility per line-up and party, bargaining"'):]
    barg = barg[:barg.index("</svg>")]
    assert "rational vs rational" not in barg and "boulware vs conceder · buyer" in barg
    games = html[html.index('aria-label="Mean payoff per line-up and party, games"'):]
    games = games[:games.index("</svg>")]
    assert "rational vs rational · " in games and "buyer" not in games


def test_a_run_of_one_domain_keeps_one_table_and_one_chart(make_client, gated_store: Path
                                                           ) -> None:
    html = make_client(gated_store).get("/stores/0/runs/gated/aggregate").text
    assert html.count('<table class="aggregate"') == 1 and "data-domain" not in html
    assert re.findall(r"<figcaption><b>(Mean [^<]*)</b>", html) == [
        "Mean utility per line-up and party"]


FITS = """
const doc = document.documentElement;
return {page: [doc.scrollWidth, doc.clientWidth],
        tables: Array.from(document.querySelectorAll('table.aggregate, table.episodes')).map(
          t => [t.className, Math.ceil(t.getBoundingClientRect().right),
                t.parentElement.scrollWidth, t.parentElement.clientWidth])};
"""


def test_the_mixed_run_page_fits_1280_px(fresh_browser, mixed_store: Path,
                                         tmp_path: Path) -> None:
    path = tmp_path / "mixed.db"
    path.write_bytes(mixed_store.read_bytes())
    d = fresh_browser
    d.set_window_size(1280, 900)
    try:
        with LiveServer(create_app([path])) as url:
            d.get(url + "/stores/0/runs/mixed")
            WebDriverWait(d, 20).until(ec.presence_of_element_located(
                (By.CSS_SELECTOR, "section#aggregate table.aggregate")))
            got = d.execute_script(FITS)
            width, client = got["page"]
            assert width <= client, got
            for cls, right, inner, box in got["tables"]:
                # the table's own box ends inside the window, and its scroll box does not
                # scroll: no column is cut
                assert right <= client and inner <= box, (cls, right, inner, box, client)
            assert len(got["tables"]) == 4, got  # three aggregates and the episodes
    finally:
        d.set_window_size(1400, 1000)
