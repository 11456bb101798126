"""Small hand-made instances shared by the deliberation tests."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

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


# -- stored episodes for the analyses and the layout ----------------------------------

_episode_ids = itertools.count()

GAP_HR = [0.0, 0.1, 0.2, 0.3, 0.5]
"""HR of the deliberation episodes of :func:`gap_episodes`."""
GAP_DELIB_NR = [100.0, 90.0, 85.0, 60.0, 40.0]
"""NR of those deliberation episodes."""
GAP_CENT_NR = [100.0, 100.0, 95.0, 100.0, 90.0]
"""NR of their centralized counterparts (same instance)."""


def stored_episode(mode: str | None, setting: str, instance: int, *, tools: bool = False,
                   agents: tuple[str, ...] = ("share", "share"), status: str = "done",
                   eid: str | None = None, domain: str = "deliberation",
                   **metrics: Any) -> dict[str, Any]:
    """A stored episode dict as ``Store.episodes`` returns it (only what the layout reads)."""
    params: dict[str, Any] = {"instance": instance, "tools": tools}
    if mode is not None:
        params["mode"] = mode
    base = {"nr": 100.0, "nar": 100.0, "valid": True, "hr": 0.0, "nmae_pub": None}
    return {"id": eid or f"e{next(_episode_ids)}", "status": status,
            "spec": {"domain": domain, "scenario": setting, "agents": list(agents),
                     "params": params, "seed": 0, "repeat": 0},
            "labels": {}, "metrics": {**base, **metrics} if status == "done" else {}}


def gap_episodes(setting: str = "menu-numeric") -> list[dict[str, Any]]:
    """Five instances with a deliberation and a centralized episode each (GAP_* values)."""
    eps = []
    for i, (hr, d, c) in enumerate(zip(GAP_HR, GAP_DELIB_NR, GAP_CENT_NR, strict=True)):
        eps.append(stored_episode("deliberation", setting, i, hr=hr, nr=d))
        eps.append(stored_episode("centralized", setting, i, nr=c, agents=("share",)))
    return eps


@pytest.fixture
def episode() -> Callable[..., dict[str, Any]]:
    """:func:`stored_episode`."""
    return stored_episode


@pytest.fixture
def gap() -> Callable[..., list[dict[str, Any]]]:
    """:func:`gap_episodes`."""
    return gap_episodes


@pytest.fixture
def gap_values() -> dict[str, list[float]]:
    """The numbers behind :func:`gap_episodes`: ``hr``, ``delib_nr``, ``cent_nr``."""
    return {"hr": GAP_HR, "delib_nr": GAP_DELIB_NR, "cent_nr": GAP_CENT_NR}
