"""Deliberation instances and their JSON file format.

The format is exactly the issue's (more keys allowed and preserved)::

    {"setting": "menu-numeric",
     "ingredients": {"egg": 4, "rice": 2},
     "recipes": {"fried rice": {"egg": 1, "rice": 2}},
     "guest_scores": {"Alice": {"fried rice": 3.2}}}

    {"setting": "task-allocation",
     "agents": ["agent_0", "agent_1", "agent_2"], "leader": "agent_2",
     "tasks": ["t1", "t2"],
     "efficiency": {"agent_0": {"t1": 0.8, "t2": 0.6}},
     "private_resources": {"agent_0": {"Time": 10}},
     "public_resources": {"Budget": 200},
     "requirements": {"t1": {"Time": 3, "Budget": 100}}}

Optional keys used by accord: ``id``; ``agents`` for menus (default ``agent_0``,
``agent_1``); ``personas`` (guest -> persona fields, menu-semantic); ``observations``
(agent -> what it observes, see :mod:`accord.domains.deliberation.observations`).
Annotation keys are kept as they are: ``description``, ``notes``, ``source``, the
generator's ``domain``, ``domain_title`` and ``task_skills``, and any key starting with
``x-`` or ``x_``; any other key is an error with a close-match suggestion (a typo such as
``private_resource`` would otherwise silently leave every agent without resources).
Quantities that reach the ILP (stock, amounts, resources, requirements) are 0 or within
[1e-6, 1e9]; scores and efficiencies at most 1e9; the exact ILP has at most
:data:`MAX_ILP_VARIABLES` binary variables (dishes, or agents x tasks). Files are read by
:mod:`accord.core.safeload`.
A missing guest score or efficiency counts as 0. A requirement key that names a public
resource is public; any other requirement key is a private resource (an agent without it
has 0). Numbers are read exactly (``Fraction`` of their decimal form) where feasibility
is decided.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from accord.core.safeload import LoadError, load_json, short, unknown_keys
from accord.domains.deliberation.errors import (
    QUANTITY_MAX,
    QUANTITY_MIN,
    InstanceError,
    as_mapping,
    as_number,
    as_str_list,
    key_path,
)

# the settings live with the listing (which must not import this module's parsers)
from accord.domains.deliberation.listing import MENU_SETTINGS as MENU_SETTINGS
from accord.domains.deliberation.listing import SETTINGS as SETTINGS
from accord.domains.deliberation.listing import TASK_SETTING as TASK_SETTING

Number = int | float


def exact(x: Number | Fraction) -> Fraction:
    """The exact rational value of a number as written (``0.1`` -> 1/10)."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    return Fraction(repr(float(x)))


@dataclass(frozen=True)
class MenuInstance:
    """A menu-design instance: inventory, recipes and guests' per-dish scores."""

    setting: str
    ingredients: Mapping[str, Number]
    recipes: Mapping[str, Mapping[str, Number]]
    guest_scores: Mapping[str, Mapping[str, Number]]
    agents: tuple[str, ...] = ("agent_0", "agent_1")
    id: str = ""
    personas: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    observations: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def dishes(self) -> list[str]:
        """Candidate dishes, in file order."""
        return list(self.recipes)

    @property
    def guests(self) -> list[str]:
        """Guest names, in file order."""
        return list(self.guest_scores)

    def dish_value_exact(self, dish: str) -> Fraction:
        """c_j exactly: the sum of the guests' scores for ``dish`` (missing scores count 0)."""
        return sum((exact(row.get(dish, 0)) for row in self.guest_scores.values()), Fraction(0))

    def dish_value(self, dish: str) -> float:
        """c_j: the sum of the guests' scores for ``dish`` (missing scores count 0)."""
        return float(self.dish_value_exact(dish))


@dataclass(frozen=True)
class TaskInstance:
    """A task-allocation instance with private and public resources and a leader."""

    agents: tuple[str, ...]
    leader: str
    tasks: tuple[str, ...]
    efficiency: Mapping[str, Mapping[str, Number]]
    private_resources: Mapping[str, Mapping[str, Number]]
    public_resources: Mapping[str, Number]
    requirements: Mapping[str, Mapping[str, Number]]
    id: str = ""
    observations: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)
    setting: str = TASK_SETTING

    def eff(self, agent: str, task: str) -> float:
        """Efficiency of ``agent`` on ``task`` (0 when missing)."""
        return float(self.efficiency.get(agent, {}).get(task, 0))

    def private_keys(self) -> list[str]:
        """Private resource types: every non-public resource named anywhere, sorted."""
        keys = {r for row in self.private_resources.values() for r in row}
        keys |= {r for row in self.requirements.values() for r in row}
        return sorted(keys - set(self.public_resources))


Instance = MenuInstance | TaskInstance
"""Either kind of instance."""

_MENU_KEYS = {"setting", "ingredients", "recipes", "guest_scores", "agents", "id",
              "personas", "observations"}
_TASK_KEYS = {"setting", "agents", "leader", "tasks", "efficiency", "private_resources",
              "public_resources", "requirements", "id", "observations"}
#: the largest exact ILP an instance may need (the paper's are 14 dishes, 3 x 10 tasks;
#: 5 agents x 100 tasks already took 20 s, 10 x 100 more than a minute)
MAX_ILP_VARIABLES = 200
MAX_ILP_ROWS = 1_000
#: annotation keys kept verbatim in ``extra`` (plus any ``x-...`` / ``x_...`` key)
EXTENSION_KEYS = ("description", "notes", "source", "domain", "domain_title", "task_skills",
                  "personas")


def _check_keys(data: Mapping[str, Any], known: Iterable[str], src: str) -> None:
    allowed = [*known, *EXTENSION_KEYS]
    rest = {k: v for k, v in data.items() if not str(k).startswith(("x-", "x_"))}
    bad = unknown_keys(rest, sorted(allowed))
    if bad is not None:
        raise InstanceError(src, bad[0], bad[1] + " (annotation keys start with 'x-')")


def _num_table(raw: Any, src: str, key: str, quantity: bool = True) -> dict[str, Number]:
    """A table of numbers; ``quantity``: it reaches the ILP's constraints."""
    table = as_mapping(raw, InstanceError, src, key)
    tiny = QUANTITY_MIN if quantity else None
    return {k: as_number(v, InstanceError, src, key_path(key, k), maximum=QUANTITY_MAX,
                         smallest=tiny) for k, v in table.items()}


def _parse_menu(data: Mapping[str, Any], src: str) -> MenuInstance:
    _check_keys(data, _MENU_KEYS, src)
    for need in ("ingredients", "recipes", "guest_scores"):
        if need not in data:
            raise InstanceError(src, need, "missing required key")
    ingredients = _num_table(data["ingredients"], src, "ingredients")
    recipes_raw = as_mapping(data["recipes"], InstanceError, src, "recipes")
    if not recipes_raw:
        raise InstanceError(src, "recipes", "needs at least one dish")
    recipes = {}
    for dish, rec in recipes_raw.items():
        rk = key_path("recipes", dish)
        recipes[dish] = _num_table(rec, src, rk)
        for ing, amount in recipes[dish].items():
            if amount <= 0:
                raise InstanceError(src, key_path(rk, ing), f"amount must be > 0, "
                                    f"got {short(amount)}")
    scores = {}
    for guest, row in as_mapping(data["guest_scores"], InstanceError, src,
                                 "guest_scores").items():
        gk = key_path("guest_scores", guest)
        scores[guest] = _num_table(row, src, gk, quantity=False) if row is not None else {}
        for dish in scores[guest]:
            if dish not in recipes:
                raise InstanceError(src, key_path(gk, dish), f"unknown dish {short(dish)} "
                                    "(not in recipes)")
    agents = tuple(as_str_list(data.get("agents", ["agent_0", "agent_1"]), InstanceError,
                               src, "agents"))
    personas = as_mapping(data.get("personas", {}), InstanceError, src, "personas")
    for guest in personas:
        if guest not in scores:
            raise InstanceError(src, key_path("personas", guest),
                                f"unknown guest {short(guest)}")
    return MenuInstance(
        str(data["setting"]), ingredients, recipes, scores, agents, str(data.get("id", "")),
        personas, _observations(data, agents, src),
        {k: v for k, v in data.items() if k not in _MENU_KEYS})


def _rows(data: Mapping[str, Any], key: str, known: Iterable[str], what: str, src: str
          ) -> Iterator[tuple[str, str, Any]]:
    """``(name, key path, row)`` for each entry of the mapping at ``key`` (empty if absent);
    each name must be one of ``known`` (a ``what``: agent, task)."""
    for name, row in as_mapping(data.get(key, {}), InstanceError, src, key).items():
        path = key_path(key, name)
        if name not in known:
            raise InstanceError(src, path, f"unknown {what} {short(name)}")
        yield name, path, row


#: observation-spec keys whose value is a list of names
_OBS_LISTS = ("ingredients", "guests")


def _observation(spec: Any, src: str, path: str) -> dict[str, Any]:
    """One agent's observation spec, each known field of the type its readers expect
    (a list where a list is read, a mapping where a mapping is), else InstanceError."""
    out = dict(as_mapping(spec, InstanceError, src, path))
    for key in _OBS_LISTS:
        if key in out:
            as_str_list(out[key], InstanceError, src, key_path(path, key))
    if "persona_fields" in out:
        fields = as_mapping(out["persona_fields"], InstanceError, src,
                            key_path(path, "persona_fields"))
        for guest, names in fields.items():
            as_str_list(names, InstanceError, src,
                        key_path(key_path(path, "persona_fields"), guest))
    if "public_resources" in out:
        public = as_mapping(out["public_resources"], InstanceError, src,
                            key_path(path, "public_resources"))
        for res, amount in public.items():
            as_number(amount, InstanceError, src,
                      key_path(key_path(path, "public_resources"), res),
                      maximum=QUANTITY_MAX, smallest=QUANTITY_MIN)
    return out


def _observations(data: Mapping[str, Any], agents: tuple[str, ...], src: str
                  ) -> dict[str, dict[str, Any]]:
    return {agent: _observation(spec, src, ok)
            for agent, ok, spec in _rows(data, "observations", agents, "agent", src)}


def _parse_task(data: Mapping[str, Any], src: str) -> TaskInstance:
    _check_keys(data, _TASK_KEYS, src)
    for need in ("agents", "leader", "tasks", "requirements"):
        if need not in data:
            raise InstanceError(src, need, "missing required key")
    agents = tuple(as_str_list(data["agents"], InstanceError, src, "agents"))
    if not agents:
        raise InstanceError(src, "agents", "needs at least one agent")
    leader = data["leader"]
    if not isinstance(leader, str) or leader not in agents:
        raise InstanceError(src, "leader", f"{short(leader)} is not one of the agents "
                            f"{short(list(agents))}")
    tasks = tuple(as_str_list(data["tasks"], InstanceError, src, "tasks"))
    eff: dict[str, dict[str, Number]] = {}
    for agent, ak, row in _rows(data, "efficiency", agents, "agent", src):
        eff[agent] = _num_table(row, src, ak, quantity=False)
        for task in eff[agent]:
            if task not in tasks:
                raise InstanceError(src, key_path(ak, task), f"unknown task {short(task)}")
    public = _num_table(data.get("public_resources", {}), src, "public_resources")
    private: dict[str, dict[str, Number]] = {}
    for agent, pk, row in _rows(data, "private_resources", agents, "agent", src):
        private[agent] = _num_table(row, src, pk)
        for res in private[agent]:
            if res in public:
                raise InstanceError(src, key_path(pk, res),
                                    f"{short(res)} is also a public resource; names must differ")
    reqs: dict[str, dict[str, Number]] = {}
    for task, rk, row in _rows(data, "requirements", tasks, "task", src):
        reqs[task] = _num_table(row, src, rk)
    return TaskInstance(
        agents, leader, tasks, eff, private, public, reqs, str(data.get("id", "")),
        _observations(data, agents, src),
        {k: v for k, v in data.items() if k not in _TASK_KEYS})


def ilp_size(inst: Instance) -> tuple[int, int]:
    """Binary variables and constraint rows of the instance's exact ILP."""
    if isinstance(inst, MenuInstance):
        ings = {i for r in inst.recipes.values() for i in r} | set(inst.ingredients)
        return len(inst.recipes), len(ings)
    rows = len(inst.tasks) + len(inst.agents) * len(inst.private_keys())
    return len(inst.agents) * len(inst.tasks), rows + len(inst.public_resources)


def _check_size(inst: Instance, src: str) -> Instance:
    n_vars, n_rows = ilp_size(inst)
    key = "recipes" if isinstance(inst, MenuInstance) else "tasks"
    if n_vars > MAX_ILP_VARIABLES or n_rows > MAX_ILP_ROWS:
        what = "dishes" if isinstance(inst, MenuInstance) else "agents x tasks"
        raise InstanceError(src, key, f"the exact optimum would be an ILP with {n_vars:,} "
                            f"binary variables ({what}) and {n_rows:,} constraints; at most "
                            f"{MAX_ILP_VARIABLES} and {MAX_ILP_ROWS} (an NP-hard program: "
                            "beyond this it can run for minutes)")
    return inst


def parse_instance(data: Any, source: str = "<dict>") -> Instance:
    """Build an instance from its JSON-shaped dict; errors name ``source`` and the key."""
    data = as_mapping(data, InstanceError, source, "")
    setting = data.get("setting")
    if setting in MENU_SETTINGS:
        return _check_size(_parse_menu(data, source), source)
    if setting == TASK_SETTING:
        return _check_size(_parse_task(data, source), source)
    raise InstanceError(source, "setting", f"unknown setting {short(setting)}; expected one "
                        f"of {list(SETTINGS)}")


def load_instance(path: str | Path) -> Instance:
    """Read and parse an instance JSON file (through :mod:`accord.core.safeload`)."""
    try:
        data = load_json(path).data
    except LoadError as exc:
        where = exc.key_text("") if exc.key or not exc.line else exc.position
        raise InstanceError(exc.source, where, exc.problem) from None
    return parse_instance(data, str(path))


def instance_to_dict(inst: Instance) -> dict[str, Any]:
    """The instance in its JSON file form (issue keys first, then accord's extras)."""
    out: dict[str, Any] = {"setting": inst.setting}
    if inst.id:
        out["id"] = inst.id
    if isinstance(inst, MenuInstance):
        out.update(ingredients=dict(inst.ingredients),
                   recipes={d: dict(r) for d, r in inst.recipes.items()},
                   guest_scores={g: dict(r) for g, r in inst.guest_scores.items()},
                   agents=list(inst.agents))
        if inst.personas:
            out["personas"] = {g: dict(p) for g, p in inst.personas.items()}
    else:
        out.update(agents=list(inst.agents), leader=inst.leader, tasks=list(inst.tasks),
                   efficiency={a: dict(r) for a, r in inst.efficiency.items()},
                   private_resources={a: dict(r) for a, r in inst.private_resources.items()},
                   public_resources=dict(inst.public_resources),
                   requirements={t: dict(r) for t, r in inst.requirements.items()})
    if inst.observations:
        out["observations"] = {a: dict(o) for a, o in inst.observations.items()}
    out.update(inst.extra)
    return out


def dump_instance(inst: Instance, path: str | Path) -> None:
    """Write an instance as indented JSON."""
    Path(path).write_text(json.dumps(instance_to_dict(inst), indent=1, ensure_ascii=False)
                          + "\n", encoding="utf-8")
