"""The generator applies the selection principles and is deterministic given its rng."""

from __future__ import annotations

import numpy as np

from accord.domains.deliberation import MenuInstance, TaskInstance, optimum, shipped_instance
from accord.domains.deliberation.generator import select_menu_instances, select_task_instances
from accord.domains.deliberation.load import instance_to_dict
from accord.domains.deliberation.observations import check_observations
from accord.domains.deliberation.rewards import check_decision


def test_menu_selection_principles_and_determinism() -> None:
    a = select_menu_instances("menu-semantic", np.random.default_rng(7), candidates=150, keep=4)
    b = select_menu_instances("menu-semantic", np.random.default_rng(7), candidates=150, keep=4)
    assert [instance_to_dict(i) for i in a] == [instance_to_dict(i) for i in b]
    assert len(a) == 4
    for inst in a:
        assert inst.personas and check_observations(inst) == []
        assert sum(1 for v in inst.ingredients.values() if v > 0) >= 8
        possible = [d for d in inst.dishes if check_decision(inst, [d]).valid]
        assert len(possible) >= 5 and len(possible) >= 0.4 * len(inst.dishes)
        assert len(optimum(inst).decision) >= 3


def test_task_selection_principles() -> None:
    out = select_task_instances(np.random.default_rng(3), candidates=30, keep=2)
    assert [i.extra["domain"] for i in out] == ["research"] * 2 + ["cafeteria"] * 2 + \
        ["camping"] * 2
    for inst in out:
        assert len(inst.tasks) == 10 and inst.leader == "agent_2"
        assert len(optimum(inst).decision) >= 3 and check_observations(inst) == []


def test_shipped_instances_satisfy_the_principles() -> None:
    for i in range(0, 60, 7):
        m = shipped_instance("menu-numeric", i)
        assert isinstance(m, MenuInstance) and len(optimum(m).decision) >= 3
        t = shipped_instance("task-allocation", i)
        assert isinstance(t, TaskInstance) and len(optimum(t).decision) >= 3
