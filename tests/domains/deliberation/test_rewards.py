"""Reward functions and feasibility on hand-computed examples."""

from __future__ import annotations

import pytest

from accord.domains.deliberation import MenuInstance, TaskInstance, optimum, parse_instance, reward
from accord.domains.deliberation.rewards import check_decision, menu_reward, task_reward


def test_issue_menu_example() -> None:
    inst = parse_instance({"setting": "menu-numeric", "ingredients": {"egg": 4, "rice": 2},
                           "recipes": {"fried rice": {"egg": 1, "rice": 2}},
                           "guest_scores": {"Alice": {"fried rice": 3.2}}})
    assert reward(inst, ["fried rice"]) == pytest.approx(3.2)
    assert reward(inst, []) == 0.0
    assert optimum(inst).reward == pytest.approx(3.2)


def test_menu_reward_sums_guest_scores_and_zero_when_short(menu: MenuInstance) -> None:
    # fried rice 3.2+2.8, tomato egg 4+2.5, salad 1 (Bob has no score: 0)
    assert menu_reward(menu, ["fried rice", "tomato egg", "salad"]) == pytest.approx(13.5)
    assert menu_reward(menu, ["fried rice", "omelette"]) == pytest.approx(12.0)
    # omelette + tomato egg needs 5 eggs, only 4
    assert menu_reward(menu, ["omelette", "tomato egg"]) == 0.0
    feas = check_decision(menu, ["omelette", "tomato egg"])
    assert not feas.valid and feas.deficits == {"egg": {"need": 5.0, "have": 4.0}}
    assert menu_reward(menu, ["fried rice", "fried rice"]) == 0.0  # a dish only once
    assert menu_reward(menu, ["pizza"]) == 0.0
    assert reward(menu, None) == 0.0
    assert reward(menu, {"fried rice": 1, "salad": 1, "omelette": 0}) == pytest.approx(7.0)


def test_menu_optimum_hand_computed(menu: MenuInstance) -> None:
    best = optimum(menu)
    assert best.reward == pytest.approx(13.5)
    assert sorted(best.decision) == ["fried rice", "salad", "tomato egg"]


def test_task_reward_rules(tasks: TaskInstance) -> None:
    assert task_reward(tasks, {"t1": "agent_2", "t3": "agent_0"}) == pytest.approx(1.8)
    # agent -> tasks form
    assert task_reward(tasks, {"agent_2": ["t1"], "agent_0": ["t3"]}) == pytest.approx(1.8)
    # missing efficiency counts 0 (agent_2 has none for t3)
    assert task_reward(tasks, {"t3": "agent_2"}) == 0.0
    # private: agent_2 has Time 3, t2 needs 4
    assert task_reward(tasks, {"t2": "agent_2"}) == 0.0
    # private use is per agent: t1 (3) + t3 (2) = 5 <= agent_0's 5
    assert task_reward(tasks, {"t1": "agent_0", "t3": "agent_0"}) == pytest.approx(1.7)
    # public use is summed over agents: 100 + 50 + 100 > 200
    alloc = {"t1": "agent_2", "t2": "agent_1", "t3": "agent_0"}
    assert task_reward(tasks, alloc) == 0.0
    feas = check_decision(tasks, alloc)
    assert feas.deficits == {"Budget": {"need": 250.0, "have": 200.0}}
    # a task to two agents is invalid
    assert task_reward(tasks, {"agent_0": ["t3"], "agent_1": ["t3"]}) == 0.0
    assert task_reward(tasks, {"t1": "nobody", "t3": "agent_0"}) == pytest.approx(0.9)
    assert task_reward(tasks, {"t9": "agent_0"}) == 0.0


def test_task_optimum_hand_computed(tasks: TaskInstance) -> None:
    best = optimum(tasks)
    assert best.reward == pytest.approx(1.8)
    assert best.decision == {"t1": "agent_2", "t3": "agent_0"}
