"""The authored databases: sizes from the paper, consistency, reproducible ratings."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from accord.domains.deliberation import DataError
from accord.domains.deliberation.database import (
    DATA_DIR,
    PERSONA_FIELDS,
    load_menu_database,
    load_teamwork_database,
)
from accord.domains.deliberation.preferences import dish_profile, dish_value, estimate_rating
from accord.domains.deliberation.tools.author_ratings import author_ratings


def test_menu_database_sizes() -> None:
    db = load_menu_database()
    assert len(db.ingredients) >= 51
    assert len(db.dishes) == 78 and len(db.cuisines) == 12
    assert len(db.characters) == 10
    for persona in db.characters.values():
        assert set(PERSONA_FIELDS) <= set(persona)
    assert set(db.ratings) == set(db.characters)
    assert all(len(row) == 78 and all(0.5 <= r <= 5 for r in row.values())
               for row in db.ratings.values())
    used = {i for d in db.dishes.values() for i in d.recipe}
    assert used <= set(db.ingredients) and len(used) >= 51


def test_ratings_file_is_reproducible_and_consistent_with_personas() -> None:
    db = load_menu_database()
    assert author_ratings() == db.ratings
    # hard constraints: vegan Chloe rates meat dishes at the conflict rating
    assert db.ratings["Chloe"]["Beef Bourguignon"] == 0.5
    assert db.ratings["Omar"]["Sweet and Sour Pork"] == 0.5  # halal
    prof = dish_profile(db.dishes["Kung Pao Chicken"], db)
    assert "Nuts" in prof.allergens and not prof.vegetarian


def test_dish_value_formula() -> None:
    assert dish_value(2.0, 4) == pytest.approx(2 * (4 + 0.2 * 8))
    assert dish_value(1.5, 9) == pytest.approx(round(1.5 * (9 + 0.2 * 27), 2))


def test_partial_persona_estimates_only_use_known_fields() -> None:
    db = load_menu_database()
    dish = db.dishes["Butter Chicken"]
    assert estimate_rating({"Name": "X"}, dish, db) == db.preference_model["base"]
    priya = db.characters["Priya"]
    assert estimate_rating({"Dietary Preferences": priya["Dietary Preferences"]}, dish, db) == 0.5


def test_teamwork_database_sizes() -> None:
    tdb = load_teamwork_database()
    subs = list(tdb.subdomains.values())
    assert [s.key for s in subs] == ["research", "cafeteria", "camping"]
    assert sum(len(s.tasks) for s in subs) >= 42
    assert len({r for s in subs for r in s.private_resources}) == 12
    assert len({r for s in subs for r in s.public_resources}) == 12
    assert sum(len(s.personas) for s in subs) == 18


def test_database_errors_name_file_and_key(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR / "menu", data / "menu")
    dishes = data / "menu" / "dishes.yaml"
    dishes.write_text(dishes.read_text().replace("{pasta: 2, egg: 3", "{pastaa: 2, egg: 3", 1))
    with pytest.raises(DataError) as info:
        load_menu_database(data)
    assert str(dishes) in str(info.value) and "recipe.pastaa" in info.value.key
    assert "unknown ingredient" in info.value.problem
