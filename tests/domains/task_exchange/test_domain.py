"""Domain plug-in, CLI target runner and the Figure 2 plot."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from accord.agents.spec import parse_agent_spec
from accord.domains.base import EpisodeSpec, RunContext
from accord.domains.task_exchange import DOMAIN, get_scenario
from accord.domains.task_exchange.cli import app, run_target
from accord.domains.task_exchange.plot import render_trajectories_png


def test_domain_interface() -> None:
    assert DOMAIN.name == "task-exchange"
    assert DOMAIN.scenarios() == ["competitive", "cooperative"]
    assert DOMAIN.agent_kinds() == ["utility-aware", "selfish", "scripted", "llm", "human"]


async def test_domain_runs_an_episode_and_computes_metrics() -> None:
    spec = EpisodeSpec("task-exchange", "competitive",
                       (parse_agent_spec("scripted:UNK+keep"), parse_agent_spec("utility-aware")),
                       {"strategy": "utility-aware"}, seed=4)
    res = await DOMAIN.run_episode(spec, RunContext())
    m = DOMAIN.metrics(spec, res)
    assert m["invalid_unknown_task"] == 1 and m["error"] is False
    assert m["initial_utility_Alice"] == 0.58 and m["initial_l2_to_pareto"] < 0.03
    assert m["attempts"] == m["turns"] + 1
    json.dumps(m)


def test_run_target_json_shape() -> None:
    out = run_target("cooperative", ["utility-aware", "utility-aware"], "baseline", 1)
    assert out["status"] == "agreed"
    assert set(out["invalid"]) >= {"unknown_task", "overlap", "missing_proposal_open_tag"}
    assert set(out["utilities"]) == {"Alice", "Bob"}
    assert out["social_welfare"] == sum(out["utilities"].values())
    assert out["allocation"]["Alice"]["mask"] and out["l2_to_pareto"] >= 0
    err = run_target("cooperative", ["scripted:EMP*6", "utility-aware"], "utility-aware", 0)
    assert err["status"] == "error" and err["allocation"] is None
    assert err["utilities"] is None and err["social_welfare"] is None  # null on error (issue 7)
    assert err["invalid"]["empty_agent"] == 6
    json.dumps(err)


def test_cli_commands(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["list", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["scenarios"]["competitive"]["initial"]["social_welfare"] == 0.83
    res = runner.invoke(app, ["run", "cooperative", "--agents", "selfish,utility-aware",
                              "--strategy", "baseline", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["strategy"] == "baseline"
    res = runner.invoke(app, ["prompt", "cooperative", "--role", "Bob",
                              "--strategy", "baseline"])
    assert res.exit_code == 0 and res.output.startswith("You are agent Bob.")
    out = tmp_path / "fig2.png"
    res = runner.invoke(app, ["plot", "competitive", "--out", str(out), "--runs", "2"])
    assert res.exit_code == 0, res.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    res = runner.invoke(app, ["run", "cooperative", "--agents", "selfish"])
    assert res.exit_code != 0 and "exactly 2 agents" in res.output


def test_plot_marks_every_run() -> None:
    sc = get_scenario("cooperative")
    rec = {"status": "agreed", "proposals": [
        {"turn": 2, "proposer": "Alice", "masks": {"Alice": "111000", "Bob": "000111"}},
        {"turn": 3, "proposer": "Bob", "masks": None},
        {"turn": 4, "proposer": "Alice", "masks": {"Alice": "100001", "Bob": "011110"}}]}
    png = render_trajectories_png(sc, [rec, rec])
    assert png[:4] == b"\x89PNG" and len(png) > 5000


def test_plot_title_counts_runs_in_words() -> None:
    from accord.domains.task_exchange.plot import trajectories_figure

    sc = get_scenario("competitive")
    rec = {"status": "agreed", "proposals": [
        {"turn": 2, "proposer": "Alice", "masks": {"Alice": "111000", "Bob": "000111"}}]}
    one = trajectories_figure(sc, [rec]).axes[0].get_title()
    two = trajectories_figure(sc, [rec, rec]).axes[0].get_title()
    assert one == "competitive: proposal trajectories (1 run)"
    assert two == "competitive: proposal trajectories (2 runs)"
