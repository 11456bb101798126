"""Solver and Calculator tools on estimated states, and the code agents' sharing format."""

from __future__ import annotations

import json

from accord.domains.deliberation import MenuInstance, TaskInstance
from accord.domains.deliberation.agent_tools import calculator_tool, solver_tool
from accord.domains.deliberation.agents import pack_messages, parse_share
from accord.domains.deliberation.observations import shared_info


def test_solver_and_calculator_menu(menu: MenuInstance) -> None:
    shared = shared_info(menu)
    est = {"total_ingredients": {"egg": 4, "rice": 2, "tomato": 3},
           "overall_preference": {d: menu.dish_value(d) for d in menu.dishes}}
    out = solver_tool(shared, est)
    assert sorted(out["best_menu"]) == ["fried rice", "salad", "tomato egg"]
    calc = calculator_tool(shared, {**est, "total_ingredients": {"egg": 2, "tomato": 3}},
                           ["omelette", "salad"])
    assert calc["available_dishes"] == ["tomato egg", "salad"]
    assert calc["unavailable_dishes_info"]["fried rice"] == {"rice": 2.0}
    assert calc["unavailable_dishes_info"]["omelette"] == {"egg": 1.0}
    assert calc["proposal"]["feasible"] is False
    assert calc["proposal"]["deficits"] == {"egg": {"need": 3.0, "have": 2.0}}
    assert "error" in solver_tool(shared, {"total_ingredients": {"egg": "lots"}})


def test_calculator_task_hierarchy(tasks: TaskInstance) -> None:
    shared = shared_info(tasks)
    est = {"private_resources": {a: dict(r) for a, r in tasks.private_resources.items()},
           "public_resources": {"Budget": 120},  # an under-estimate of the pooled total
           "efficiency": {a: dict(r) for a, r in tasks.efficiency.items()}}
    calc = calculator_tool(shared, est, {"t1": "agent_2", "t3": "agent_0"})
    assert calc["proposal"]["feasible"] is False
    assert calc["proposal"]["deficits"] == {"Budget": {"need": 200.0, "have": 120.0}}
    calc = calculator_tool(shared, est, {"t2": "agent_2"})
    assert "agent_2/Time" in calc["proposal"]["deficits"]
    best = solver_tool(shared, est)
    assert best["best_allocation"] in ({"t1": "agent_2"}, {"t3": "agent_0"})


def test_share_messages_fit_the_limit() -> None:
    facts = [["ingredients", f"ingredient {i}", i] for i in range(40)]
    msgs = pack_messages(facts, 200)
    assert len(msgs) > 1 and all(len(m) <= 200 for m in msgs)
    got = [parse_share(m) for m in msgs]
    assert all(g is not None for g in got)
    assert [f for g in got if g for f in g[0]] == facts
    assert got[-1] is not None and got[-1][1] == got[-1][2] == len(msgs)
    assert parse_share("hello") is None and parse_share(json.dumps({"x": 1})) is None
