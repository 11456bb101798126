"""``accord report`` for people: summary first, the leaderboard section, transcripts as
asked (``--transcripts none|failed|all|N``), small for large runs, a sans-serif font."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.serve.report import ReportError, build_report, parse_transcripts

runner = CliRunner()
#: the size a report of a 640-episode store stays under (default and --transcripts none)
LIMIT = 1_000_000


@pytest.fixture(scope="module")
def store_640(tmp_path_factory: pytest.TempPathFactory, gated_store: Path) -> Path:
    """640 episodes (copies of the gated run), every one with its trajectory, and two
    marked failed."""
    from accord.testing.stores import grow_store

    path = tmp_path_factory.mktemp("r640") / "r640.db"
    ids = grow_store(gated_store, "gated", path, "big", 640, with_trajectories=640)
    with sqlite3.connect(path) as conn:
        conn.executemany("UPDATE episodes SET status='failed', outcome=NULL, error=? "
                         "WHERE id=?", [("boom", ids[100]), ("boom", ids[300])])
    return path


def _articles(html: str) -> int:
    return html.count('<article class="episode"')


def test_parse_transcripts() -> None:
    assert parse_transcripts("none") == "none" and parse_transcripts(" ALL ") == "all"
    assert parse_transcripts("failed") == "failed" and parse_transcripts("7") == 7
    for bad in ("-1", "some", "1.5", ""):
        with pytest.raises(ReportError, match="--transcripts must be"):
            parse_transcripts(bad)


def test_a_640_episode_report_is_small_and_summary_first(store_640: Path) -> None:
    default = build_report(store_640)
    size = len(default.encode())
    assert size < LIMIT, size
    assert _articles(default) == 20  # the default: 20 transcripts, failed ones first
    ids = re.findall(r'<article class="episode" id="ep-([0-9a-f]+)"', default)
    failed = re.findall(r"<td><a href=\"#ep-([0-9a-f]+)\"><code>[0-9a-f]+</code></a></td>"
                        r"<td>[^<]*</td><td class=\"lineup\">[^<]*</td><td class=\"num\">"
                        r"\d+</td><td class=\"oc-failed\">failed", default)
    assert len(failed) == 2 and set(failed) <= set(ids)
    # the summary (charts, aggregate table) and the leaderboard come before any transcript
    first = default.index('<article class="episode"')
    assert default.index("Agreement rate per line-up") < first
    assert default.index('<table class="aggregate">') < first
    assert default.index('id="ratings"') < default.index('id="head-to-head"') < first
    none = build_report(store_640, transcripts="none")
    assert _articles(none) == 0 and len(none.encode()) < LIMIT
    assert "640 episodes" in none and "Outcomes per line-up" in none
    only_failed = build_report(store_640, transcripts="failed")
    assert _articles(only_failed) == 2
    assert _articles(build_report(store_640, transcripts=3)) == 3


def test_the_report_font_is_the_apps(gated_store: Path) -> None:
    html = build_report(gated_store, transcripts="none")
    style = html[html.index("<style>"):html.index("</style>")]
    assert "&#34;" not in style and '"Segoe UI"' in style and "sans-serif" in style


def test_cli_flag(tmp_path: Path, gated_store: Path) -> None:
    out = tmp_path / "r.html"
    res = runner.invoke(app, ["report", str(gated_store), "-o", str(out),
                              "--transcripts", "all"])
    assert res.exit_code == 0, res.output
    assert _articles(out.read_text("utf-8")) == 8
    bad = runner.invoke(app, ["report", str(gated_store), "-o", str(out),
                              "--transcripts", "lots"])
    assert bad.exit_code == 2 and "--transcripts must be none, failed, all" in bad.output


def test_the_run_list_counts_in_words(tmp_path: Path, gated_store: Path) -> None:
    """A run of one episode is listed as '(1 episode)', not '(1 episodes)'."""
    from accord.testing.stores import grow_store

    path = tmp_path / "two.db"
    grow_store(gated_store, "gated", path, "one", 1, with_trajectories=1)
    grow_store(gated_store, "gated", path, "three", 3, with_trajectories=1)
    toc = build_report(path, transcripts="none")
    toc = toc[toc.index('<ul class="toc">'):]
    toc = toc[:toc.index("</ul>")]
    assert "one</a> (1 episode)" in toc and "three</a> (3 episodes)" in toc
