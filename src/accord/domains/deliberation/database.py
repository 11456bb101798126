"""The menu-design and teamwork databases: typed, validated views of the data files.

The files under ``data/menu/`` and ``data/tasks/`` are the source of truth; this module
only reads and checks them. Loading is cached per directory.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accord.core.safeload import LoadError, load_json, load_yaml
from accord.domains.deliberation.errors import (
    DataError,
    as_mapping,
    as_number,
    as_str_list,
    key_path,
)

DATA_DIR = Path(__file__).resolve().parent / "data"
"""The package's data directory."""

PERSONA_FIELDS: tuple[str, ...] = (
    "Name", "Gender", "Nationality", "Age", "Occupation", "Recent Status",
    "Dietary Preferences", "Food Allergies", "Cultural Preferences",
    "Health and Fitness Goals", "Personality and Dining Style",
    "Ethical and Religious Considerations",
)
"""The guest persona fields of the paper's appendix A.1.2, in order."""


@dataclass(frozen=True)
class Ingredient:
    """One ingredient: unit, category, allergens, animal product kind, meat, flags."""

    name: str
    unit: str
    category: str
    allergens: frozenset[str]
    animal: str
    meat: str | None
    flags: frozenset[str]


@dataclass(frozen=True)
class Dish:
    """One dish: cuisine, spice level 0-3, experience tags and recipe (whole units)."""

    name: str
    cuisine: str
    spice: int
    tags: frozenset[str]
    recipe: Mapping[str, int]

    @property
    def n_ingredients(self) -> int:
        """Number of distinct ingredients in the recipe (the paper's n_i)."""
        return len(self.recipe)


@dataclass(frozen=True)
class MenuDatabase:
    """Ingredients, dishes, guest characters, their ratings and the observation settings."""

    ingredients: Mapping[str, Ingredient]
    dishes: Mapping[str, Dish]
    characters: Mapping[str, Mapping[str, Any]]
    ratings: Mapping[str, Mapping[str, float]]
    observed_probability: Mapping[str, Mapping[str, float]]
    ingredient_share: tuple[float, float]
    preference_model: Mapping[str, Any]

    @property
    def cuisines(self) -> list[str]:
        """The cuisines, in order of first appearance."""
        return list(dict.fromkeys(d.cuisine for d in self.dishes.values()))


@dataclass(frozen=True)
class ResourceType:
    """A resource type with its unit and meaning."""

    name: str
    unit: str
    description: str


@dataclass(frozen=True)
class TaskTemplate:
    """A task template: skill and [low, high] ranges per required resource."""

    name: str
    skill: str
    requirements: Mapping[str, tuple[float, float]]


@dataclass(frozen=True)
class Persona:
    """An agent persona: efficiency distribution per skill and private-resource ranges."""

    name: str
    role: str
    description: str
    efficiency_mean: Mapping[str, float]
    efficiency_sd: float
    private_resources: Mapping[str, tuple[float, float]]


@dataclass(frozen=True)
class SubDomain:
    """One task-allocation sub-domain (research, cafeteria, camping)."""

    key: str
    title: str
    description: str
    skills: tuple[str, ...]
    private_resources: Mapping[str, ResourceType]
    public_resources: Mapping[str, ResourceType]
    tasks: tuple[TaskTemplate, ...]
    personas: tuple[Persona, ...]


@dataclass(frozen=True)
class TeamworkDatabase:
    """The task-allocation database: its sub-domains by key."""

    subdomains: Mapping[str, SubDomain]


def read_yaml(path: Path) -> Any:
    """Parse a YAML file (through :mod:`accord.core.safeload`), naming file and line."""
    try:
        return load_yaml(path).data
    except LoadError as exc:
        if not path.exists():
            raise DataError(str(path), "", "file not found") from None
        where = exc.key_text("") if exc.key or not exc.line else exc.position
        raise DataError(exc.source, where, exc.problem) from None


def _range(value: Any, file: str, key: str) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) != 2:
        raise DataError(file, key, f"expected a [low, high] pair, got {value!r}")
    lo = float(as_number(value[0], DataError, file, key_path(key, 0)))
    hi = float(as_number(value[1], DataError, file, key_path(key, 1)))
    if lo > hi:
        raise DataError(file, key, f"low {lo:g} exceeds high {hi:g}")
    return lo, hi


def _ingredients(path: Path) -> dict[str, Ingredient]:
    f = str(path)
    raw = as_mapping(read_yaml(path), DataError, f, "")
    out: dict[str, Ingredient] = {}
    for i, item in enumerate(raw.get("ingredients") or []):
        key = key_path("ingredients", i)
        item = as_mapping(item, DataError, f, key)
        for need in ("name", "unit", "category"):
            if not isinstance(item.get(need), str):
                raise DataError(f, key_path(key, need), "missing or not a string")
        name = item["name"]
        if name in out:
            raise DataError(f, key_path(key, "name"), f"duplicate ingredient {name!r}")
        out[name] = Ingredient(
            name, item["unit"], item["category"],
            frozenset(as_str_list(item.get("allergens", []), DataError, f, key)),
            str(item.get("animal", "none")), item.get("meat"),
            frozenset(as_str_list(item.get("flags", []), DataError, f, key)))
    if not out:
        raise DataError(f, "ingredients", "no ingredients defined")
    return out


def _dishes(path: Path, ingredients: Mapping[str, Ingredient]) -> dict[str, Dish]:
    f = str(path)
    raw = as_mapping(read_yaml(path), DataError, f, "")
    out: dict[str, Dish] = {}
    for i, item in enumerate(raw.get("dishes") or []):
        key = key_path("dishes", i)
        item = as_mapping(item, DataError, f, key)
        name = item.get("name")
        if not isinstance(name, str) or name in out:
            raise DataError(f, key_path(key, "name"), f"missing or duplicate name {name!r}")
        recipe = as_mapping(item.get("recipe"), DataError, f, key_path(key, "recipe"))
        for ing, amount in recipe.items():
            rk = key_path(key_path(key, "recipe"), ing)
            if ing not in ingredients:
                raise DataError(f, rk, f"unknown ingredient {ing!r}")
            if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
                raise DataError(f, rk, f"amount must be a positive integer, got {amount!r}")
        spice = item.get("spice", 0)
        if spice not in (0, 1, 2, 3):
            raise DataError(f, key_path(key, "spice"), f"spice must be 0-3, got {spice!r}")
        out[name] = Dish(name, str(item.get("cuisine")), spice,
                         frozenset(as_str_list(item.get("tags", []), DataError, f, key)),
                         dict(recipe))
    return out


def _characters(path: Path) -> dict[str, dict[str, Any]]:
    f = str(path)
    raw = as_mapping(read_yaml(path), DataError, f, "")
    out: dict[str, dict[str, Any]] = {}
    for i, item in enumerate(raw.get("characters") or []):
        key = key_path("characters", i)
        item = as_mapping(item, DataError, f, key)
        missing = [fld for fld in PERSONA_FIELDS if fld not in item]
        if missing:
            raise DataError(f, key, f"missing persona fields {missing}")
        out[str(item["Name"])] = dict(item)
    return out


def _ratings(path: Path, chars: Mapping[str, Any], dishes: Mapping[str, Dish]
             ) -> dict[str, dict[str, float]]:
    f = str(path)
    try:
        raw = load_json(path).data
    except LoadError as exc:
        if not path.exists():
            raise DataError(f, "", "file not found (run the ratings authoring tool)") from None
        where = exc.key_text("") if exc.key or not exc.line else exc.position
        raise DataError(f, where, exc.problem) from None
    table = as_mapping(as_mapping(raw, DataError, f, "").get("ratings"), DataError, f, "ratings")
    out: dict[str, dict[str, float]] = {}
    for guest, row in table.items():
        gk = key_path("ratings", guest)
        if guest not in chars:
            raise DataError(f, gk, f"unknown guest {guest!r}")
        row = as_mapping(row, DataError, f, gk)
        lacking = sorted(set(dishes) - set(row))
        if lacking:
            raise DataError(f, gk, f"no rating for dishes {lacking[:3]}...")
        out[guest] = {d: float(as_number(v, DataError, f, key_path(gk, d)))
                      for d, v in row.items()}
    return out


@functools.lru_cache(maxsize=4)
def load_menu_database(data_dir: Path = DATA_DIR, *, with_ratings: bool = True) -> MenuDatabase:
    """Load and check the menu-design database from ``data_dir/menu``."""
    menu = data_dir / "menu"
    ingredients = _ingredients(menu / "ingredients.yaml")
    dishes = _dishes(menu / "dishes.yaml", ingredients)
    chars = _characters(menu / "characters.yaml")
    ratings = _ratings(menu / "ratings.json", chars, dishes) if with_ratings else {}
    obs_file = menu / "observation.yaml"
    obs = as_mapping(read_yaml(obs_file), DataError, str(obs_file), "")
    share = obs.get("ingredient_share") or {}
    probs = as_mapping(obs.get("observed_probability"), DataError, str(obs_file),
                       "observed_probability")
    for agent, row in probs.items():
        for fld, p in as_mapping(row, DataError, str(obs_file), agent).items():
            key = key_path(key_path("observed_probability", agent), fld)
            if fld not in PERSONA_FIELDS:
                raise DataError(str(obs_file), key, f"unknown persona field {fld!r}")
            if not 0.0 <= as_number(p, DataError, str(obs_file), key) <= 1.0:
                raise DataError(str(obs_file), key, f"probability out of [0, 1]: {p!r}")
    model = as_mapping(read_yaml(menu / "preference_model.yaml"), DataError,
                       str(menu / "preference_model.yaml"), "")
    return MenuDatabase(ingredients, dishes, chars, ratings, probs,
                        (float(share.get("min", 0.4)), float(share.get("max", 0.6))), model)


def _resources(raw: Any, f: str, key: str) -> dict[str, ResourceType]:
    table = as_mapping(raw, DataError, f, key)
    out = {}
    for name, spec in table.items():
        spec = as_mapping(spec, DataError, f, key_path(key, name))
        out[name] = ResourceType(name, str(spec.get("unit", "")), str(spec.get("description", "")))
    return out


def _subdomain(key: str, raw: Any, f: str) -> SubDomain:
    base = key_path("subdomains", key)
    raw = as_mapping(raw, DataError, f, base)
    priv = _resources(raw.get("private_resources"), f, key_path(base, "private_resources"))
    pub = _resources(raw.get("public_resources"), f, key_path(base, "public_resources"))
    if set(priv) & set(pub):
        raise DataError(f, base, f"resources both private and public: {set(priv) & set(pub)}")
    skills = tuple(as_str_list(raw.get("skills"), DataError, f, key_path(base, "skills")))
    tasks = []
    for i, t in enumerate(raw.get("tasks") or []):
        tk = key_path(key_path(base, "tasks"), i)
        t = as_mapping(t, DataError, f, tk)
        if t.get("skill") not in skills:
            raise DataError(f, key_path(tk, "skill"), f"unknown skill {t.get('skill')!r}")
        reqs = as_mapping(t.get("requirements"), DataError, f, key_path(tk, "requirements"))
        for res in reqs:
            if res not in priv and res not in pub:
                raise DataError(f, key_path(key_path(tk, "requirements"), res),
                                f"unknown resource {res!r}")
        tasks.append(TaskTemplate(str(t.get("name")), t["skill"], {
            r: _range(v, f, key_path(key_path(tk, "requirements"), r)) for r, v in reqs.items()}))
    personas = []
    for i, p in enumerate(raw.get("personas") or []):
        pk = key_path(key_path(base, "personas"), i)
        p = as_mapping(p, DataError, f, pk)
        eff = as_mapping(p.get("efficiency"), DataError, f, key_path(pk, "efficiency"))
        mean = as_mapping(eff.get("mean"), DataError, f, key_path(pk, "efficiency.mean"))
        if set(mean) != set(skills):
            raise DataError(f, key_path(pk, "efficiency.mean"), f"must cover skills {skills}")
        caps = as_mapping(p.get("private_resources"), DataError, f,
                          key_path(pk, "private_resources"))
        if set(caps) != set(priv):
            raise DataError(f, key_path(pk, "private_resources"),
                            f"must give a range for each of {sorted(priv)}")
        personas.append(Persona(
            str(p.get("name")), str(p.get("role", "")), str(p.get("description", "")),
            {s: float(as_number(v, DataError, f, key_path(pk, s))) for s, v in mean.items()},
            float(as_number(eff.get("sd", 0.08), DataError, f, key_path(pk, "efficiency.sd"))),
            {r: _range(v, f, key_path(pk, r)) for r, v in caps.items()}))
    return SubDomain(key, str(raw.get("title", key)), str(raw.get("description", "")).strip(),
                     skills, priv, pub, tuple(tasks), tuple(personas))


@functools.lru_cache(maxsize=4)
def load_teamwork_database(data_dir: Path = DATA_DIR) -> TeamworkDatabase:
    """Load and check the task-allocation database from ``data_dir/tasks/teamwork.yaml``."""
    path = data_dir / "tasks" / "teamwork.yaml"
    raw = as_mapping(read_yaml(path), DataError, str(path), "")
    subs = as_mapping(raw.get("subdomains"), DataError, str(path), "subdomains")
    return TeamworkDatabase({k: _subdomain(k, v, str(path)) for k, v in subs.items()})
