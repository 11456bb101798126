"""Recreations of the seed-001 authors' game pickles, in their exact structure.

The authors (github.com/wcx21/deliberative-collaboration-agents) pickle instances of
``create_game_utils.GeneralMenuDesignGame`` (holding ``persona.Persona`` objects) and
``task_allocation_create_game_utils.TaskAllocationGame``, with numpy arrays and numpy
scalars among the fields. These helpers define stand-in classes under those module names
(in ``sys.modules`` only while pickling) and fill them field by field as the authors'
generators do, with the optimum computed here by brute force, independently of accord's
ILP.
"""

from __future__ import annotations

import itertools
import pickle
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np


@contextmanager
def _authors_modules() -> Iterator[dict[str, type]]:
    """Modules ``create_game_utils``, ``persona`` and ``task_allocation_create_game_utils``
    with the authors' class names, for the duration of a ``pickle.dumps``."""
    made: dict[str, type] = {}
    names = {"create_game_utils": "GeneralMenuDesignGame", "persona": "Persona",
             "task_allocation_create_game_utils": "TaskAllocationGame"}
    saved = {m: sys.modules.get(m) for m in names}
    try:
        for module, cls_name in names.items():
            mod = types.ModuleType(module)
            cls = type(cls_name, (), {"__module__": module})
            setattr(mod, cls_name, cls)
            sys.modules[module] = mod
            made[cls_name] = cls
        yield made
    finally:
        for m, old in saved.items():
            if old is None:
                sys.modules.pop(m, None)
            else:
                sys.modules[m] = old


def _obj(cls: type, fields: dict[str, Any]) -> Any:
    o = cls.__new__(cls)
    o.__dict__.update(fields)
    return o


PERSONA_A = {"name": "Aya", "gender": "Female", "nationality": "Japanese", "age": 28,
             "occupation": {"Job Title": "Graphic Designer"}, "recent_status": {},
             "dietary_preferences": {"Low-carb": True}, "food_allergies": ["Soy"],
             "cultural_preferences": {"Cuisine Type": "Japanese"},
             "health_and_fitness_goals": {}, "personality_and_dining_style": {},
             "ethical_and_religious_considerations": {"Buddhist": True}}
PERSONA_B = {**PERSONA_A, "name": "Fatima", "nationality": "Egyptian", "age": 32,
             "food_allergies": []}


def menu_optimum(stock: dict[str, int], recipes: dict[str, dict[str, int]],
                 v0: list[float], v1: list[float]) -> tuple[list[int], float]:
    """The authors' objective by brute force: max over feasible dish sets of the sum of
    ``(v0 + v1) / 2``."""
    dishes = list(recipes)
    best: tuple[list[int], float] = ([], 0.0)
    for r in range(len(dishes) + 1):
        for combo in itertools.combinations(range(len(dishes)), r):
            need: dict[str, int] = {}
            for j in combo:
                for i, a in recipes[dishes[j]].items():
                    need[i] = need.get(i, 0) + a
            if all(need[i] <= stock.get(i, 0) for i in need):
                value = sum((v0[j] + v1[j]) / 2.0 for j in combo)
                if value > best[1] + 1e-12:
                    best = (list(combo), value)
    return best


def cooking_game(seed: int) -> dict[str, Any]:
    """The fields of one cooking game (as ``GeneralMenuDesignGame.__dict__``), random."""
    rng = np.random.default_rng(seed)
    ingredients = ["eggs", "rice", "pork", "scallions", "flour", "cream"]
    dishes = ["Fried Rice", "Pancake", "Dumplings", "Custard", "Congee"]
    cookbook = {}
    for d in dishes:
        picked = rng.choice(ingredients, size=int(rng.integers(1, 4)), replace=False)
        cookbook[d] = {"ingredients": {str(i): int(rng.integers(1, 3)) for i in picked},
                       "condiments": ["salt"], "keywords": ["savory"],
                       "description": f"{d}.", "cuisine": "Test"}
    recipes = np.zeros((len(dishes), len(ingredients)), dtype=np.int32)
    for j, d in enumerate(dishes):
        for i, a in cookbook[d]["ingredients"].items():
            recipes[j, ingredients.index(i)] = a
    stock = {i: int(rng.integers(0, 4)) for i in ingredients}
    v0 = [round(float(x), 2) for x in rng.uniform(0, 10, len(dishes))]
    v1 = [round(float(x), 2) for x in rng.uniform(0, 10, len(dishes))]
    best, max_reward = menu_optimum(stock, {d: cookbook[d]["ingredients"] for d in dishes},
                                    v0, v1)
    half = {i: stock[i] // 2 for i in ingredients}
    return {
        "ingredients": ingredients, "dishes": dishes, "cookbook": cookbook,
        "recipes": recipes, "game_ingredients_state": stock,
        "vec_ingredients_state": np.array([stock[i] for i in ingredients], dtype=np.float64),
        "agent_0_obs": half, "agent_1_obs": {i: stock[i] - half[i] for i in ingredients},
        "base_value": np.array([(a + b) / 2 for a, b in zip(v0, v1, strict=True)],
                               dtype=np.float32),
        "agent_0_values": np.array(v0, dtype=np.float64),
        "agent_1_values": np.array(v1, dtype=np.float64),
        "nl_recipes": {d: {i: np.int32(a) for i, a in cookbook[d]["ingredients"].items()}
                       for d in dishes},
        "nl_agent_0_values": {d: np.float64(v) for d, v in zip(dishes, v0, strict=True)},
        "nl_agent_1_values": {d: np.float64(v) for d, v in zip(dishes, v1, strict=True)},
        "best_menu": best, "max_reward": max_reward,
        "possible_dishes": list(range(len(dishes))),
    }


def task_optimum(values: np.ndarray, need: dict[str, dict[str, float]],
                 private: dict[str, dict[str, float]], public: dict[str, float],
                 agents: list[str], tasks: list[str]) -> tuple[dict[str, str], float]:
    """The authors' task objective by brute force over every assignment."""
    best: tuple[dict[str, str], float] = ({}, 0.0)
    for choice in itertools.product([None, *range(len(agents))], repeat=len(tasks)):
        used = {a: dict.fromkeys(private[a], 0.0) for a in agents}
        pub = dict.fromkeys(public, 0.0)
        value = 0.0
        for t, a in zip(tasks, choice, strict=True):
            if a is None:
                continue
            name = agents[a]
            value += float(values[a, tasks.index(t)])
            for k, amount in need[t].items():
                if k in public:
                    pub[k] += amount
                else:
                    used[name][k] = used[name].get(k, 0.0) + amount
        ok = all(used[a][k] <= private[a].get(k, 0) + 1e-9 for a in agents for k in used[a])
        ok = ok and all(pub[k] <= public[k] + 1e-9 for k in public)
        if ok and value > best[1] + 1e-9:
            best = ({t: agents[a] for t, a in zip(tasks, choice, strict=True)
                     if a is not None}, value)
    return best


def task_game(seed: int, differ: bool = False) -> dict[str, Any]:
    """The fields of one task-allocation game (``TaskAllocationGame.__dict__``), random;
    ``differ``: one agent's requirement row differs (as in the authors' demo games)."""
    rng = np.random.default_rng(seed)
    agents = ["agent_0", "agent_1", "agent_2"]
    tasks = ["Prep vegetables", "Serve lunch", "Clean grill", "Restock"]
    private_keys, public_keys = ["Time", "Energy"], ["Budget"]
    need = {t: {"Time": float(rng.integers(1, 4)), "Energy": float(rng.integers(0, 3)),
                "Budget": float(rng.integers(0, 60))} for t in tasks}
    reqs: dict[str, Any] = {}
    for t in tasks:
        row = {"public_resources": {"Budget": need[t]["Budget"]}}
        for a in agents:
            row[a] = dict(need[t])
        reqs[t] = row
    if differ:
        reqs[tasks[0]]["agent_1"] = {**need[tasks[0]], "Time": need[tasks[0]]["Time"] + 1}
    efficiency = {a: {t: round(float(rng.uniform(0.7, 1.5)), 1) for t in tasks}
                  for a in agents}
    task_values = {t: round(float(rng.uniform(2, 20)), 1) for t in tasks}
    values = np.round(np.array([[task_values[t] * efficiency[a][t] for t in tasks]
                                for a in agents], dtype=np.float32), 2)
    private = {a: {"Time": round(float(rng.uniform(3, 7)), 1),
                   "Energy": round(float(rng.uniform(1, 4)), 1)} for a in agents}
    public = {"Budget": int(rng.integers(40, 120))}
    split = [public["Budget"] // 3, public["Budget"] // 3]
    split.append(public["Budget"] - sum(split))
    best, max_reward = task_optimum(values, need, private, public, agents, tasks)
    config = {a: {"name": f"Persona {a}", "role": "Leader" if a == "agent_2" else "Worker",
                  "description": "A test persona.", "private_resources": private[a],
                  "efficiency": efficiency[a], "public_resource_cost_multipliers": {}}
              for a in agents}
    fields: dict[str, Any] = {
        "tasks": tasks, "resources": private_keys + public_keys, "agents": agents,
        "persona_ids": {a: f"p_{a}" for a in agents}, "task_requirements": reqs,
        "agents_config": config, "task_values": task_values,
        "private_resource_list": private_keys, "public_resource_list": public_keys,
        "game_resource_state": {"agent_private_resources": private,
                                "public_resources": public},
        "vec_resource_state": np.zeros(3 * 2 + 1, dtype=np.float32),
        "value_matrix": values, "constraint_matrix": np.zeros((7, 12), dtype=np.float32),
        "best_allocation": np.zeros(12, dtype=np.float32), "max_reward": round(max_reward, 2),
        "best_allocation_dict": best, "domain_name": "cafeteria_operations",
    }
    for a, frag in zip(agents, split, strict=True):
        fields[f"{a}_obs"] = {"private_resources": private[a],
                              "public_resources": {"Budget": frag}}
    return fields


def write_cooking(path: Path, fields: dict[str, Any]) -> Path:
    """Pickle a cooking game the way the authors' generator does (protocol 4)."""
    with _authors_modules() as cls:
        personas = tuple(_obj(cls["Persona"], {**p, "values": None})
                         for p in (PERSONA_A, PERSONA_B))
        game = _obj(cls["GeneralMenuDesignGame"], {
            **fields, "personas": personas, "persona_0": personas[0],
            "persona_1": personas[1],
            "persona_obs_probs": [{"Name": 1.0, "Occupation": 0.7}] * 2,
            "partial_persona_0_0": personas[0], "partial_persona_1_1": personas[1],
            "agent_0_value_obs_l2": [{"Name": "Aya"}, {"Name": "Fatima"}]})
        data = pickle.dumps(game, protocol=4)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def write_task(path: Path, fields: dict[str, Any]) -> Path:
    """Pickle a task-allocation game the way the authors' generator does."""
    with _authors_modules() as cls:
        data = pickle.dumps(_obj(cls["TaskAllocationGame"], fields), protocol=4)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


class Evil:
    """Pickles as a call of ``os.system`` (what a hostile game file would hold)."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple[Any, ...]:
        import os

        return (os.system, (self.command,))
