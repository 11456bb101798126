"""``accord results -m gap_...``: the gaps to the optimum on a store of real episodes agree
with the distances the bargaining domain stores itself (issue 27)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.bench import Store
from accord.bench.aggregate import DERIVED_KINDS, GAP_METRICS
from accord.bench.optimality import GAP_KEYS, GAP_TEXT, episode_gaps
from accord.cli.main import app


def test_the_gap_keys_are_one_list() -> None:
    assert GAP_METRICS == GAP_KEYS and set(GAP_TEXT) == set(GAP_KEYS)
    assert set(DERIVED_KINDS) == set(GAP_KEYS)


def test_results_reports_gaps_that_match_the_stored_distances(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    runner = CliRunner()
    res = runner.invoke(app, ["bench", "demo", "--out", str(db)])
    assert res.exit_code == 0, res.output
    with Store.open_readonly(db) as st:
        rows = st.episodes()
    agreed = [r for r in rows if r.outcome == "agreement"]
    assert agreed
    for r in agreed:  # the domain's own l2_to_pareto / l2_to_nash, computed at run time
        g = episode_gaps(r)
        assert g is not None
        assert g.values["gap_pareto"] == pytest.approx(r.metrics["l2_to_pareto"], abs=1e-9)
        assert g.values["gap_nash"] == pytest.approx(r.metrics["l2_to_nash"], abs=1e-9)
    res = runner.invoke(app, ["results", str(db), "-g", "agents", "-m",
                              "gap_pareto,gap_nash,welfare_left", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["metrics"] == {"gap_pareto": "number", "gap_nash": "number",
                              "welfare_left": "number"}
    for grp in doc["groups"]:
        stat = grp["metrics"]["gap_pareto"]
        assert stat["n"] == grp["done"] and stat["mean"] >= 0
