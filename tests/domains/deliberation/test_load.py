"""Instance format: parsing, round trip and clear errors naming file, key and problem."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accord.domains.deliberation import (
    InstanceError,
    load_instance,
    parse_instance,
    shipped_instance,
)
from accord.domains.deliberation.load import instance_to_dict

MENU = {"setting": "menu-numeric", "ingredients": {"egg": 4}, "recipes": {"omelette": {"egg": 2}},
        "guest_scores": {"Alice": {"omelette": 3.2}}}


def _err(data: object, tmp_path: Path) -> InstanceError:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InstanceError) as info:
        load_instance(path)
    assert str(path) in str(info.value)
    return info.value


@pytest.mark.parametrize(("patch", "key", "problem"), [
    ({"setting": "menu-fancy"}, "setting", "unknown setting"),
    ({"ingredients": {"egg": "four"}}, "ingredients.egg", "expected a number"),
    ({"ingredients": {"egg": -1}}, "ingredients.egg", ">= 0"),
    ({"recipes": {"omelette": {"egg": 0}}}, "recipes.omelette.egg", "> 0"),
    ({"guest_scores": {"Alice": {"pizza": 1}}}, "guest_scores.Alice.pizza", "unknown dish"),
    ({"recipes": []}, "recipes", "expected an object"),
    ({"ingredients": {"egg": True}}, "ingredients.egg", "expected a number"),
])
def test_menu_errors(tmp_path: Path, patch: dict, key: str, problem: str) -> None:
    err = _err({**MENU, **patch}, tmp_path)
    assert err.key == key and problem in err.problem


def test_missing_key_and_bad_json(tmp_path: Path) -> None:
    data = dict(MENU)
    del data["recipes"]
    err = _err(data, tmp_path)
    assert err.key == "recipes" and "missing" in err.problem
    path = tmp_path / "broken.json"
    path.write_text('{"setting": "menu-numeric",\n "ingredients": }')
    with pytest.raises(InstanceError, match=r"line 2 column .*invalid JSON"):
        load_instance(path)
    with pytest.raises(InstanceError, match="cannot read"):
        load_instance(tmp_path / "missing.json")


TASK = {"setting": "task-allocation", "agents": ["a", "b"], "leader": "b", "tasks": ["t1"],
        "efficiency": {"a": {"t1": 0.5}}, "private_resources": {"a": {"Time": 3}},
        "public_resources": {"Budget": 10}, "requirements": {"t1": {"Time": 1, "Budget": 5}}}


@pytest.mark.parametrize(("patch", "key", "problem"), [
    ({"leader": "c"}, "leader", "not one of the agents"),
    ({"agents": ["a", "a"]}, "agents[1]", "duplicate"),
    ({"efficiency": {"z": {"t1": 1}}}, "efficiency.z", "unknown agent"),
    ({"efficiency": {"a": {"t9": 1}}}, "efficiency.a.t9", "unknown task"),
    ({"requirements": {"t9": {}}}, "requirements.t9", "unknown task"),
    ({"private_resources": {"a": {"Budget": 1}}}, "private_resources.a.Budget", "also a public"),
    ({"public_resources": {"Budget": float("nan")}}, "public_resources.Budget", "finite"),
])
def test_task_errors(tmp_path: Path, patch: dict, key: str, problem: str) -> None:
    data = {**TASK, **patch}
    if key.endswith("Budget") and "nan" in repr(patch):
        with pytest.raises(InstanceError) as info:  # JSON cannot carry NaN portably
            parse_instance(data, "mem.json")
        err = info.value
    else:
        err = _err(data, tmp_path)
    assert err.key == key and problem in err.problem


def test_round_trip_keeps_extra_keys() -> None:
    inst = parse_instance({**TASK, "x-note": "hello"})
    again = parse_instance(instance_to_dict(inst))
    assert again == inst and instance_to_dict(again)["x-note"] == "hello"
    shipped = shipped_instance("menu-semantic", 0)
    assert parse_instance(json.loads(json.dumps(instance_to_dict(shipped)))) == shipped
