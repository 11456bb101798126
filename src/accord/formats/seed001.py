"""The seed-001 authors' test games (Wang et al., MIT licence) as accord deliberation
instances.

The authors' repository (``github.com/wcx21/deliberative-collaboration-agents``) ships
its games as pickles under ``data/<task>/games/<folder>/games/<level>/game_NNNN.pkl``:

* cooking (``data/cooking/games/test_games``: 60 ``level_1_and_2`` games, 30 ``level_3``):
  a ``create_game_utils.GeneralMenuDesignGame`` whose state holds ``ingredients``,
  ``dishes``, ``cookbook`` (dish -> ``ingredients``, ``cuisine``, ...), ``nl_recipes``,
  ``game_ingredients_state`` (the inventory), ``persona_0``/``persona_1``
  (``persona.Persona`` records: ``name``, ``gender``, ..., ``values``),
  ``nl_agent_0_values``/``nl_agent_1_values`` (dish -> guest 0's / guest 1's value),
  the observation splits ``agent_0_obs``/``agent_1_obs`` and ``agent_*_value_obs_l2``,
  and the solver's ``best_menu`` (dish indices) and ``max_reward``;
* task allocation (``data/task_allocation/games/task_allocation_games``: 100 games):
  a ``task_allocation_create_game_utils.TaskAllocationGame`` with ``agents``, ``tasks``,
  ``agents_config`` (``role`` Leader/Worker, ``efficiency``, ``name``, ...),
  ``task_values``, ``value_matrix`` (agents x tasks, value x efficiency rounded to 2
  decimals), ``task_requirements`` (task -> ``public_resources`` and one row per agent),
  ``private_resource_list``/``public_resource_list``, ``game_resource_state``
  (``agent_private_resources``, ``public_resources``), the public fragments
  ``agent_i_obs`` and the solver's ``best_allocation_dict`` and ``max_reward``.

The pickles also hold numpy arrays and scalars; they are read with
:mod:`accord.core.safepickle`, which admits exactly these classes (as plain records) and
numpy's array helpers (as byte decoders), and refuses anything else.

The authors' menu reward is the **average** of the two guests' values of the chosen
dishes (``(v0 + v1) / 2``); accord's menu reward is the sum over guests (the paper's
formula, ``c_j = sum_k S_kj``). So that ``accord deliberation solve`` gives the stored
``max_reward`` exactly, an imported guest score is the authors' value divided by the
number of guests; the authors' raw values are kept under ``x-seed001``. NR is a ratio, so
it is the same either way.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from accord.core import safepickle
from accord.formats.base import FormatError

#: the classes the authors' pickles instantiate, under every module name their loaders
#: alias (``_register_pickle_aliases`` in their ``io.py`` files)
MENU_CLASSES = ("create_game_utils.GeneralMenuDesignGame",
                "benchmarks.create_game_utils.GeneralMenuDesignGame",
                "delib_collab.data_generation.cooking.game.GeneralMenuDesignGame")
PERSONA_CLASSES = ("persona.Persona", "benchmarks.persona.Persona",
                   "delib_collab.data_generation.cooking.persona.Persona")
TASK_CLASSES = ("task_allocation_create_game_utils.TaskAllocationGame",
                "benchmark_dev.task_allocation_create_game_utils.TaskAllocationGame",
                "delib_collab.data_generation.task_allocation.game.TaskAllocationGame")
RECORDS = (*MENU_CLASSES, *PERSONA_CLASSES, *TASK_CLASSES)
#: at most this many games are read from one folder
MAX_GAMES = 10_000
SOURCE = "Wang et al., LLM Agents for Deliberative Collaboration (seed 001); " \
         "github.com/wcx21/deliberative-collaboration-agents, MIT licence"
#: the persona fields, as the authors' ``persona_reveal_probs.json`` and accord name them
PERSONA_FIELDS = ("name", "gender", "nationality", "age", "occupation", "recent_status",
                  "dietary_preferences", "food_allergies", "cultural_preferences",
                  "health_and_fitness_goals", "personality_and_dining_style",
                  "ethical_and_religious_considerations")


def field_title(name: str) -> str:
    """``dietary_preferences`` -> ``Dietary Preferences`` (``and`` stays lower case)."""
    return " ".join(w if w == "and" else w.capitalize() for w in name.split("_"))


class _Reader:
    """Typed access to one game's state; every problem names the file and the field."""

    def __init__(self, source: str, state: Mapping[str, Any]) -> None:
        self.source, self.state = source, state

    def fail(self, field: str, problem: str) -> FormatError:
        return FormatError(self.source, field, problem)

    def get(self, field: str) -> Any:
        if field not in self.state:
            raise self.fail(field, "missing field")
        return self.state[field]

    def mapping(self, field: str, value: Any = None) -> Mapping[str, Any]:
        value = self.get(field) if value is None else value
        if isinstance(value, safepickle.Record):
            value = value.state
        if not isinstance(value, Mapping):
            raise self.fail(field, f"expected a mapping, got {type(value).__name__}")
        return value

    def names(self, field: str) -> list[str]:
        value = self.get(field)
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise self.fail(field, "expected a list of names")
        if len(set(value)) != len(value):
            raise self.fail(field, "duplicate name")
        return list(value)

    def number(self, field: str, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(
                value):
            raise self.fail(field, f"expected a finite number, got {str(value)[:40]!r}")
        return value

    def numbers(self, field: str, value: Any = None) -> dict[str, float]:
        table = self.mapping(field, value)
        return {str(k): self.number(f"{field}.{k}", v) for k, v in table.items()}


def _tidy(x: float) -> int | float:
    """A quantity as it is meant: ``4.0`` -> 4, ``4.6`` stays, float noise rounded off."""
    x = round(float(x), 9)
    return int(x) if x.is_integer() else x


def _persona(r: _Reader, field: str) -> dict[str, Any]:
    fields = r.mapping(field)
    name = fields.get("name")
    if not isinstance(name, str) or not name:
        raise r.fail(f"{field}.name", "missing guest name")
    return {field_title(k): fields[k] for k in PERSONA_FIELDS if k in fields}


def menu_instance(r: _Reader, game_id: str, setting: str) -> dict[str, Any]:
    """The accord instance of a cooking game (see the module docstring)."""
    dishes = r.names("dishes")
    stock = r.numbers("game_ingredients_state")
    recipes_raw = r.mapping("nl_recipes") if "nl_recipes" in r.state else {
        d: r.mapping(f"cookbook.{d}", r.mapping("cookbook").get(d)).get("ingredients")
        for d in dishes}
    recipes: dict[str, dict[str, int | float]] = {}
    for d in dishes:
        if d not in recipes_raw:
            raise r.fail(f"nl_recipes.{d}", "no recipe for this dish")
        row = r.numbers(f"nl_recipes.{d}", recipes_raw[d])
        recipes[d] = {i: _tidy(a) for i, a in row.items() if a > 0}
        for i in recipes[d]:
            if i not in stock:
                stock[i] = 0  # an ingredient the kitchen lacks: the authors' vector has 0
    personas = [_persona(r, f"persona_{k}") for k in (0, 1)]
    guests = [str(p["Name"]) for p in personas]
    if guests[0] == guests[1]:
        guests = [f"{guests[0]} (guest 1)", f"{guests[1]} (guest 2)"]
    raw_values = [r.numbers(f"nl_agent_{k}_values") for k in (0, 1)]
    scores: dict[str, dict[str, float]] = {}
    for g, values in zip(guests, raw_values, strict=True):
        for d in values:
            if d not in recipes:
                raise r.fail(f"nl_agent_{guests.index(g)}_values.{d}", "unknown dish")
        # the authors average the guests' values; accord sums them (module docstring)
        scores[g] = {d: _tidy(values.get(d, 0) / len(guests)) for d in dishes}
    best = r.get("best_menu")
    if not isinstance(best, list) or not all(isinstance(i, int) and 0 <= i < len(dishes)
                                             for i in best):
        raise r.fail("best_menu", "expected a list of dish indices")
    extra: dict[str, Any] = {
        "max_reward": r.number("max_reward", r.get("max_reward")),
        "best_menu": [dishes[i] for i in best],
        "guest_values": {g: {d: v for d, v in vals.items()}
                         for g, vals in zip(guests, raw_values, strict=True)},
        "reward": "authors: average of the guests' values; here each guest score is the "
                  "value divided by the number of guests, so accord's sum is that average",
        "observed_ingredients": {f"agent_{k}": r.numbers(f"agent_{k}_obs")
                                 for k in (0, 1) if f"agent_{k}_obs" in r.state},
    }
    data: dict[str, Any] = {
        "setting": setting, "id": game_id,
        "ingredients": {i: _tidy(a) for i, a in stock.items()},
        "recipes": recipes, "guest_scores": scores, "agents": ["agent_0", "agent_1"],
        "description": f"The seed-001 authors' cooking game {game_id}.",
        "source": SOURCE, "x-seed001": extra,
    }
    if setting == "menu-semantic":
        data["personas"] = {g: p for g, p in zip(guests, personas, strict=True)}
    return data


def task_instance(r: _Reader, game_id: str) -> dict[str, Any]:
    """The accord instance of a task-allocation game (see the module docstring)."""
    agents, tasks = r.names("agents"), r.names("tasks")
    config = r.mapping("agents_config")
    leaders = [a for a in agents if r.mapping(f"agents_config.{a}", config.get(a)).get(
        "role") == "Leader"]
    if len(leaders) != 1:
        raise r.fail("agents_config", f"expected exactly one agent with role 'Leader', "
                     f"found {len(leaders)}")
    private_keys = r.names("private_resource_list")
    public_keys = r.names("public_resource_list")
    resources = r.mapping("game_resource_state")
    priv_raw = r.mapping("game_resource_state.agent_private_resources",
                         resources.get("agent_private_resources"))
    private = {a: {k: _tidy(v) for k, v in r.numbers(
        f"game_resource_state.agent_private_resources.{a}", priv_raw.get(a, {})).items()}
        for a in agents}
    public = {k: _tidy(v) for k, v in r.numbers(
        "game_resource_state.public_resources", resources.get("public_resources")).items()}
    values = r.get("value_matrix")
    if not (isinstance(values, list) and len(values) == len(agents) and all(
            isinstance(row, list) and len(row) == len(tasks) for row in values)):
        raise r.fail("value_matrix", f"expected {len(agents)} rows of {len(tasks)} values")
    # the authors round value x efficiency to 2 decimals (in float32): undo the float32 noise
    efficiency = {a: {t: round(r.number(f"value_matrix[{i}][{j}]", values[i][j]), 2)
                      for j, t in enumerate(tasks)} for i, a in enumerate(agents)}
    reqs_raw = r.mapping("task_requirements")
    requirements: dict[str, dict[str, int | float]] = {}
    for t in tasks:
        where = f"task_requirements.{t}"
        row = r.mapping(where, reqs_raw.get(t))
        pub = r.numbers(f"{where}.public_resources", row.get("public_resources", {}))
        per_agent = []
        for a in agents:
            agent_row = r.numbers(f"{where}.{a}", row.get(a, {}))
            need = {k: agent_row.get(k, 0.0) for k in private_keys}
            # as the authors' constraint matrix: an agent's own public cost, else the task's
            need.update({k: agent_row.get(k, pub.get(k, 0.0)) for k in public_keys})
            per_agent.append(need)
        if any(n != per_agent[0] for n in per_agent[1:]):
            raise r.fail(where, "the requirements differ from agent to agent; accord's "
                         "task-allocation instances have one requirement row per task "
                         "(the authors' 100 test games do, their 2 demo games do not)")
        requirements[t] = {k: _tidy(v) for k, v in per_agent[0].items() if v}
    observations = {}
    for a in agents:
        if f"{a}_obs" in r.state:
            obs = r.mapping(f"{a}_obs")
            frag = r.numbers(f"{a}_obs.public_resources", obs.get("public_resources", {}))
            observations[a] = {"public_resources": {k: _tidy(v) for k, v in frag.items()}}
    best = r.mapping("best_allocation_dict") if "best_allocation_dict" in r.state else {}
    extra = {
        "max_reward": r.number("max_reward", r.get("max_reward")),
        "best_allocation": dict(best),
        "task_values": r.numbers("task_values") if "task_values" in r.state else {},
        "efficiency": {a: r.numbers(f"agents_config.{a}.efficiency",
                                    r.mapping(f"agents_config.{a}", config[a]).get(
                                        "efficiency", {})) for a in agents},
        "personas": {a: {k: v for k, v in r.mapping(f"agents_config.{a}", config[a]).items()
                         if k in ("name", "role", "description")} for a in agents},
        "domain_name": r.state.get("domain_name", ""),
        "reward": "efficiency here is the authors' value_matrix: task value x the agent's "
                  "efficiency, rounded to 2 decimals",
    }
    data: dict[str, Any] = {
        "setting": "task-allocation", "id": game_id, "agents": agents,
        "leader": leaders[0], "tasks": tasks, "efficiency": efficiency,
        "private_resources": private, "public_resources": public,
        "requirements": requirements,
        "description": f"The seed-001 authors' task-allocation game {game_id}.",
        "source": SOURCE, "x-seed001": extra,
    }
    if observations and set(observations) == set(agents):
        data["observations"] = observations
    return data


def game_id(path: Path) -> str:
    """``data/cooking/games/test_games/games/level_3/game_0007.pkl`` ->
    ``seed001-test_games-level_3-game_0007``: the data set folder (the one after the first
    ``games``, else the task folder) and the level folder, when the path has them."""
    parts = path.parts[:-1]
    dataset = next((parts[i + 1] for i, p in enumerate(parts[:-1]) if p == "games"),
                   next((p for p in parts if p in ("cooking", "task_allocation")), ""))
    level = path.parent.name if path.parent.name.startswith("level") else ""
    return "-".join(p for p in ("seed001", dataset, level, path.stem) if p)


def _open(path: Path) -> tuple[str, _Reader]:
    """(``menu`` or ``task``, a reader of the game's fields) of one game pickle."""
    obj = safepickle.load(path, RECORDS)
    if not isinstance(obj, safepickle.Record) or obj.pickled_class in PERSONA_CLASSES:
        kind = obj.pickled_class if isinstance(obj, safepickle.Record) else type(obj).__name__
        raise FormatError(str(path), "<root>", f"expected a GeneralMenuDesignGame or "
                          f"TaskAllocationGame, found {kind}")
    return ("menu" if obj.pickled_class in MENU_CLASSES else "task"), _Reader(str(path),
                                                                               obj.state)


def read_games(path: str | Path, settings: tuple[str, ...] = (
        "menu-numeric", "menu-semantic", "task-allocation")) -> list[dict[str, Any]]:
    """The instances of one game pickle among ``settings``: a cooking game as each menu
    setting asked for (the authors play levels 1 and 2 on the same games), a task game as
    task allocation. :class:`FormatError` (naming the file and the field) or
    :class:`~accord.core.safepickle.PickleRefused`."""
    path = Path(path)
    kind, r = _open(path)
    if kind == "task":
        return [task_instance(r, game_id(path))] if "task-allocation" in settings else []
    return [menu_instance(r, game_id(path), s) for s in settings
            if s in ("menu-numeric", "menu-semantic")]


def read_game(path: str | Path, menu_setting: str = "menu-numeric") -> dict[str, Any]:
    """One game pickle as the data of an accord instance file (a cooking game as
    ``menu_setting``); errors as :func:`read_games`."""
    if menu_setting not in ("menu-numeric", "menu-semantic"):
        raise FormatError(str(path), "<setting>", f"unknown menu setting {menu_setting!r}")
    return read_games(path, (menu_setting, "task-allocation"))[0]


def game_files(path: str | Path) -> list[Path]:
    """The game pickles at ``path``: the file itself, or every ``*.pkl`` under the folder
    (recursively, sorted)."""
    p = Path(path)
    if p.is_file():
        return [p]
    if not p.is_dir():
        raise FormatError(str(p), "<file>", "no such file or folder")
    files = sorted(f for f in p.rglob("*.pkl") if f.is_file())
    if not files:
        raise FormatError(str(p), "<folder>", "no .pkl game files in this folder")
    if len(files) > MAX_GAMES:
        raise FormatError(str(p), "<folder>", f"{len(files)} games; at most {MAX_GAMES}")
    return files


def import_games(path: str | Path, out: Path, force: bool = False,
                 settings: tuple[str, ...] = ("menu-numeric", "menu-semantic",
                                              "task-allocation")
                 ) -> tuple[dict[str, list[Path]], list[str]]:
    """Convert every game at ``path`` into ``out/<setting>/<id>.json`` (checked by accord's
    instance parser first; nothing is written when any file is refused).

    Returns (setting -> files written, games skipped with the reason). A game accord cannot
    represent is skipped when ``path`` is a folder and an error when it is the file given;
    a pickle that names anything but plain data (:class:`~accord.core.safepickle.
    PickleRefused`) is always an error. An existing file is not replaced unless ``force``.
    """
    import json

    from accord.domains.deliberation.errors import DataError
    from accord.domains.deliberation.load import parse_instance

    files = game_files(path)
    planned: list[tuple[Path, dict[str, Any]]] = []
    skipped: list[str] = []
    for f in files:
        try:
            found = read_games(f, settings)
            for data in found:  # refuse what accord cannot load, before writing
                parse_instance(data, str(f))
        except (FormatError, DataError) as exc:
            if len(files) == 1:
                raise
            skipped.append(str(exc))
            continue
        for data in found:
            target = out / data["setting"] / f"{data['id']}.json"
            if target.exists() and not force:
                raise FormatError(str(target), "<file>", "exists (an earlier import, perhaps "
                                  "edited since); give --force to replace it")
            planned.append((target, data))
    written: dict[str, list[Path]] = {}
    for target, data in planned:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n",
                          encoding="utf-8")
        written.setdefault(data["setting"], []).append(target)
    return written, skipped


def table2_spec(written: Mapping[str, list[Path]], name: str = "seed001-table2") -> str:
    """A bench spec (YAML text) of the paper's Table 2 layout on the imported instances:
    every setting x {deliberation, centralized} x {without, with tools}."""
    import yaml

    params = {"tools": [False, True], "max_rounds": 6, "max_chars": 1000}
    sweeps = []
    for setting, files in written.items():
        n = 3 if setting == "task-allocation" else 2
        paths = [str(p.resolve()) for p in files]
        sweeps.append({"scenarios": [setting],
                       "agents": [{"name": "deliberation", "agents": ["share"] * n}],
                       "params": {"mode": "deliberation", **params, "instance_file": paths}})
        sweeps.append({"scenarios": [setting],
                       "agents": [{"name": "centralized", "agents": ["share"]}],
                       "params": {"mode": "centralized", **params, "instance_file": paths}})
    spec = {"name": name, "description": "Table 2 of seed 001 on the authors' own test games",
            "domain": "deliberation", "seeds": [0], "sweeps": sweeps}
    head = ("# Written by `accord deliberation import`: the paper's Table 2 layout on the\n"
            "# authors' instances. Replace the agent 'share' by a model spec, e.g.\n"
            "# \"llm:openai/gpt-4.1-mini?temperature=0.3\", to evaluate a model.\n")
    return head + yaml.safe_dump(spec, sort_keys=False, width=100)
