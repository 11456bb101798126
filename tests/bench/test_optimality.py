"""The gap to the optimum per domain (accord.bench.optimality), on outcomes whose gaps are
known by hand: an optimal outcome has gap 0, a known dominated one its known gap."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

import accord
from accord.bench.optimality import (
    DondValues,
    Gaps,
    bargaining_gaps,
    deliberation_gaps,
    deliberation_reward_gaps,
    dond_gaps,
    episode_gaps,
    games_gaps,
    task_exchange_gaps,
    value_left,
)
from accord.bench.store import EpisodeRow
from accord.domains.bargaining.load import parse_scenario

GAMES = Path(accord.__file__).parent / "domains" / "games" / "data" / "games"


def _three() -> object:
    """x = a: (1, 0), b: (0.5, 0.5), c: (0.2, 0.2); BATNAs 0. Frontier {a, b}; the Nash
    point b (product 0.25); c is dominated by b."""
    table = {"alice": {"x=a": 1.0, "x=b": 0.5, "x=c": 0.2},
             "bob": {"x=a": 0.0, "x=b": 0.5, "x=c": 0.2}}
    return parse_scenario({"name": "three", "issues": {"x": ["a", "b", "c"]},
                           "parties": {p: {"batna": 0.0, "utility": {"type": "table",
                                                                     "table": t}}
                                       for p, t in table.items()}})


def test_bargaining_gaps_by_hand() -> None:
    sc = _three()
    opt = bargaining_gaps(sc, {"alice": 0.5, "bob": 0.5})
    assert opt.values == {"value_left": 0.0, "gap_pareto": 0.0, "gap_nash": 0.0,
                          "welfare_left": 0.0}
    dom = bargaining_gaps(sc, {"alice": 0.2, "bob": 0.2})
    assert dom.value_left == pytest.approx(0.6)  # b = (0.5, 0.5) is better for both
    assert dom.values["gap_pareto"] == pytest.approx(math.hypot(0.3, 0.3))
    assert dom.values["gap_nash"] == pytest.approx(math.hypot(0.3, 0.3))
    assert dom.values["welfare_left"] == pytest.approx(0.6)
    edge = bargaining_gaps(sc, {"alice": 1.0, "bob": 0.0})  # Pareto optimal, not Nash
    assert edge.values["gap_pareto"] == 0.0 and edge.value_left == 0.0
    assert edge.values["gap_nash"] == pytest.approx(math.hypot(0.5, 0.5))
    nodeal = bargaining_gaps(sc, None)  # the disagreement point (0, 0)
    assert nodeal.values["gap_pareto"] == pytest.approx(math.hypot(0.5, 0.5))
    # value_left used to be the headline gap (the distance, 0.707); it is now the joint
    # gain of the best outcome at least as good for both as the BATNAs: 1.0 (a or b)
    assert nodeal.value_left == pytest.approx(1.0)
    assert "left on the table: 1 utility" in nodeal.sentence()
    assert "Nothing was left on the table" in opt.sentence()


def test_value_left_is_zero_on_the_frontier_even_below_the_best_welfare() -> None:
    """A frontier deal that favours one side leaves nothing on the table (nobody can gain
    without the other losing), although its welfare is below the best: welfare_left keeps
    that distributive difference, value_left does not count it."""
    table = {"alice": {"x=a": 1.0, "x=b": 0.6, "x=c": 0.2},
             "bob": {"x=a": 0.0, "x=b": 0.6, "x=c": 0.2}}
    sc = parse_scenario({"name": "lopsided", "issues": {"x": ["a", "b", "c"]},
                         "parties": {p: {"batna": 0.0, "utility": {"type": "table",
                                                                   "table": t}}
                                     for p, t in table.items()}})
    a = bargaining_gaps(sc, {"alice": 1.0, "bob": 0.0})
    assert a.value_left == 0.0 and a.values["gap_pareto"] == 0.0
    assert a.values["welfare_left"] == pytest.approx(0.2)
    c = bargaining_gaps(sc, {"alice": 0.2, "bob": 0.2})
    assert c.value_left == pytest.approx(0.8)  # to b: (0.6, 0.6); a is worse for bob


def test_task_exchange_gap_zero_on_the_front_and_positive_at_a_dominated_split() -> None:
    from accord.domains.task_exchange.load import get_scenario
    from accord.domains.task_exchange.metrics import l2_to_front, scenario_front

    sc = get_scenario("competitive")
    points = sc.outcomes()
    front = set(scenario_front(sc))
    on = next(a for a, p in points if p in front)
    off = next((a, p) for a, p in points if p not in front)
    assert task_exchange_gaps(sc, on).values["gap_pareto"] == 0.0
    g = task_exchange_gaps(sc, off[0])
    assert g.values["gap_pareto"] == pytest.approx(l2_to_front(off[1], list(front)))
    assert g.values["gap_pareto"] > 0
    assert g.values["welfare_left"] is not None and g.values["welfare_left"] >= 0
    assert g.value_left is not None and g.value_left > 0  # off the front: a better split
    assert task_exchange_gaps(sc, on).value_left == 0.0


def _game(name: str) -> dict:
    return yaml.safe_load((GAMES / f"{name}.yaml").read_text())


def test_games_gaps_by_hand() -> None:
    pd = _game("prisoners-dilemma")
    assert games_gaps(pd, [1, 1]).values == {"value_left": 4.0, "gap_pure_ne": 0.0,
                                             "gap_mixed_ne": 0.0, "gap_po_ne": 0.0}
    coop = games_gaps(pd, [3, 3])  # mutual cooperation: Pareto optimal, not the NE (1, 1)
    assert coop.values["gap_pure_ne"] == pytest.approx(math.sqrt(8))
    assert coop.values["gap_po_ne"] == pytest.approx(math.sqrt(8))
    assert coop.value_left == 0.0  # Pareto optimal: nothing left, though not an NE
    stag = _game("stag-hunt")  # NE payoffs (3, 3), (1, 1) and mixed (1, 1); PO-NE (3, 3)
    miss = games_gaps(stag, [0, 1])  # Alice hunts the stag alone
    assert miss.values["gap_pure_ne"] == pytest.approx(1.0)
    assert miss.values["gap_mixed_ne"] == pytest.approx(1.0)
    assert miss.values["gap_po_ne"] == pytest.approx(math.sqrt(13))
    assert games_gaps(stag, [3, 3]).value_left == 0.0


def test_dond_gap_to_the_best_envy_free_allocation() -> None:
    # seed 003's own example (section 5.5.2): one book, one hat, three balls; values
    # (1, 3, 2) and (1, 0, 3); the best allocation gives Alice the hat and a ball: 5 + 7
    sc = DondValues((1, 1, 3), (1, 3, 2), (1, 0, 3))
    assert dond_gaps(sc, (0, 1, 1)).values == {"value_left": 0.0, "gap_best": 0.0}
    # Alice: hat and two balls (7); Bob: book and a ball (4)
    assert dond_gaps(sc, (0, 1, 2)).values["gap_best"] == pytest.approx(12 - (7 + 4))
    assert dond_gaps(sc, (0, 1, 2)).value_left == 0.0  # Pareto optimal: Bob envies
    # Alice: the book (1), Bob: hat and balls (9); giving Alice the hat too costs Bob nothing
    assert dond_gaps(sc, (1, 0, 0)).value_left == pytest.approx(3.0)
    assert dond_gaps(sc, None).values["gap_best"] == 12.0  # no deal: 0 points
    assert dond_gaps(sc, None).value_left == 13.0  # the largest total: book+hat / balls
    envy = dond_gaps(sc, (1, 1, 0))  # 4 + 9 = 13: more total, but Alice envies Bob
    assert envy.values["gap_best"] == -1.0 and envy.value_left == 0.0
    assert "exceeds" in envy.sentence() and "Nothing was left" in envy.sentence()


def test_deliberation_gap_to_the_ilp_optimum() -> None:
    from accord.domains.deliberation import shipped_instance
    from accord.domains.deliberation.ilp import optimum

    g = deliberation_reward_gaps(80.0, 100.0)
    assert g.values == {"value_left": 20.0, "gap_optimum": 20.0, "optimum_ratio": 0.8}
    inst = shipped_instance("menu-numeric", 0)
    best = optimum(inst)
    at = deliberation_gaps(inst, best.decision)
    assert at.values["gap_optimum"] == 0.0 and at.values["optimum_ratio"] == pytest.approx(1)


def test_one_interface_and_stored_episodes() -> None:
    sc = _three()
    assert value_left("bargaining", sc, None) == bargaining_gaps(sc, None)
    with pytest.raises(ValueError, match="no optimum is known for domain 'chess'"):
        value_left("chess", sc, None)
    rec = {"completed": True, "spec": _game("prisoners-dilemma")}
    row = EpisodeRow("r", "id", 0, {"domain": "games", "agents": ["a", "b"]}, {}, "done",
                     "completed", {"record": rec}, {"payoff_1": 3, "payoff_2": 3}, None,
                     None, None, 1, None)
    g = episode_gaps(row)
    assert isinstance(g, Gaps) and g.values["gap_pure_ne"] == pytest.approx(math.sqrt(8))
    assert episode_gaps(row) is g  # asked again for another key: solved once
    err = EpisodeRow("r", "id2", 0, {"domain": "games"}, {}, "done", "error", None, {},
                     None, None, None, 1, None)
    assert episode_gaps(err) is None


def test_a_scenario_that_no_longer_loads_is_looked_up_once(monkeypatch: pytest.MonkeyPatch,
                                                           ) -> None:
    """A store whose bargaining scenario is gone: every episode has no gaps, and the
    failed lookup (with its close-match suggestion) runs once, not once per episode."""
    from accord.bench import optimality
    from accord.domains.bargaining import catalog

    calls: list[str] = []
    real = catalog.resolve_scenario

    def counting(name: str, *args: object) -> object:
        calls.append(name)
        return real(name, *args)

    monkeypatch.setattr(catalog, "resolve_scenario", counting)
    optimality._bargaining_scenario.cache_clear()
    rows = [EpisodeRow("r", f"id{i}", i, {"domain": "bargaining",
                                          "scenario": "no-such-scenario-anywhere"},
                       {}, "done", "agreement", {"record": {}}, {"u_a": 0.5, "u_b": 0.5},
                       None, None, None, 1, None) for i in range(5)]
    assert [episode_gaps(r) for r in rows] == [None] * 5
    assert calls == ["no-such-scenario-anywhere"]
    optimality._bargaining_scenario.cache_clear()
