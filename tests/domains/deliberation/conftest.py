"""Small hand-made instances shared by the deliberation tests."""

from __future__ import annotations

import pytest

from accord.domains.deliberation import MenuInstance, TaskInstance, parse_instance


@pytest.fixture
def menu() -> MenuInstance:
    inst = parse_instance({
        "setting": "menu-numeric",
        "ingredients": {"egg": 4, "rice": 2, "tomato": 3},
        "recipes": {"fried rice": {"egg": 1, "rice": 2}, "omelette": {"egg": 3},
                    "tomato egg": {"egg": 2, "tomato": 2}, "salad": {"tomato": 1}},
        "guest_scores": {"Alice": {"fried rice": 3.2, "omelette": 5, "tomato egg": 4,
                                   "salad": 1},
                         "Bob": {"fried rice": 2.8, "omelette": 1, "tomato egg": 2.5}},
    })
    assert isinstance(inst, MenuInstance)
    return inst


@pytest.fixture
def tasks() -> TaskInstance:
    inst = parse_instance({
        "setting": "task-allocation",
        "agents": ["agent_0", "agent_1", "agent_2"], "leader": "agent_2",
        "tasks": ["t1", "t2", "t3"],
        "efficiency": {"agent_0": {"t1": 0.8, "t2": 0.6, "t3": 0.9},
                       "agent_1": {"t1": 0.7, "t2": 0.8, "t3": 0.5},
                       "agent_2": {"t1": 0.9, "t2": 0.5}},
        "private_resources": {"agent_0": {"Time": 5}, "agent_1": {"Time": 4},
                              "agent_2": {"Time": 3}},
        "public_resources": {"Budget": 200},
        "requirements": {"t1": {"Time": 3, "Budget": 100}, "t2": {"Time": 4, "Budget": 50},
                         "t3": {"Time": 2, "Budget": 100}},
    })
    assert isinstance(inst, TaskInstance)
    return inst
