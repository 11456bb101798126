"""The ``deliberation`` layout: text from hand-made analyses, and end to end from a store
filled by reduced copies of the shipped Table 2 / Table 3 configs through the CLI."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.domains.deliberation import DOMAIN
from accord.domains.deliberation.layout import DASH, deliberation_layout

CONFIGS = Path(__file__).resolve().parents[3] / "src" / "accord" / "configs"
runner = CliRunner()
Episode = Callable[..., dict[str, Any]]


def test_the_domain_offers_the_layout() -> None:
    assert DOMAIN.layouts()["deliberation"] is deliberation_layout


def test_text_has_every_table_and_marks_missing_cells(
        gap: Callable[..., list[dict[str, Any]]]) -> None:
    text, data = deliberation_layout(gap())
    for title in ("Table 2:", "Table 2 (cont.)", "Table 3: no oracle episodes", "Table 7:",
                  "NMAE_pub vs NR"):
        assert title in text
    # menu-numeric has numbers, the settings without episodes dashes
    row = next(line for line in text.splitlines()
               if line.startswith("| Deliberation | share | ✗ |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[3] == "75.00±10.95" and cells[4] == "100.00"
    assert cells[5:] == [DASH] * 4
    fit = next(r for r in data["table7"] if r["domain"] == "menu-numeric")
    line = next(line for line in text.splitlines() if line.startswith("| menu-numeric |"))
    assert f"| {fit['beta']:.2f} |" in line and f"| {fit['r2']:.4f} |" in line
    assert "task-allocation: no instance with both" in text
    assert "no deliberation episode with NMAE_pub" in text


def test_text_table3_rows_show_signed_deltas(episode: Episode) -> None:
    eps = [episode("oracle", "task-allocation", 0, nr=95.0, agents=("share",) * 3),
           episode("centralized", "task-allocation", 0, nr=91.0, agents=("share",)),
           episode("deliberation", "task-allocation", 0, nr=99.0, agents=("share",) * 3)]
    text, _ = deliberation_layout(eps)
    assert "| share | ✗ | 95.00 | +4.00 | -4.00 | 100.00 | +0.00 | +0.00 |" in text
    assert f"| share | ✓ | {DASH} | {DASH} |" in text


def _reduced(name: str, tmp_path: Path, instances: str, agent: str | None = None) -> Path:
    """A copy of a shipped config on fewer instances (and another anchored agent)."""
    text = (CONFIGS / name).read_text(encoding="utf-8")
    text, n = re.subn(r"instance: &instances \[[^\]]*\]", f"instance: &instances {instances}",
                      text)
    assert n == 1
    if agent is not None:
        text = text.replace("&agent share", f"&agent {agent}")
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _bench(config: Path, store: Path) -> None:
    res = runner.invoke(app, ["bench", str(config), "--out", str(store), "--quiet"])
    assert res.exit_code == 0, res.output


def _layout(store: Path, *extra: str) -> Any:
    res = runner.invoke(app, ["results", str(store), "--layout", "deliberation", *extra])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout) if "--json" in extra else res.stdout


def test_shipped_table2_config_store_prints_the_layout(tmp_path: Path) -> None:
    store = tmp_path / "t2.db"
    _bench(_reduced("deliberation_table2.yaml", tmp_path, "[0, 1, 2]"), store)
    text = _layout(store)
    data = _layout(store, "--json")
    assert data["episodes"] == 36 and data["models"] == ["share"]
    assert len(data["table2"]) == 12 and all(c["n"] == 3 for c in data["table2"])
    assert [r["domain"] for r in data["table7"]] == ["menu-numeric", "menu-semantic",
                                                     "task-allocation", "overall"]
    assert [r["n"] for r in data["table7"]] == [6, 6, 6, 18]
    assert [(r["setting"], r["tools"], r["n"]) for r in data["nmae_nr_correlations"]] == \
        [("task-allocation", "without", 3), ("task-allocation", "with", 3),
         ("task-allocation", "all", 6)]
    # the sharing code agent always reaches the optimum: the statistics are undefined and
    # the layout says why instead of failing
    assert "HR is constant" in text and "NR is constant" in text
    assert "Table 3: no oracle episodes" in text and data["table3"] == []


def test_table2_and_table3_runs_in_one_store(tmp_path: Path) -> None:
    store = tmp_path / "all.db"
    _bench(_reduced("deliberation_table2.yaml", tmp_path, "[0, 1, 2]", "naive"), store)
    _bench(_reduced("deliberation_table3.yaml", tmp_path, "[0, 1, 2]", "naive"), store)
    data = _layout(store, "--json")
    assert data["skipped"]["duplicates"] == 12  # Table 3's own deliberation / centralized
    table3 = data["table3"]
    assert [(r["model"], r["tools"]) for r in table3] == [("naive", False), ("naive", True)]
    cells = {(c["mode"], c["tools"], c["setting"]): c for c in data["table2"]}
    for r in table3:
        cent = cells[("centralized", r["tools"], "task-allocation")]
        assert r["delta_o_cent"]["nr"] == pytest.approx(r["oracle"]["nr"] - cent["nr"])
    overall = data["table7"][-1]
    assert overall["n"] == 18 and overall["beta"] is not None and overall["r2"] is not None
    text = _layout(store)
    assert "Table 3: the oracle baseline (task-allocation)" in text
    assert re.search(r"\| overall \| -?\d+\.\d\d \|", text)


def test_table4_from_the_shipped_table2_config_store(tmp_path: Path) -> None:
    """Table 4 (tool use) comes from the same store: the deliberation episodes with tools."""
    store = tmp_path / "t4.db"
    _bench(_reduced("deliberation_table2.yaml", tmp_path, "[0, 1]", "naive"), store)
    data = _layout(store, "--json")
    rows = data["table4"]
    assert [r["setting"] for r in rows][:2] == ["menu-numeric", "task-allocation"]
    assert all(r["model"] == "naive" and r["n"] == 2 for r in rows)
    for r in rows:
        assert r["tool_nr"] is not None and r["actual_nr"] is not None
        assert 0.0 <= r["compliance"] <= 100.0
    text = _layout(store)
    line = next(x for x in text.splitlines() if x.startswith("| naive | menu-numeric |"))
    first = rows[0]
    assert f"| {first['tool_nr']:.2f} | {first['actual_nr']:.2f} |" in line
    # beside the paper: the code agent set in GLM-4.7's row
    doc = _layout(store, "--json", "--compare-published", "--paper-model", "naive=GLM-4.7")
    cells = {(c["table"], c["row"], c["column"]): c for c in doc["published"]["cells"]}
    c = cells[("4", "GLM-4.7 menu-numeric", "tool_nr")]
    assert c["published"] == 94.22
    assert c["difference"] == pytest.approx(first["tool_nr"] - 94.22)
    assert cells[("2", "deliberation GLM-4.7 ✓ menu-numeric", "vr")]["reproduced"] is not None
    assert doc["layout"]["table4"] == rows


def test_table4_by_hand(episode: Episode) -> None:
    eps = [episode("deliberation", "menu-numeric", 0, nr=80.0, tools=True,
                   tool_nr=100.0, tool_compliance=False),
           episode("deliberation", "menu-numeric", 1, nr=100.0, tools=True,
                   tool_nr=100.0, tool_compliance=True),
           episode("deliberation", "menu-numeric", 2, nr=50.0, tools=False)]
    _, data = deliberation_layout(eps)
    assert data["table4"] == [{"model": "share", "setting": "menu-numeric", "n": 2,
                               "tool_nr": 100.0, "actual_nr": 90.0, "compliance": 50.0}]


def test_table7_and_correlations_beside_the_paper(tmp_path: Path) -> None:
    """Seed 001's Table 7 and the NMAE_pub-NR correlations, printed beside a store of the
    shipped Table 2 config (the naive code agent: its HR and NR vary, so β, R² and p are
    defined): reproduced minus published, a p-value printed as a bound checked against it,
    and the paper's silence about the no-tools correlation said in words."""
    store = tmp_path / "t7.db"
    _bench(_reduced("deliberation_table2.yaml", tmp_path, "[0, 1, 2]", "naive"), store)
    doc = _layout(store, "--json", "--compare-published")
    rep = {r["domain"]: r for r in doc["layout"]["table7"]}
    cells = {(c["table"], c["row"], c["column"]): c for c in doc["published"]["cells"]}
    beta = cells[("7", "overall", "beta")]
    assert beta["published"] == 67.56 and beta["reproduced"] == rep["overall"]["beta"]
    assert beta["difference"] == pytest.approx(rep["overall"]["beta"] - 67.56)
    assert cells[("7", "menu-numeric", "r2")]["published"] == 0.0775
    p = cells[("7", "overall", "p")]
    assert p["published"] is None and p["published_below"] == 0.001
    assert p["within"] is (rep["overall"]["p"] < 0.001)
    assert cells[("7", "task-allocation", "p")]["published"] == 0.272
    corr = {r["tools"]: r for r in doc["layout"]["nmae_nr_correlations"]}
    r = cells[("correlations", "task-allocation with tools", "pearson_r")]
    assert r["published"] == -0.2513 and r["reproduced"] == corr["with"]["pearson"]["r"]
    assert cells[("correlations", "task-allocation with tools", "spearman_p")][
        "published_below"] == 0.0001
    text = _layout(store, "--compare-published")
    assert "Published vs reproduced, Table 7 (" in text
    line = next(x for x in text.splitlines() if x.startswith("| overall | beta |"))
    assert f"| 67.56 | {rep['overall']['beta']:.4g} |" in line
    assert re.search(r"\| overall \| p \| < 0\.001 \| [^|]+ \| (within|outside) the bound \|",
                     text)
    assert "Published vs reproduced, NMAE_pub-NR correlations" in text
    assert "Without tools the paper prints no number" in text
