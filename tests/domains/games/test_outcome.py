"""Games end ``completed``, never ``agreement``; ``coordinated`` says whether they coordinated."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from accord.agents.spec import parse_agent_list
from accord.bench.aggregate import aggregate
from accord.bench.store import EpisodeRow
from accord.cli.main import app as main_app
from accord.domains.base import EpisodeSpec, RunContext
from accord.domains.games import GamesDomain, catalog_names
from accord.domains.games.catalog import catalog_entry, resolve_game
from accord.domains.games.metrics import is_coordination_game
from accord.domains.games.model import NormalFormGame
from accord.domains.games.outcome import outcome_sentence
from accord.solvers import strict_nash_mask

DOMAIN = GamesDomain()
runner = CliRunner()


def spec(scenario: str, agents: str, seed: int = 0) -> EpisodeSpec:
    return EpisodeSpec("games", scenario, tuple(parse_agent_list(agents)), {}, seed)


async def play(scenario: str, agents: str) -> dict:
    s = spec(scenario, agents)
    res = await DOMAIN.run_episode(s, RunContext())
    return {**res.summary(), "metrics": DOMAIN.metrics(s, res)}


async def test_miscoordinated_battle_of_the_sexes_is_not_an_agreement() -> None:
    out = await play("battle-of-the-sexes", "fixed:opera,fixed:football")
    assert out["status"] == "completed" and out["record"]["profile"] == ["opera", "football"]
    m = out["metrics"]
    assert m["completed"] is True and m["coordinated"] is False and m["nash"] is False
    assert m["pareto_optimal"] is False
    text = outcome_sentence(out)
    assert "miscoordinated" in text and "agreement" not in text.lower()
    assert "Alice played opera, Bob played football" in text and "payoffs Alice 0, Bob 0" in text


@pytest.mark.parametrize("action,pays", [("opera", "Alice 2, Bob 1"),
                                         ("football", "Alice 1, Bob 2")])
async def test_coordinated_battle_of_the_sexes_is_reported_as_coordinated(
        action: str, pays: str) -> None:
    out = await play("battle-of-the-sexes", f"fixed:{action}")
    assert out["status"] == "completed"
    m = out["metrics"]
    assert m["coordinated"] is True and m["nash"] is True and m["pareto_optimal"] is True
    text = outcome_sentence(out)
    assert "coordinated on an equilibrium" in text and "miscoordinated" not in text
    assert pays in text


async def test_stag_hunt_hare_hare_is_coordinated_but_not_pareto_optimal() -> None:
    m = (await play("stag-hunt", "fixed:hare"))["metrics"]
    assert m["coordinated"] is True and m["pareto_optimal"] is False
    m = (await play("wait-go", "fixed:go"))["metrics"]  # both go: a collision
    assert m["coordinated"] is False and m["welfare"] == -8


async def test_coordinated_is_undefined_where_there_is_nothing_to_coordinate() -> None:
    pd = await play("prisoners-dilemma", "fixed:defect")
    assert pd["metrics"]["coordinated"] is None and pd["metrics"]["nash"] is True
    assert "a Nash equilibrium, not Pareto optimal" in outcome_sentence(pd)
    # golden balls has three pure equilibria, all weak: not a coordination problem
    assert (await play("golden-balls", "fixed:split"))["metrics"]["coordinated"] is None
    seq = await play("escalation", "rational")
    assert seq["status"] == "completed" and seq["metrics"]["coordinated"] is None
    assert "subgame-perfect path" in outcome_sentence(seq)


@pytest.mark.parametrize("name", catalog_names())
def test_coordination_games_are_those_seed_003_table_1_marks(name: str) -> None:
    """The structural definition (two or more strict pure equilibria) reproduces Table 1's
    "coordination required" column for every normal-form catalog game."""
    game = resolve_game(name, {})
    if not isinstance(game, NormalFormGame):
        assert catalog_entry(name).coordination is False
        return
    assert is_coordination_game(game) is catalog_entry(name).coordination


def test_strict_nash_mask_separates_strict_from_weak_equilibria() -> None:
    golden = np.array([[[50, 50], [0, 100]], [[100, 0], [0, 0]]])  # split/steal
    assert strict_nash_mask(golden).sum() == 0
    bos = np.array([[[2, 1], [0, 0]], [[0, 0], [1, 2]]])
    assert strict_nash_mask(bos).tolist() == [[True, False], [False, True]]


def test_unfinished_game_says_so() -> None:
    text = outcome_sentence({"status": "no_deal", "reason": "quit", "detail": "Alice quit",
                             "record": {}, "metrics": {}})
    assert text == "The game ended before its outcome (no_deal: Alice quit)."


def test_accord_run_prints_the_games_own_words() -> None:
    res = runner.invoke(main_app, ["run", "games/battle-of-the-sexes", "--agents",
                                   "fixed:opera,fixed:football"])
    assert res.exit_code == 0, res.output
    assert "Game completed: Alice played opera, Bob played football - miscoordinated" \
        in res.output
    assert "agreement" not in res.output
    res = runner.invoke(main_app, ["run", "games/battle-of-the-sexes", "--agents",
                                   "fixed:opera,fixed:football", "--json"])
    doc = json.loads(res.stdout)
    assert doc["status"] == "completed" and doc["metrics"]["coordinated"] is False


def _row(i: int, coordinated: bool) -> EpisodeRow:
    s = {"domain": "games", "scenario": "battle-of-the-sexes", "agents": ["random", "random"],
         "params": {}, "seed": i}
    return EpisodeRow(id=f"e{i}", run="r", seq=i, spec=s, labels={}, status="done",
                      outcome="completed", summary=None,
                      metrics={"completed": True, "coordinated": coordinated,
                               "nash": coordinated},
                      usage=None, wall_time=0.0, error=None, attempts=1, finished=0.0)


def test_games_aggregate_counts_completion_and_coordination_not_agreement() -> None:
    agg = aggregate([_row(0, True), _row(1, False), _row(2, False), _row(3, True)],
                    group_by=["scenario"])
    (g,) = agg.groups
    assert g.outcomes == {"completed": 4}
    assert g.stats["completed"].mean == 1.0 and g.stats["coordinated"].mean == 0.5
    assert "agreement" not in agg.metrics
