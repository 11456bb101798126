"""One rounding rule per kind of number on every surface a person reads.

The report and the web leaderboard showed a mean score ``0.6955`` (four significant digits)
beside the terminal leaderboard's ``0.696`` (three) and its head-to-head ``0.70`` (two);
``accord results`` showed utilities as ``0.8325``-like three-decimal cells. Now scores and
utilities read with two decimals everywhere, rates as whole percentages, and ``--json``
keeps full precision.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from accord.cli.main import app
from accord.core.numbers import rate, score
from accord.serve.report import build_report

runner = CliRunner()


def _text(page: str) -> str:
    page = re.sub(r"<(svg|style|script).*?</\1>", " ", page, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def _board(store: Path) -> dict[str, Any]:
    res = runner.invoke(app, ["leaderboard", str(store), "--json"])
    assert res.exit_code == 0, res.output
    return dict(json.loads(res.stdout))


def test_the_leaderboard_rounds_mean_scores_alike_in_the_terminal_web_and_report(
        gated_store: Path, make_client: Any) -> None:
    board = _board(gated_store)
    terminal = runner.invoke(app, ["leaderboard", str(gated_store)],
                             env={"COLUMNS": "200"}).stdout
    markdown = runner.invoke(app, ["leaderboard", str(gated_store), "--format", "md"]).stdout
    web = _text(make_client(gated_store).get("/stores/0/runs/gated/leaderboard").text)
    report = _text(build_report(gated_store, transcripts="none"))
    for r in board["ratings"]:
        full = r["mean_score"]
        shown = score(full)
        assert re.fullmatch(r"\d\.\d\d", shown)
        row = next(line for line in terminal.splitlines() if f" {r['player']} " in line)
        assert row.rstrip(" │").endswith(shown), row
        md_row = next(line for line in markdown.splitlines() if f" {r['player']} " in line)
        assert md_row.endswith(f"| {shown} |"), md_row
        for page in (web, report):  # episodes, then the mean score: "4 0.59", not "4 0.5905"
            assert re.search(rf"\b{r['episodes']} {re.escape(shown)}(?![\d])", page), shown
            assert f"{full:.4g}" == shown or f" {full:.4g} " not in page


def test_results_tables_show_utilities_with_two_decimals_and_rates_in_whole_percent(
        gated_store: Path) -> None:
    doc = json.loads(runner.invoke(app, ["results", str(gated_store), "--json"]).stdout)
    group = doc["groups"][0]["metrics"]
    out = runner.invoke(app, ["results", str(gated_store)], env={"COLUMNS": "200"}).stdout
    u = group["u_buyer"]
    assert f"{score(u['mean'])} ± {score(u['sd'])}" in out
    ag = group["agreement"]
    assert f"{rate(ag['mean'])} ± " in out
    assert not re.search(r"\b0\.\d{3,}\b", out), out  # no three-decimal score


def test_fork_and_series_tables_show_values_as_the_web_page_does(
        lineage_store: dict[str, Any]) -> None:
    """``accord results --forks`` and ``accord series`` printed values with ``:.3g``
    (``0.693``) where the episode page's lineage table shows ``0.69``."""
    from accord.serve.views import num

    store = str(lineage_store["path"])
    doc = json.loads(runner.invoke(app, ["results", store, "--forks", "--json"]).stdout)
    out = runner.invoke(app, ["results", store, "--forks"], env={"COLUMNS": "200"}).stdout
    values = [v for g in doc["forks"] for r in g["rows"] for v in r["values"].values()]
    assert any(isinstance(v, float) and v != round(v, 2) for v in values), values
    for v in values:
        assert f" {num(v)} " in out, (v, out)
    assert not re.search(r"\b0\.\d{3,}\b", out), out
