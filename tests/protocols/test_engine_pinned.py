"""Pinned trajectories of code-agent negotiations (issue 16, goal 1).

The per-round hot path (engine, alternating offers, concession agents, move records) is
optimised for speed; these tests pin what it produces so that no optimisation changes a
single offer, verdict, note or record. Each case is run and compared, event by event, with
a golden file (time stamps removed). A deliberate behaviour change is re-pinned with
``ACCORD_UPDATE_GOLDEN=1`` and a reviewed diff.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from accord.core import Scenario
from accord.domains.bargaining import resolve_scenario, run_negotiation
from accord.testing.episodes import random_scenario
from accord.testing.golden import check_golden

GOLDEN = Path(__file__).parent / "golden"


#: (case name, scenario, agents, params, seed)
CASES: list[tuple[str, Any, list[str], dict[str, Any], int]] = [
    ("bench-1e4-boulware", ("random", 4, 10, 2, 1), ["boulware", "boulware"],
     {"max_rounds": 100, "stagnation_rounds": 0}, 0),
    ("bench-1e4-boulware-stagnation", ("random", 4, 10, 2, 1), ["boulware", "boulware"],
     {"max_rounds": 100, "stagnation_rounds": 3}, 0),
    ("bench-1e3-linear-conceder", ("random", 3, 10, 2, 2), ["linear", "conceder"],
     {"max_rounds": 50, "stagnation_rounds": 0}, 0),
    ("buyer-seller-boulware-conceder", "buyer-seller", ["boulware", "conceder"],
     {"stagnation_rounds": 3}, 0),
    ("buyer-seller-linear-tft", "buyer-seller", ["linear", "tit-for-tat"],
     {"max_rounds": 40, "stagnation_rounds": 3}, 0),
    ("buyer-seller-hardliner-random", "buyer-seller", ["hardliner", "random"],
     {"max_rounds": 30, "stagnation_rounds": 0}, 3),
    ("procurement-random-linear", "procurement", ["random", "linear"],
     {"max_rounds": 30, "stagnation_rounds": 3}, 7),
    ("split-conceder-hardliner", "split", ["conceder", "hardliner"],
     {"max_rounds": 25, "stagnation_rounds": 3}, 0),
    ("sprint-boulware-mediator", "sprint-planning", ["boulware", "boulware", "boulware"],
     {"mediator": "midpoint", "max_rounds": 40}, 0),
    ("sprint-issues-measure", "sprint-planning", ["hardliner", "boulware", "linear"],
     {"stagnation_measure": "issues", "stagnation_epsilon": 0.5, "max_rounds": 30,
      "stagnation_rounds": 3}, 0),
    ("random-3p-k-of-n", ("random", 3, 6, 3, 5), ["boulware", "linear", "conceder"],
     {"acceptance": 2, "max_rounds": 30, "stagnation_rounds": 0}, 0),
    ("random-3p-max-offers", ("random", 3, 6, 3, 6), ["boulware", "tit-for-tat", "random"],
     {"max_offers": 6, "max_rounds": 30, "stagnation_rounds": 3}, 1),
    ("sprint-mediator-first", "sprint-planning", ["hardliner", "boulware", "hardliner"],
     {"mediator": "midpoint", "stagnation_order": "mediator-first", "max_rounds": 30}, 0),
    ("sprint-pareto-mediator", "sprint-planning", ["hardliner", "conceder", "boulware"],
     {"mediator": "pareto", "stagnation_order": "mediator-first", "max_rounds": 30}, 0),
    ("bench-1e5-boulware", ("random", 5, 10, 2, 1), ["boulware", "boulware"],
     {"max_rounds": 100, "stagnation_rounds": 0}, 0),
]


def _scenario(spec: Any) -> Scenario:
    if isinstance(spec, str):
        return resolve_scenario(spec)
    _, n_issues, n_values, n_parties, seed = spec
    return random_scenario(n_issues, n_values, n_parties, seed)


def _render(result: Any) -> str:
    """The episode as canonical JSON lines: the summary, then every event, without times."""
    summary = result.summary()
    summary.pop("wall_time")
    lines = [json.dumps(summary, sort_keys=True, default=str)]
    for ev in result.trajectory:
        d = ev.to_dict()
        d.pop("t", None)
        if d["kind"] == "end":
            d.get("data", {}).pop("wall_time", None)
        lines.append(json.dumps(d, sort_keys=True, default=str))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("name", "scenario", "agents", "params", "seed"), CASES,
                         ids=[c[0] for c in CASES])
def test_trajectory_is_pinned(name: str, scenario: Any, agents: list[str],
                              params: dict[str, Any], seed: int) -> None:
    result = asyncio.run(run_negotiation(_scenario(scenario), agents, params=params, seed=seed))
    check_golden(GOLDEN / f"{name}.jsonl", _render(result))


def test_pinned_cases_cover_each_ending() -> None:
    """The pinned set exercises agreements and no-deals (a pin of one path only would let
    an optimisation of the other slip through)."""
    statuses = set()
    for name, *_ in CASES:
        first = (GOLDEN / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()[0]
        head = json.loads(first)
        statuses.add((head["status"], head["reason"]))
    assert ("agreement", None) in statuses
    assert any(s == "no_deal" for s, _ in statuses)
