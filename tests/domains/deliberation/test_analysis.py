"""The seed 001 analyses over hand-made stored episodes, checked against numpy / by hand."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from accord.domains.deliberation.analysis import (
    analyses,
    episode_rows,
    gap_pairs,
    model_name,
    nmae_correlations,
    table2,
    table3,
    table7,
)

Episode = Callable[..., dict[str, Any]]
Gap = Callable[..., list[dict[str, Any]]]


def test_model_name_folds_baseline_kinds() -> None:
    assert model_name(["share", "share"]) == "share"
    assert model_name(["centralized"]) == "share"
    assert model_name(["llm-centralized:openai/m?temperature=0.3"]) == \
        "llm:openai/m?temperature=0.3"
    assert model_name(["llm:a/x", "llm:b/y"]) == "llm:a/x + llm:b/y"


def test_rows_skip_other_domains_failures_and_duplicates(episode: Episode) -> None:
    eps = [episode("deliberation", "menu-numeric", 0, eid="same"),
           episode("deliberation", "menu-numeric", 0, eid="same"),
           episode("deliberation", "menu-numeric", 1, status="failed"),
           episode(None, "menu-numeric", 0, domain="bargaining")]
    rows, skipped = episode_rows(eps)
    assert len(rows) == 1
    assert skipped == {"other_domains": 1, "not_done": 1, "duplicates": 1, "unreadable": 0}


def test_mode_is_inferred_from_the_kinds_without_params_mode(episode: Episode) -> None:
    rows, _ = episode_rows([episode(None, "task-allocation", 0, agents=("oracle",) * 3),
                            episode(None, "task-allocation", 0, agents=("centralized",)),
                            episode(None, "task-allocation", 0, agents=("share",) * 3)])
    assert [(r.mode, r.model) for r in rows] == [("oracle", "share"), ("centralized", "share"),
                                                 ("deliberation", "share")]


def test_table2_cells_and_missing_cells(episode: Episode) -> None:
    nrs, valid = [100.0, 50.0, 0.0], [True, True, False]
    eps = [episode("deliberation", "menu-numeric", i, nr=nr, nar=nr or 30.0, valid=v, hr=0.1 * i)
           for i, (nr, v) in enumerate(zip(nrs, valid, strict=True))]
    rows, _ = episode_rows(eps)
    cells = {(c["mode"], c["tools"], c["setting"]): c for c in table2(rows)}
    assert len(cells) == 2 * 2 * 3  # every mode x tools x setting, even without episodes
    c = cells[("deliberation", False, "menu-numeric")]
    assert c["n"] == 3 and c["nr"] == pytest.approx(50.0)
    assert c["nr_se"] == pytest.approx(50.0 / math.sqrt(3))  # SD 50
    assert c["vr"] == pytest.approx(200 / 3)
    assert c["nar"] == pytest.approx(60.0)
    assert c["hr"] == pytest.approx(0.1) and c["hr_sd"] == pytest.approx(0.1)
    empty = cells[("centralized", True, "task-allocation")]
    assert empty["n"] == 0 and empty["nr"] is None and empty["vr"] is None


def test_table3_deltas_are_differences_of_cell_means(episode: Episode) -> None:
    eps = [episode("oracle", "task-allocation", i, nr=nr, valid=True, agents=("share",) * 3)
           for i, nr in enumerate([96.0, 94.0])]
    eps += [episode("centralized", "task-allocation", i, nr=nr, valid=v, agents=("share",))
            for i, (nr, v) in enumerate([(90.0, True), (0.0, False)])]
    eps += [episode("deliberation", "task-allocation", 0, nr=70.0, agents=("share",) * 3)]
    rows, _ = episode_rows(eps)
    out = table3(rows)
    assert [(r["setting"], r["tools"]) for r in out] == [("task-allocation", False),
                                                         ("task-allocation", True)]
    no_tools, tools = out
    assert no_tools["oracle"]["nr"] == pytest.approx(95.0) and no_tools["oracle"]["vr"] == 100
    assert no_tools["delta_o_cent"]["nr"] == pytest.approx(95.0 - 45.0)
    assert no_tools["delta_o_cent"]["vr"] == pytest.approx(50.0)
    assert no_tools["delta_o_delib"]["nr"] == pytest.approx(25.0)
    assert tools["oracle"]["n"] == 0 and tools["delta_o_cent"]["nr"] is None
    assert table3(episode_rows(eps[2:])[0]) == []  # no oracle episodes: no Table 3


def test_table7_regresses_the_centralized_gap_on_hr(episode: Episode, gap: Gap,
                                                     gap_values: dict[str, list[float]]
                                                     ) -> None:
    hr, cent, delib = gap_values["hr"], gap_values["cent_nr"], gap_values["delib_nr"]
    eps = gap()
    eps.append(episode("deliberation", "menu-numeric", 9, hr=0.9, nr=0.0))  # no partner: unpaired
    rows, _ = episode_rows(eps)
    pairs, missing = gap_pairs(rows)
    assert [p["gap"] for p in pairs] == [0.0, 10.0, 10.0, 40.0, 50.0] and missing == 0
    by = {r["domain"]: r for r in table7(rows)}
    fit = by["menu-numeric"]
    beta, alpha = np.polyfit(hr, np.subtract(cent, delib), 1)
    assert fit["beta"] == pytest.approx(beta) and fit["intercept"] == pytest.approx(alpha)
    r = np.corrcoef(hr, np.subtract(cent, delib))[0, 1]
    assert fit["r2"] == pytest.approx(r * r) and fit["n"] == 5
    assert by["overall"]["beta"] == pytest.approx(beta)  # the only setting with pairs
    assert by["task-allocation"]["n"] == 0 and "no instance" in by["task-allocation"]["note"]


def test_table7_overall_pools_settings(gap: Gap, gap_values: dict[str, list[float]]) -> None:
    hr, cent, delib = gap_values["hr"], gap_values["cent_nr"], gap_values["delib_nr"]
    rows, _ = episode_rows(gap("menu-numeric") + gap("menu-semantic"))
    overall = {r["domain"]: r for r in table7(rows)}["overall"]
    assert overall["n"] == 10
    beta = np.polyfit(hr * 2, np.subtract(cent, delib).tolist() * 2, 1)[0]
    assert overall["beta"] == pytest.approx(beta)


def test_table7_leaves_out_pairs_without_hr(gap: Gap) -> None:
    eps = gap()
    eps[0]["metrics"]["hr"] = None
    rows, _ = episode_rows(eps)
    assert gap_pairs(rows)[1] == 1
    assert {r["domain"]: r for r in table7(rows)}["menu-numeric"]["n"] == 4


def test_nmae_correlations_per_tool_subset(episode: Episode) -> None:
    nmae = [0.0, 0.1, 0.3, 0.2, 0.6]
    nr = [100.0, 95.0, 40.0, 80.0, 10.0]
    eps = [episode("deliberation", "task-allocation", i, tools=True, nmae_pub=x, nr=y,
              agents=("share",) * 3) for i, (x, y) in enumerate(zip(nmae, nr, strict=True))]
    eps += [episode("centralized", "task-allocation", 0, nmae_pub=0.9, nr=0.0, agents=("share",))]
    rows, _ = episode_rows(eps)
    out = {r["tools"]: r for r in nmae_correlations(rows)}
    assert out["with"]["n"] == 5 and out["all"]["n"] == 5  # centralized episodes left out
    assert out["with"]["pearson"]["r"] == pytest.approx(np.corrcoef(nmae, nr)[0, 1])
    assert out["with"]["spearman"]["rho"] == pytest.approx(-1.0)  # strictly decreasing
    assert out["without"]["n"] == 0 and out["without"]["note"]


def test_analyses_is_strict_json_and_needs_episodes(episode: Episode, gap: Gap) -> None:
    data = analyses(gap())
    json.dumps(data, allow_nan=False)
    assert data["episodes"] == 10 and data["models"] == ["share"]
    with pytest.raises(ValueError, match="no finished deliberation episodes"):
        analyses([episode(None, "x", 0, domain="bargaining")])
