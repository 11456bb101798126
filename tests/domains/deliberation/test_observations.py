"""Observation partition invariants (A.1.3, A.2.2) on shipped and freshly sampled instances."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from accord.domains.deliberation import SETTINGS, MenuInstance, TaskInstance, shipped_instance
from accord.domains.deliberation.catalog import instance_count
from accord.domains.deliberation.database import load_menu_database
from accord.domains.deliberation.load import exact
from accord.domains.deliberation.observations import (
    check_observations,
    private_observation,
    sample_observation_spec,
    split_total,
)


@pytest.mark.parametrize("setting", SETTINGS)
def test_shipped_observations_follow_the_rules(setting: str) -> None:
    assert instance_count(setting) == 60
    for i in range(60):
        inst = shipped_instance(setting, i)
        assert check_observations(inst) == [], inst.id


def test_menu_numeric_partition() -> None:
    inst = shipped_instance("menu-numeric", 4)
    assert isinstance(inst, MenuInstance)
    o0, o1 = (private_observation(inst, a) for a in inst.agents)
    k0, k1 = set(o0["ingredients"]), set(o1["ingredients"])
    assert not k0 & k1 and k0 | k1 == set(inst.ingredients)  # O1 ∩ O2 = ∅, O1 ∪ O2 = S
    n = len(inst.ingredients)
    assert 0.4 * n <= len(k0) <= 0.6 * n
    assert len(o0["guest_scores"]) == len(o1["guest_scores"]) == 1
    assert set(o0["guest_scores"]) | set(o1["guest_scores"]) == set(inst.guests)
    merged = private_observation(inst, "agent_0", merged=True)
    assert merged["ingredients"] == dict(inst.ingredients)
    assert merged["guest_scores"] == {g: dict(r) for g, r in inst.guest_scores.items()}


def test_menu_semantic_fields_and_probabilities() -> None:
    db = load_menu_database()
    inst = shipped_instance("menu-semantic", 0)
    assert isinstance(inst, MenuInstance) and len(inst.personas) == 2
    rng = np.random.default_rng(5)
    counts: dict[str, int] = {}
    trials = 400
    for _ in range(trials):
        spec = sample_observation_spec(inst, rng, db)
        for g in inst.personas:
            fields = spec["agent_0"]["persona_fields"][g]
            assert {"Name", "Gender", "Nationality", "Age"} <= set(fields)
            for f in fields:
                counts[f] = counts.get(f, 0) + 1
    probs = db.observed_probability["agent_0"]
    for field, p in probs.items():  # empirical frequency near the table's probability
        assert counts.get(field, 0) / (2 * trials) == pytest.approx(p, abs=0.08)
    obs = private_observation(inst, "agent_1")
    assert "guest_scores" not in obs and set(obs["guests"]) == set(inst.personas)


def test_task_fragments_sum_to_totals_and_private_is_own() -> None:
    for i in (0, 25, 59):
        inst = shipped_instance("task-allocation", i)
        assert isinstance(inst, TaskInstance)
        obs = {a: private_observation(inst, a) for a in inst.agents}
        for res, total in inst.public_resources.items():
            assert sum(exact(obs[a]["public_resources"][res]) for a in inst.agents) == \
                exact(total)
        for a in inst.agents:
            assert set(obs[a]["private_resources"]) == {a}
            assert set(obs[a]["efficiency"]) == {a}
            assert obs[a]["public_is_total"] is False


@pytest.mark.parametrize("total", [0, 1, 7, 200, 12.5, 0.3])
def test_split_total_is_exact(total: float) -> None:
    rng = np.random.default_rng(0)
    for _ in range(20):
        parts = split_total(total, 3, rng)
        assert sum(Fraction(repr(p)) if isinstance(p, float) else Fraction(p)
                   for p in parts) == exact(total)
        assert all(p >= 0 for p in parts)
