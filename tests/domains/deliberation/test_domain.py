"""End-to-end offline runs with code agents and baselines, plus the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.agents.spec import parse_agent_list
from accord.domains import get_domain
from accord.domains.base import EpisodeSpec, RunContext
from accord.domains.deliberation import SETTINGS, instance_paths
from accord.domains.deliberation.cli import app, run_target

KEYS = {"reward", "max_reward", "nr", "nar", "valid", "hr", "nmae_pub", "decision"}


@pytest.mark.parametrize("setting", SETTINGS)
def test_sharing_agents_reach_the_optimum_in_numeric_settings(setting: str) -> None:
    n = 3 if setting == "task-allocation" else 2
    out = run_target(setting, 1, ["share"] * n, tools=False, seed=0)
    assert set(out) >= KEYS and out["valid"] is True and out["status"] == "agreement"
    if setting != "menu-semantic":  # semantic preferences are only estimated
        assert out["nr"] == pytest.approx(100.0)
    assert out["nr"] > 50 and out["hr"] == 0.0
    assert (out["nmae_pub"] is None) == (setting != "task-allocation")


def test_baselines_and_tools() -> None:
    cen = run_target("task-allocation", 2, ["centralized"], tools=True, seed=0)
    assert cen["mode"] == "centralized" and cen["nr"] == pytest.approx(100.0)
    assert cen["nmae_pub"] == 0.0 and cen["tool_compliance"] is True
    assert cen["tool_nr"] == pytest.approx(100.0) and cen["rounds"] == 1
    ora = run_target("menu-numeric", 2, ["oracle", "oracle"], tools=False, seed=0)
    assert ora["mode"] == "oracle" and ora["nr"] == pytest.approx(100.0)
    naive = run_target("task-allocation", 0, ["naive"] * 3, tools=False, seed=0)
    assert naive["nmae_pub"] > 0.3 and naive["nr"] < 100


async def test_domain_interface_and_records() -> None:
    dom = get_domain("deliberation")
    assert dom.scenarios() == list(SETTINGS)
    assert {"share", "naive", "centralized", "oracle"} <= set(dom.agent_kinds())
    spec = EpisodeSpec("deliberation", "menu-semantic/5", tuple(parse_agent_list("share,share")),
                       {"tools": True}, seed=3)
    res = await dom.run_episode(spec, RunContext())
    assert set(res.record["estimates"]) == {"agent_0", "agent_1"}
    assert all(res.record["estimates"].values())
    assert any(c["tool"] == "solver" for c in res.record["tool_calls"]["agent_0"])
    m = dom.metrics(spec, res)
    assert 0 <= m["nr"] <= 100 and m["tool_nr"] is not None
    with pytest.raises(ValueError, match="needs 3 agent"):
        await dom.run_episode(EpisodeSpec("deliberation", "task-allocation",
                                          tuple(parse_agent_list("share,share"))), RunContext())
    with pytest.raises(ValueError, match="unknown deliberation agent kind"):
        await dom.run_episode(EpisodeSpec("deliberation", "menu-numeric",
                                          tuple(parse_agent_list("share,bogus"))), RunContext())


def test_user_instance_file_without_observations(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({
        "setting": "task-allocation", "agents": ["agent_0", "agent_1", "agent_2"],
        "leader": "agent_2", "tasks": ["t1", "t2"],
        "efficiency": {"agent_0": {"t1": 0.8, "t2": 0.6}},
        "private_resources": {"agent_0": {"Time": 10}},
        "public_resources": {"Budget": 200},
        "requirements": {"t1": {"Time": 3, "Budget": 100}}}))
    out = run_target("task-allocation", str(path), None, tools=False, seed=1)
    assert out["reward"] == pytest.approx(1.4) and out["nr"] == pytest.approx(100.0)


def test_cli_solve_list_check_run(tmp_path: Path) -> None:
    runner = CliRunner()
    path = tmp_path / "menu.json"
    path.write_text(json.dumps({"setting": "menu-numeric", "ingredients": {"egg": 4, "rice": 2},
                                "recipes": {"fried rice": {"egg": 1, "rice": 2}},
                                "guest_scores": {"Alice": {"fried rice": 3.2}}}))
    res = runner.invoke(app, ["solve", str(path), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output) == {"reward": 3.2, "decision": ["fried rice"], "optimal": True,
                                      "time_limit": 60.0}
    task = instance_paths("task-allocation")[0]
    out = json.loads(runner.invoke(app, ["solve", str(task), "--json"]).output)
    assert isinstance(out["decision"], dict) and out["reward"] > 0
    listing = json.loads(runner.invoke(app, ["list", "--json"]).output)
    assert listing == {"settings": {s: 60 for s in SETTINGS}}
    assert runner.invoke(app, ["check", str(task)]).exit_code == 0
    bad = tmp_path / "bad.json"
    bad.write_text('{"setting": "menu-numeric"}')
    res = runner.invoke(app, ["solve", str(bad)])
    assert res.exit_code == 2 and "ingredients: missing required key" in res.output
    res = runner.invoke(app, ["run", "menu-numeric", "--instance", "3", "--agents",
                              "share,share", "--json"])
    assert res.exit_code == 0, res.output
    assert set(json.loads(res.output)) >= KEYS
