"""The seeds' published figures (accord.bench.published): hand-checked cells of the data
files, the comparison with a reproduction, and ``--compare-published`` on a store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.agents.spec import parse_agent_spec
from accord.bench.published import (
    PublishedError,
    compare,
    format_comparison,
    load_published,
    paper_name,
    parse_aliases,
    published_tables,
)
from accord.cli.main import app


def _table(seed: str, number: str) -> dict:
    return next(t for t in load_published(seed)["tables"] if t["table"] == number)


def test_hand_checked_cells_of_seed_003() -> None:
    # Table 5 (seed line 327): Stag Hunt NE 0.6 0.8 0.9 0.4, PO-NE 0.3 0.4 0.0 0.1
    t5 = _table("seed003", "5")
    assert t5["columns"] == ["Sonnet", "GPT-4o", "Opus", "o1"]
    assert t5["rows"]["stag-hunt"] == {"ne": [0.6, 0.8, 0.9, 0.4], "pone": [0.3, 0.4, 0.0, 0.1]}
    assert t5["rows"]["average"]["pone"] == [0.44, 0.28, 0.50, 0.75]
    # Table 6: negotiation turns the Prisoner's Dilemma away from the NE (0.0 0.1 0.0 0.9)
    assert _table("seed003", "6")["rows"]["prisoners-dilemma"]["ne"] == [0.0, 0.1, 0.0, 0.9]
    assert _table("seed003", "7")["rows"]["duopolistic-competition"]["ne"] == \
        [1.0, 0.5, 0.6, 0.3]
    assert _table("seed003", "8")["rows"]["average"]["ne"] == [0.73, 0.78, 0.83, 0.88]
    # Table 10: Best 5.82 / 6.66 / 12.48; Sonnet 7.07 rounds, 0.9545 agreement, 11.11 total
    t10 = _table("seed003", "10")["rows"]
    assert t10["Best"] == [None, 1.0, 5.82, 6.66, 1.0, 1.0, 12.48]
    assert t10["Sonnet"] == [7.07, 0.9545, 5.55, 5.57, 0.7045, 0.7045, 11.11]
    assert _table("seed003", "11")["rows"]["temp=1.0"][4] == 0.4090  # as printed
    assert _table("seed003", "12")["rows"]["Opus"][-1] == 12.31
    assert _table("seed003", "13")["rows"]["temp=0.0"] == [4.80, 1.0, 5.53, 6.67, 0.8695,
                                                         1.0, 12.20]
    assert _table("seed003", "17")["rows"]["GPT-4o"][0] == 11.84
    assert _table("seed003", "18")["rows"]["Opus"] == [3.89, 0.7955, 4.86, 4.57, 0.4318,
                                                      0.5455, 9.43]
    for t in load_published("seed003")["tables"]:
        assert t["section"] and t["line"] > 0  # the reference of every table


def test_hand_checked_cells_of_seed_001_table4() -> None:
    t4 = _table("seed001", "4")
    assert t4["rows"]["GPT-5.1"]["task-allocation"] == [96.67, 76.06, 0.00]
    assert t4["rows"]["GLM-4.7"]["menu-numeric"] == [94.22, 89.81, 71.19]
    assert t4["rows"]["Qwen3-Next-80B"]["task-allocation"] == [58.56, 52.54, 22.03]


def test_models_aliases_and_errors() -> None:
    doc, _ = published_tables("games")
    assert paper_name("anthropic/claude-3-5-sonnet-20240620", doc, {}) == "Sonnet"
    assert paper_name("openai/gpt-4o", doc, {}) == "GPT-4o"
    assert paper_name("mock/games", doc, {}) is None
    assert paper_name("mock/games", doc, parse_aliases(["mock/games=Opus"])) == "Opus"
    with pytest.raises(PublishedError, match="MODEL=PAPER_NAME"):
        parse_aliases(["Opus"])
    with pytest.raises(PublishedError, match="no published figures for the 'bargaining'"):
        compare("bargaining", {})


def test_the_difference_is_reproduced_minus_published() -> None:
    cells = {"ne": 0.5, "pone": 0.25, "n": 4}
    rep = {"tables": [{"table": "5", "mode": "cot", "negotiation_rounds": 0,
                       "models": ["openai/gpt-4o"],
                       "rows": [{"game": "stag-hunt", "cells": {"openai/gpt-4o": cells}}],
                       "average": {"openai/gpt-4o": {"ne": 0.5, "pone": 0.25}}}]}
    cmp = compare("games", rep)
    got = {(c["table"], c["row"], c["column"]): c for c in cmp["cells"]}
    c = got[("5", "stag-hunt", "NE GPT-4o")]
    assert (c["published"], c["reproduced"]) == (0.8, 0.5)
    assert c["difference"] == pytest.approx(-0.3)
    assert got[("5", "stag-hunt", "PO-NE GPT-4o")]["difference"] == pytest.approx(-0.15)
    assert got[("5", "average", "NE GPT-4o")]["difference"] == pytest.approx(0.5 - 0.32)
    assert got[("5", "stag-hunt", "NE Sonnet")]["reproduced"] is None
    assert got[("6", "stag-hunt", "NE GPT-4o")]["difference"] is None  # no 4-round cells
    # Tables 5-8: 4 x 88 cells; Figure 12: the human split rate (no line-up to meet)
    assert cmp["compared"] == 4 and cmp["published_cells"] == 4 * 88 + 1
    assert cmp["mean_abs_difference"] == pytest.approx((0.3 + 0.15 + 0.18 + 0.03) / 4)
    text = format_comparison(cmp)
    assert "| stag-hunt | NE GPT-4o | 0.8 | 0.5 | -0.3 |" in text
    assert "Table 6" in text and "No reproduced counterpart" in text


def test_dond_rows_meet_by_model_best_and_temperature() -> None:
    row = {"row": "raw-gpt4o", "n": 2, "models": ["openai/gpt-4o"] * 2, "rounds": 18.0,
           "agreement": 0.5, "alice": 2.8, "bob": 4.0, "pareto_optimal": 0.5,
           "envy_free": 0.5, "total": 6.8}
    best = {"row": "Best", "n": 2, "rounds": None, "agreement": 1.0, "alice": 5.82,
            "bob": 6.66, "pareto_optimal": 1.0, "envy_free": 1.0, "total": 12.48}
    rep = {"tables": [{"table": "10", "rows": [row], "best": best}]}
    cells = {(c["table"], c["row"], c["column"]): c for c in compare("dond", rep)["cells"]}
    assert cells[("10", "GPT-4o", "total")]["difference"] == pytest.approx(6.8 - 7.14)
    assert cells[("10", "Best", "alice")]["difference"] == pytest.approx(0.0)
    assert cells[("10", "Best", "rounds")]["difference"] is None  # "_" in the paper
    assert cells[("10", "Human", "agreement")]["reproduced"] is None


def test_cli_compare_published_on_a_games_store(tmp_path: Path) -> None:
    from accord.bench import EpisodeRecord, Store
    from accord.bench.expand import PlannedEpisode
    from accord.domains.base import EpisodeSpec

    path = tmp_path / "g.db"
    agent = "llm:anthropic/claude-3-5-sonnet-20240620?temperature=1"
    spec_agent = parse_agent_spec(agent)
    with Store.open(path) as st:
        prov = {"accord_version": "t", "git_commit": None}
        sid = st.begin_session("r", {"name": "r"}, "test", prov, "local", 1)
        plan, recs = [], []
        for k, nash in enumerate((True, False)):
            spec = EpisodeSpec("games", "stag-hunt", (spec_agent, spec_agent), {}, k)
            plan.append(PlannedEpisode(f"e{k}", spec, 0, {}, k))
            recs.append(EpisodeRecord(f"e{k}", "done", "completed", {"record": {}},
                                      {"nash": nash, "pareto_optimal_nash": nash}))
        st.add_planned("r", plan)
        for r in recs:
            st.write("r", r, sid)
    runner = CliRunner()
    res = runner.invoke(app, ["results", str(path), "--layout", "games",
                              "--compare-published", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    c = next(x for x in doc["published"]["cells"]
             if x["table"] == "5" and x["row"] == "stag-hunt" and x["column"] == "NE Sonnet")
    assert (c["published"], c["reproduced"]) == (0.6, 0.5)
    assert c["difference"] == pytest.approx(-0.1)
    assert doc["layout"]["tables"][0]["table"] == "5"
    res = runner.invoke(app, ["results", str(path), "--compare-published"])
    assert res.exit_code != 0 and "work with --layout" in res.output


def test_hand_checked_cells_of_seed_001_tables2_and_3() -> None:
    t2 = {(r["mode"], r["model"], r["tools"]): r["cells"]
          for r in _table("seed001", "2")["rows"]}
    assert len(t2) == 28  # 7 models x {deliberation, centralized} x {✗, ✓}
    assert t2[("deliberation", "GPT-5.1", False)]["menu-numeric"] == [95.60, 1.51, 100.00]
    assert t2[("centralized", "Qwen3-32B", False)]["task-allocation"] == [1.11, 1.11, 1.67]
    assert t2[("deliberation", "GPT-4.1-mini", True)]["menu-semantic"] == [24.17, 4.99, 30.00]
    t3 = {(r["model"], r["tools"]): r["values"] for r in _table("seed001", "3")["rows"]}
    assert t3[("GPT-5.1", False)] == [95.54, 0.61, 3.87, 15.26, 100.00, 0.00, 1.67]
    assert t3[("GLM-4.7", False)][-2:] == [20.00, 13.34]
    # Table 4's Actual NR is Table 2's deliberation-with-tools NR (GPT-5.1, task allocation)
    t4 = _table("seed001", "4")["rows"]
    assert t4["GPT-5.1"]["task-allocation"][1] == t2[("deliberation", "GPT-5.1", True)][
        "task-allocation"][0]


def test_deliberation_cells_meet_through_the_agent_spec() -> None:
    spec = "llm:openai/gpt-5.1-2025-11-13?temperature=0.3"
    cell = {"model": spec, "mode": "deliberation", "tools": False, "setting": "menu-numeric",
            "n": 3, "nr": 90.0, "nr_se": 2.0, "vr": 100.0}
    t4 = {"model": "share", "setting": "task-allocation", "n": 2, "tool_nr": 100.0,
          "actual_nr": 80.0, "compliance": 50.0}
    cmp = compare("deliberation", {"table2": [cell], "table3": [], "table4": [t4]},
                  parse_aliases(["share=GLM-4.7"]))
    got = {(c["table"], c["row"], c["column"]): c for c in cmp["cells"]}
    c = got[("2", "deliberation GPT-5.1 ✗ menu-numeric", "nr")]
    assert (c["published"], c["reproduced"], c["model"]) == (95.60, 90.0, spec)
    assert c["difference"] == pytest.approx(90.0 - 95.60)
    assert got[("4", "GLM-4.7 task-allocation", "compliance")]["difference"] == \
        pytest.approx(50.0 - 12.28)
    assert got[("3", "GPT-5.1 ✗", "nr")]["reproduced"] is None
    assert cmp["compared"] == 6


def test_seed001_table7_and_correlations_by_hand() -> None:
    """Table 7 (lines 627-630) and the correlations (line 640) as printed; a bound ("p <
    .001") is met or missed, not subtracted."""
    t7 = _table("seed001", "7")
    assert t7["columns"] == ["beta", "r2", "p"]
    assert t7["rows"]["menu-numeric"] == [61.35, 0.0775, {"below": 0.001}]
    assert t7["rows"]["task-allocation"] == [277.43, 0.0014, 0.272]
    assert t7["rows"]["overall"][:2] == [67.56, 0.1300]
    corr = _table("seed001", "correlations")
    assert corr["rows"]["with"] == [-0.2513, {"below": 0.0001}, -0.2886, {"below": 0.0001}]
    assert "without" not in corr["rows"] and "not statistically significant" in corr["notes"][0]
    rep = {"table2": [], "table3": [], "table4": [],
           "table7": [{"domain": "overall", "beta": 60.0, "r2": 0.2, "p": 0.0004},
                      {"domain": "task-allocation", "beta": None, "r2": None, "p": 0.5}],
           "nmae_nr_correlations": [
               {"setting": "task-allocation", "tools": "with",
                "pearson": {"r": -0.3, "p": 0.02}, "spearman": {"rho": -0.25, "p": 0.00001}},
               {"setting": "task-allocation", "tools": "without",
                "pearson": {"r": 0.1, "p": 0.6}, "spearman": {"rho": 0.1, "p": 0.6}}]}
    cmp = compare("deliberation", rep)
    got = {(c["table"], c["row"], c["column"]): c for c in cmp["cells"]}
    assert got[("7", "overall", "beta")]["difference"] == pytest.approx(60.0 - 67.56)
    assert got[("7", "overall", "p")]["within"] is True
    assert got[("7", "task-allocation", "p")]["difference"] == pytest.approx(0.5 - 0.272)
    assert got[("7", "task-allocation", "beta")]["reproduced"] is None
    r = got[("correlations", "task-allocation with tools", "pearson_r")]
    assert r["difference"] == pytest.approx(-0.3 + 0.2513)
    assert got[("correlations", "task-allocation with tools", "pearson_p")]["within"] is False
    assert got[("correlations", "task-allocation with tools", "spearman_p")]["within"] is True
    # 2 + 1 + 1 table 7 figures with a value, 4 correlation figures
    assert cmp["compared"] == 8
    text = format_comparison(cmp)
    assert "| overall | p | < 0.001 | 0.0004 | within the bound |" in text
    assert "| task-allocation with tools | pearson_r | -0.2513 | -0.3 | -0.0487 |" in text
    assert "| task-allocation with tools | pearson_p | < 0.0001 | 0.02 | outside the bound |" \
        in text
    assert "Note: Without tools the paper prints no number" in text
