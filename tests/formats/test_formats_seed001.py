"""The seed-001 authors' game pickles: recreated in their exact structure, read safely,
turned into accord instances whose ILP optimum is the stored max_reward."""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from seed001lib import (
    Evil,
    cooking_game,
    task_game,
    write_cooking,
    write_task,
)

from accord.core.safepickle import PickleRefused
from accord.domains.deliberation import DataError, MenuInstance, TaskInstance, parse_instance
from accord.domains.deliberation.ilp import optimum
from accord.formats import FormatError
from accord.formats.seed001 import game_id, import_games, read_game

EXAMPLES = int(os.environ.get("ACCORD_FUZZ_EXAMPLES", "10"))
COOK = "data/cooking/games/test_games/games/level_1_and_2"
TASKS = "data/task_allocation/games/task_allocation_games/games/level_1_and_2"


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("setting", ["menu-numeric", "menu-semantic"])
def test_cooking_game_optimum_is_the_stored_max_reward(tmp_path: Path, seed: int,
                                                       setting: str) -> None:
    fields = cooking_game(seed)
    path = write_cooking(tmp_path / COOK / f"game_{seed:04d}.pkl", fields)
    data = read_game(path, setting)
    inst = parse_instance(data, str(path))
    assert isinstance(inst, MenuInstance) and inst.setting == setting
    assert optimum(inst).reward == pytest.approx(fields["max_reward"], abs=1e-9)
    assert data["x-seed001"]["max_reward"] == fields["max_reward"]
    assert data["id"] == f"seed001-test_games-level_1_and_2-game_{seed:04d}"
    # each guest's score is the authors' value halved (their reward averages two guests)
    dish = fields["dishes"][0]
    assert inst.guest_scores["Aya"][dish] == pytest.approx(
        float(fields["nl_agent_0_values"][dish]) / 2)
    assert data["x-seed001"]["guest_values"]["Fatima"][dish] == pytest.approx(
        float(fields["nl_agent_1_values"][dish]))
    assert dict(inst.ingredients) == fields["game_ingredients_state"]
    if setting == "menu-semantic":
        assert inst.personas["Aya"]["Dietary Preferences"] == {"Low-carb": True}
        assert inst.personas["Fatima"]["Nationality"] == "Egyptian"


@pytest.mark.parametrize("seed", range(4))
def test_task_game_optimum_is_the_stored_max_reward(tmp_path: Path, seed: int) -> None:
    fields = task_game(seed)
    path = write_task(tmp_path / TASKS / f"game_{seed:04d}.pkl", fields)
    inst = parse_instance(read_game(path), str(path))
    assert isinstance(inst, TaskInstance)
    assert inst.leader == "agent_2"
    assert optimum(inst).reward == pytest.approx(fields["max_reward"], abs=1e-9)
    # value = task value x efficiency, rounded to 2 decimals as the authors do
    t = fields["tasks"][1]
    assert inst.efficiency["agent_0"][t] == round(
        fields["task_values"][t] * fields["agents_config"]["agent_0"]["efficiency"][t], 2)
    # the authors' public fragments are accord's observation spec, and sum to the totals
    frags = [inst.observations[a]["public_resources"]["Budget"] for a in inst.agents]
    assert sum(frags) == inst.public_resources["Budget"]


def test_requirements_that_differ_by_agent_are_named(tmp_path: Path) -> None:
    path = write_task(tmp_path / "game_0000.pkl", task_game(0, differ=True))
    with pytest.raises(FormatError, match=r"game_0000\.pkl: task_requirements\.Prep "
                                          r"vegetables: the requirements differ"):
        read_game(path)


@pytest.mark.parametrize(("field", "value", "message"), [
    ("value_matrix", None, r"value_matrix: missing field"),
    ("dishes", "Pancake", r"dishes: expected a list of names"),
    ("max_reward", "high", r"max_reward: expected a finite number"),
    ("agents_config", {}, r"agents_config\.agent_0: missing field"),
    ("agents_config", {a: {"role": "Worker"} for a in ("agent_0", "agent_1", "agent_2")},
     r"agents_config: expected exactly one agent with role 'Leader', found 0"),
])
def test_malformed_games_name_file_and_field(tmp_path: Path, field: str, value: Any,
                                             message: str) -> None:
    if field in ("dishes",):
        fields = cooking_game(1)
        writer = write_cooking
    else:
        fields = task_game(1)
        writer = write_task
    if value is None:
        del fields[field]
    else:
        fields[field] = value
    path = writer(tmp_path / "game_0042.pkl", fields)
    with pytest.raises(FormatError, match=r"game_0042\.pkl: " + message):
        read_game(path)


def test_a_malicious_game_is_refused_and_never_runs(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    games = tmp_path / "games"
    write_task(games / "game_0000.pkl", task_game(0))
    (games / "game_0001.pkl").write_bytes(pickle.dumps(Evil(f"touch {marker}"), protocol=4))
    out = tmp_path / "out"
    with pytest.raises(PickleRefused, match=r"game_0001\.pkl: refused pickle global"):
        import_games(games, out)
    assert not marker.exists()
    assert not out.exists()  # nothing is written when any file is refused


def test_import_folder_writes_instances_and_skips_what_accord_cannot_hold(tmp_path: Path
                                                                         ) -> None:
    src = tmp_path / "data"
    write_cooking(src / COOK / "game_0000.pkl", cooking_game(0))
    write_task(src / TASKS / "game_0000.pkl", task_game(0))
    write_task(src / "data/task_allocation/games/demo/games/level_1_and_2/game_0000.pkl",
               task_game(1, differ=True))
    written, skipped = import_games(src, tmp_path / "out")
    assert {s: len(f) for s, f in written.items()} == {
        "menu-numeric": 1, "menu-semantic": 1, "task-allocation": 1}
    assert len(skipped) == 1 and "requirements differ" in skipped[0]
    with pytest.raises(FormatError, match="exists"):
        import_games(src, tmp_path / "out")
    again, _ = import_games(src, tmp_path / "out", force=True)
    assert again == written
    # a single file that cannot be held is an error, not a skip
    with pytest.raises(FormatError, match="requirements differ"):
        import_games(src / "data/task_allocation/games/demo/games/level_1_and_2/"
                     "game_0000.pkl", tmp_path / "out2")


def test_game_ids_carry_data_set_and_level() -> None:
    assert game_id(Path("x/data/cooking/games/test_games/games/level_3/game_0007.pkl")) \
        == "seed001-test_games-level_3-game_0007"
    assert game_id(Path("game_0001.pkl")) == "seed001-game_0001"


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_fuzzed_games_import_or_fail_clearly(tmp_path_factory: pytest.TempPathFactory,
                                             data: st.DataObject) -> None:
    """A game with a field dropped or replaced by junk: an instance, or an error naming the
    file (FormatError, PickleRefused or the instance parser's DataError), never another
    exception."""
    cooking = data.draw(st.booleans())
    fields = cooking_game(2) if cooking else task_game(2)
    key = data.draw(st.sampled_from(sorted(fields)))
    junk = data.draw(st.one_of(st.none(), st.integers(-5, 5), st.text(max_size=5),
                               st.lists(st.integers(0, 3), max_size=3),
                               st.dictionaries(st.text(max_size=3), st.floats(), max_size=2)))
    if data.draw(st.booleans()):
        del fields[key]
    else:
        fields[key] = junk
    folder = tmp_path_factory.mktemp("fuzz")
    path = (write_cooking if cooking else write_task)(folder / "game_0000.pkl", fields)
    try:
        parse_instance(read_game(path), str(path))
    except (FormatError, PickleRefused, DataError) as exc:
        assert "game_0000.pkl" in str(exc)


@pytest.mark.skipif(not os.environ.get("ACCORD_SEED001_DATA"),
                    reason="set ACCORD_SEED001_DATA to the authors' data/ folder to check "
                           "every real game")
def test_the_authors_real_games() -> None:  # pragma: no cover - needs their repository
    root = Path(os.environ["ACCORD_SEED001_DATA"])
    checked = 0
    for f in sorted(root.rglob("*.pkl")):
        try:
            data = read_game(f)
        except FormatError as exc:
            assert "requirements differ" in str(exc)  # their two demo games
            continue
        assert optimum(parse_instance(data, str(f))).reward == pytest.approx(
            data["x-seed001"]["max_reward"], abs=1e-6)
        checked += 1
    assert checked >= 190
