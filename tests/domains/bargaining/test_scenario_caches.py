"""Per-scenario work is done once: sorted utilities, scenario lookup, frontier, Nash point."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import yaml

from accord.core.pareto import pareto_mask
from accord.core.solutions import nash_point
from accord.domains.bargaining import builtin_scenarios, resolve_scenario


def test_ranking_is_the_stable_sort_and_is_cached() -> None:
    sc = resolve_scenario("buyer-seller")
    party = sc.parties[0]
    order, ranked = party.utility.ranking(sc.space)
    values = party.utility.values(sc.space)
    assert np.array_equal(order, np.argsort(values, kind="stable"))
    assert np.array_equal(ranked, values[order])
    again = party.utility.ranking(sc.space)
    assert again[0] is order and again[1] is ranked
    assert not order.flags.writeable


def test_builtin_resolves_to_one_object() -> None:
    assert resolve_scenario("bargaining/buyer-seller") is resolve_scenario("buyer-seller")
    names = builtin_scenarios()
    names.append("not-a-scenario")  # callers get a copy
    assert "not-a-scenario" not in builtin_scenarios()


def test_file_scenarios_are_cached_by_content(tmp_path: Path, laptop_dict: dict) -> None:
    path = tmp_path / "deal.yaml"
    path.write_text(yaml.safe_dump(laptop_dict), encoding="utf-8")
    first = resolve_scenario(str(path))
    assert resolve_scenario(str(path)) is first
    laptop_dict["parties"]["buyer"]["batna"] = 0.25
    path.write_text(yaml.safe_dump(laptop_dict), encoding="utf-8")
    changed = resolve_scenario(str(path))
    assert changed is not first and changed.party("buyer").batna == 0.25


def test_frontier_and_nash_point_are_cached_on_the_scenario() -> None:
    sc = resolve_scenario("procurement")
    um = sc.utility_matrix
    assert np.array_equal(sc.pareto_frontier, um[pareto_mask(um)])
    assert sc.pareto_frontier is sc.pareto_frontier
    assert sc.nash_index == nash_point(um, sc.batnas)
