"""A line-up is always named: an episode stored without a ``lineup`` label (a game a person
played in the browser before the label was stored) shows its agent specs, never 'None',
in ``accord results``, the run page, its JSON twin, the episode page and the report."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.bench.store import Store, lineup_label
from accord.cli.main import app

runner = CliRunner()


@pytest.fixture
def unlabelled(tmp_path: Path, gated_store: Path) -> Path:
    """The gated run with every ``lineup`` label removed (as a browser game stored it:
    ``{"agents": [...], "person": ..., "game": ...}``)."""
    path = tmp_path / "played.db"
    path.write_bytes(gated_store.read_bytes())
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE episodes SET labels = json_remove(labels, '$.lineup')")
        assert conn.execute("SELECT count(*) FROM episodes WHERE "
                            "json_extract(labels, '$.lineup') IS NOT NULL").fetchone() == (0,)
    return path


def test_lineup_label_falls_back_to_the_agent_specs() -> None:
    assert lineup_label({"lineup": "named"}, {}) == "named"
    assert lineup_label({"agents": ["human", "boulware"], "person": "buyer"},
                        {}) == "human vs boulware"
    assert lineup_label({}, {"agents": ["a", "b"]}) == "a vs b"
    assert lineup_label(None, None) == "-"


def test_results_episodes_name_every_lineup(unlabelled: Path) -> None:
    res = runner.invoke(app, ["results", str(unlabelled), "--episodes"])
    assert res.exit_code == 0, res.output
    assert "None" not in res.output and "boulware vs conceder" in res.output
    agg = runner.invoke(app, ["results", str(unlabelled)])
    assert agg.exit_code == 0 and "None" not in agg.output


def test_serve_pages_name_every_lineup(make_client: Any, unlabelled: Path) -> None:
    c = make_client(unlabelled)
    page = c.get("/stores/0/runs/gated")
    assert page.status_code == 200
    assert "None" not in page.text and "boulware vs conceder" in page.text
    doc = c.get("/api/stores/0/runs/gated/episodes").json()
    agents = {e["agents"] for e in doc["episodes"]}
    assert agents == {"boulware vs conceder", "linear vs linear"}
    # the filter and the sort use the same label in SQL
    only = c.get("/api/stores/0/runs/gated/episodes",
                 params={"agents": "linear vs linear"}).json()["episodes"]
    assert len(only) == 4 and {e["agents"] for e in only} == {"linear vs linear"}
    eid = doc["episodes"][0]["id"]
    episode = c.get(f"/episodes/{eid}")
    assert episode.status_code == 200
    assert "None" not in episode.text
    assert f'<span class="lineup">{doc["episodes"][0]["agents"]}</span>' in episode.text


def test_report_names_every_lineup(tmp_path: Path, unlabelled: Path) -> None:
    out = tmp_path / "report.html"
    res = runner.invoke(app, ["report", str(unlabelled), "--out", str(out)])
    assert res.exit_code == 0, res.output
    html = out.read_text("utf-8")
    assert " · None · " not in html and "boulware vs conceder" in html


def test_store_rows_carry_the_label(unlabelled: Path) -> None:
    st = Store.open_readonly(unlabelled)
    try:
        assert all(e.lineup in ("boulware vs conceder", "linear vs linear")
                   for e in st.episodes("gated"))
    finally:
        st.conn.close()
