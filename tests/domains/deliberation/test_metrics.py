"""NR, NAR with its greedy maximal feasible subset, VR, HR, NMAE_pub, tool metrics."""

from __future__ import annotations

import pytest

from accord.domains.deliberation import MenuInstance, TaskInstance, episode_metrics
from accord.domains.deliberation.metrics import (
    greedy_feasible_subset,
    hallucination_rate,
    nmae_public,
    normalized_adjusted_reward,
    normalized_reward,
    same_decision,
    valid_ratio,
)


def test_normalized_reward_and_valid_ratio() -> None:
    assert normalized_reward(6.75, 13.5) == 50.0
    assert normalized_reward(0.0, 0.0) == 100.0
    assert valid_ratio([True, False, True, True]) == 75.0
    assert valid_ratio([]) == 0.0


def test_greedy_subset_menu_keeps_highest_value_first(menu: MenuInstance) -> None:
    # omelette (6.0) + tomato egg (6.5) + salad (1.0): 5 eggs needed, 4 exist.
    # Greedy by value: tomato egg (eggs 2), omelette (eggs 5 -> no), salad (tomato 3 ok).
    subset, size = greedy_feasible_subset(menu, ["omelette", "tomato egg", "salad"])
    assert subset == ("tomato egg", "salad") and size == 3
    nar = normalized_adjusted_reward(menu, ["omelette", "tomato egg", "salad"], 13.5)
    assert nar == pytest.approx(7.5 / 13.5 * 2 / 3 * 100)
    # unknown dishes are dropped but still count in |D_original|
    subset, size = greedy_feasible_subset(menu, ["pizza", "salad"])
    assert subset == ("salad",) and size == 2
    # a valid decision: NAR == NR
    assert normalized_adjusted_reward(menu, ["salad"], 13.5) == pytest.approx(100 / 13.5)
    assert normalized_adjusted_reward(menu, None, 13.5) == 0.0


def test_greedy_subset_tasks(tasks: TaskInstance) -> None:
    alloc = {"t1": "agent_2", "t2": "agent_1", "t3": "agent_0"}  # budget 250 > 200
    subset, size = greedy_feasible_subset(tasks, alloc)
    # by efficiency: t1/agent_2 0.9, t3/agent_0 0.9 (budget 200 ok), t2 would exceed
    assert subset == {"t1": "agent_2", "t3": "agent_0"} and size == 3
    assert normalized_adjusted_reward(tasks, alloc, 1.8) == pytest.approx(100 * 2 / 3)


def test_hallucination_rate_and_nmae() -> None:
    truth = {"egg": 4, "rice": 2, "tomato": 0}
    assert hallucination_rate({"egg": 5, "rice": 2}, truth) == pytest.approx(1 / 3)
    # a hallucinated ingredient that does not exist counts as a new dimension
    assert hallucination_rate({"egg": 4, "saffron": 1}, truth) == pytest.approx(1 / 4)
    assert hallucination_rate({}, truth) == 0.0
    assert nmae_public({"Budget": 150, "Fuel": 0}, {"Budget": 200, "Fuel": 0}) == \
        pytest.approx(0.125)
    # zero ground truth: error 1 when the estimate is non-zero; missing estimate: error 1
    assert nmae_public({"Fuel": 2}, {"Fuel": 0, "Budget": 100}) == pytest.approx(1.0)


def test_episode_metrics_with_estimates_and_tools(tasks: TaskInstance) -> None:
    record = {
        "decision": {"t1": "agent_2", "t2": "agent_1"},
        "estimates": {"agent_2": [{"round": 1, "estimate": {
            "private_resources": {"agent_0": {"Time": 6}},
            "public_resources": {"Budget": 150}}}]},
        "last_tool_decision": {"t1": "agent_2", "t3": "agent_0"},
    }
    m = episode_metrics(tasks, record, 1.8)
    assert m["reward"] == pytest.approx(1.7) and m["valid"] is True
    assert m["nr"] == pytest.approx(1.7 / 1.8 * 100)
    # state dims: 3 private (agent_i/Time) + 1 public; only agent_0/Time is over
    assert m["hr"] == pytest.approx(1 / 4)
    assert m["nmae_pub"] == pytest.approx(0.25)
    assert m["tool_nr"] == pytest.approx(100.0) and m["tool_compliance"] is False
    none = episode_metrics(tasks, {"decision": None}, 1.8)
    assert none["valid"] is False and none["nr"] == 0 and none["hr"] is None
    assert none["tool_nr"] is None


def test_same_decision(menu: MenuInstance) -> None:
    assert same_decision(menu, ["salad", "omelette"], {"omelette": 1, "salad": 1})
    assert not same_decision(menu, ["salad"], ["omelette"])
