"""Budgets of the deliberation commands (issue 24): ``solve --time-limit`` marks a partial
answer, ``generate`` refuses hostile options and stops its search on a time budget.

The generator's budget runs on an injected clock (one second per reading), so the
tests never depend on how fast the machine is.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.domains.deliberation import load_instance
from accord.domains.deliberation.generator import select_menu_instances, select_task_instances
from accord.domains.deliberation.rewards import check_decision
from accord.domains.deliberation.search_budget import (
    MAX_CANDIDATES,
    SearchBudget,
    check_generate_options,
)

runner = CliRunner()
SHIPPED = (Path(__file__).resolve().parents[3]
           / "src/accord/domains/deliberation/data/instances/menu-numeric/00.json")


def hard_instance(path: Path) -> Path:
    """A menu instance inside the size caps (190 dishes, 40 ingredients) whose ILP takes
    minutes to prove optimal."""
    rng = np.random.default_rng(5)
    ings = [f"i{k}" for k in range(40)]
    dishes = [f"d{k}" for k in range(190)]
    rec = {d: {str(i): int(rng.integers(1, 30)) for i in rng.choice(ings, 12, replace=False)}
           for d in dishes}
    demand = {i: sum(r.get(i, 0) for r in rec.values()) for i in ings}
    scores = {g: {d: round(float(rng.uniform(1, 50)), 2) for d in dishes} for g in "AB"}
    path.write_text(json.dumps({
        "setting": "menu-numeric", "id": "hard", "ingredients": {i: demand[i] // 3 for i in ings},
        "recipes": rec, "guest_scores": scores, "agents": ["agent_0", "agent_1"]}))
    return path


def test_solve_marks_an_answer_cut_by_the_time_limit(tmp_path: Path) -> None:
    path = hard_instance(tmp_path / "hard.json")
    res = runner.invoke(app, ["deliberation", "solve", str(path), "--time-limit", "0.05",
                              "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["optimal"] is False and data["time_limit"] == 0.05
    assert check_decision(load_instance(path), data["decision"]).valid
    res = runner.invoke(app, ["deliberation", "solve", str(path), "--time-limit", "0.05"])
    assert res.exit_code == 0, res.output
    assert "best reward found" in res.stdout and "not proven optimal" in res.stdout
    assert "time limit of 0.05 s ran out" in res.stdout


def test_solve_within_the_limit_is_optimal() -> None:
    res = runner.invoke(app, ["deliberation", "solve", str(SHIPPED), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["optimal"] is True and data["time_limit"] == 60.0
    res = runner.invoke(app, ["deliberation", "solve", str(SHIPPED)])
    assert ": optimal reward " in res.stdout


@pytest.mark.parametrize("limit", ["0", "-1", "nan"])
def test_solve_refuses_a_bad_time_limit(limit: str) -> None:
    res = runner.invoke(app, ["deliberation", "solve", str(SHIPPED), "--time-limit", limit])
    assert res.exit_code == 2
    assert "--time-limit" in res.output


@pytest.mark.parametrize("options, message", [
    (["--keep", "-5", "--candidates", "3"], "--keep must be 1..1,000, got -5"),
    (["--keep", "0", "--candidates", "3"], "--keep must be 1..1,000, got 0"),
    (["--seed", "-1", "--candidates", "3"], "--seed must be a non-negative integer"),
    (["--candidates", "-1"], "--candidates must be 1..100,000"),
])
def test_generate_refuses_hostile_options(tmp_path: Path, options: list[str],
                                          message: str) -> None:
    res = runner.invoke(app, ["deliberation", "generate", "menu-numeric", "--out",
                              str(tmp_path), *options])
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert not (tmp_path / "menu-numeric").exists() or not any(
        (tmp_path / "menu-numeric").iterdir())


def test_generate_option_ranges() -> None:
    check_generate_options(MAX_CANDIDATES, 1, 0, 0.5)
    check_generate_options(None, None, None, None)
    for bad in ({"candidates": MAX_CANDIDATES + 1}, {"candidates": 0}, {"keep": 10**6},
                {"seed": 2**200}, {"time_limit": 0.0}, {"time_limit": float("inf")}):
        args = {"candidates": None, "keep": None, "seed": None, "time_limit": None, **bad}
        with pytest.raises(ValueError, match="must be"):
            check_generate_options(**args)  # type: ignore[arg-type]


class Ticks:
    """A clock that advances one second every time it is read."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def test_the_menu_search_stops_on_its_time_budget() -> None:
    budget = SearchBudget(5.5, clock=Ticks())
    out = select_menu_instances("menu-numeric", np.random.default_rng(1), candidates=10_000,
                                keep=3, budget=budget)
    # start at t=1; candidates are drawn at t=2..6 (elapsed 1..5 < 5.5); t=7 stops
    assert budget.drawn == 5 and budget.planned == 10_000 and budget.stopped
    assert len(out) <= 3
    assert "after 5 of 10,000 candidates" in budget.sentence()
    assert "partial" in budget.sentence()


def test_the_task_search_splits_its_budget_over_sub_domains() -> None:
    budget = SearchBudget(6.5, clock=Ticks())
    out = select_task_instances(np.random.default_rng(2), candidates=1_000, keep=1,
                                budget=budget)
    # each of the 3 sub-domains stops at its third of 6.5 s: draws at elapsed 1, 2 | 3, 4 |
    # 5, 6 (a reading that says stop also advances the clock)
    assert budget.planned == 3_000 and budget.stopped
    assert 3 <= budget.drawn <= 6
    assert len(out) <= 3


def test_an_unlimited_budget_draws_every_candidate() -> None:
    budget = SearchBudget()
    select_menu_instances("menu-numeric", np.random.default_rng(1), candidates=4, keep=1,
                          budget=budget)
    assert budget.drawn == budget.planned == 4 and not budget.stopped


def test_the_solver_tool_stops_on_its_time_limit(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from accord.domains.deliberation import MenuInstance, agent_tools
    from accord.domains.deliberation.observations import shared_info

    inst = load_instance(hard_instance(tmp_path / "hard.json"))
    assert isinstance(inst, MenuInstance)
    monkeypatch.setattr(agent_tools, "SOLVER_TOOL_SECONDS", 0.05)
    estimate = {"total_ingredients": dict(inst.ingredients),
                "overall_preference": {d: inst.dish_value(d) for d in inst.dishes}}
    out = agent_tools.solver_tool(shared_info(inst), estimate)
    assert out["proven_optimal"] is False
    assert check_decision(inst, out["best_menu"]).valid


def test_metrics_say_when_the_maximum_was_not_proven(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio
    import dataclasses

    from accord.agents.spec import parse_agent_list
    from accord.domains.base import EpisodeSpec, RunContext
    from accord.domains.deliberation import DOMAIN, optimum
    from accord.domains.deliberation import domain as domain_module

    spec = EpisodeSpec("deliberation", "menu-numeric", tuple(parse_agent_list("share,share")),
                       {"instance": 0, "tools": False}, 0)
    result = asyncio.run(DOMAIN.run_episode(spec, RunContext(episode_id="t")))
    assert "max_reward_proven" not in DOMAIN.metrics(spec, result)
    # the same episode when the optimum's search was cut by its time limit
    monkeypatch.setattr(domain_module, "optimum",
                        lambda inst: dataclasses.replace(optimum(inst), optimal=False))
    assert DOMAIN.metrics(spec, result)["max_reward_proven"] is False
