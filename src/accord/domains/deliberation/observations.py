"""What each agent observes (paper A.1.3 and A.2.2), as data and as sampled specs.

An instance's ``observations`` key records *which* parts of the state each agent sees:

* menu-numeric: ``{"agent_0": {"ingredients": [...], "guests": ["Alice"]}, ...}`` -
  the ingredient names are a partition (each agent 40-60% of them) and so are the guests
  whose numeric dish values the agent sees;
* menu-semantic: ``{"agent_0": {"ingredients": [...], "persona_fields": {"Alice": [...],
  "Bob": [...]}}}`` - the same ingredient partition, plus the persona fields of *both*
  guests that the agent sees, each drawn with the observed probabilities of A.1.3;
* task-allocation: ``{"agent_0": {"public_resources": {"Budget": 80}}}`` - the agent's
  fragment of each public total (fragments sum exactly to the totals); every agent also
  sees its own private resources and efficiencies in full.

:func:`private_observation` turns a spec into the dict an agent receives;
``merged=True`` gives the perfectly merged observation of the centralized and oracle
baselines. :func:`shared_info` is what every agent knows (recipes, tasks, requirements).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from accord.domains.deliberation.database import MenuDatabase
from accord.domains.deliberation.errors import InstanceError
from accord.domains.deliberation.load import (
    Instance,
    MenuInstance,
    Number,
    TaskInstance,
    exact,
)


def partition_ingredients(names: Sequence[str], n_agents: int, rng: np.random.Generator,
                          share: tuple[float, float] = (0.4, 0.6)) -> list[list[str]]:
    """Split ingredient names among agents; with two agents each gets ``share`` of them.

    When no split can satisfy ``share`` (very short lists) the split is as even as possible.
    """
    order = [names[i] for i in rng.permutation(len(names))]
    if n_agents == 2:
        n = len(order)
        lo, hi = math.ceil(share[0] * n - 1e-9), math.floor(share[1] * n + 1e-9)
        if lo > hi:  # too few ingredients for the share (e.g. 3): split as evenly as possible
            lo, hi = n // 2, (n + 1) // 2
        k = int(rng.integers(lo, hi + 1))
        parts = [order[:k], order[k:]]
    else:
        parts = [order[i::n_agents] for i in range(n_agents)]
    return [sorted(p, key=list(names).index) for p in parts]


def sample_fields(probabilities: Mapping[str, float], rng: np.random.Generator) -> list[str]:
    """Persona fields observed by one agent for one guest, each with its probability."""
    return [f for f, p in probabilities.items() if p >= 1.0 or rng.random() < p]


def split_total(total: Number, n: int, rng: np.random.Generator,
                concentration: float = 2.0) -> list[Number]:
    """Split a non-negative total into ``n`` non-negative fragments that sum to it exactly.

    Fragments keep the total's decimal precision (integers stay integers).
    """
    t = exact(total)
    scale = 1
    while (t * scale).denominator != 1:
        scale *= 10
    units = int(t * scale)
    weights = rng.dirichlet([concentration] * n)
    raw = [w * units for w in weights]
    parts = [math.floor(r) for r in raw]
    for i in sorted(range(n), key=lambda i: raw[i] - parts[i], reverse=True)[:units - sum(parts)]:
        parts[i] += 1
    if isinstance(total, int) or scale == 1:
        return [int(p) for p in parts] if isinstance(total, int) else [float(p) for p in parts]
    return [float(Fraction(p, scale)) for p in parts]


def sample_observation_spec(inst: Instance, rng: np.random.Generator,
                            db: MenuDatabase | None = None,
                            concentration: float = 2.0) -> dict[str, dict[str, Any]]:
    """Draw an observation spec for an instance (used by the generator and for user files)."""
    agents = list(inst.agents)
    if isinstance(inst, TaskInstance):
        frags = {p: split_total(v, len(agents), rng, concentration)
                 for p, v in inst.public_resources.items()}
        return {a: {"public_resources": {p: frags[p][i] for p in frags}}
                for i, a in enumerate(agents)}
    share = db.ingredient_share if db else (0.4, 0.6)
    parts = partition_ingredients(list(inst.ingredients), len(agents), rng, share)
    if inst.setting == "menu-numeric":
        guests = [inst.guests[i] for i in rng.permutation(len(inst.guests))]
        return {a: {"ingredients": parts[i], "guests": guests[i::len(agents)]}
                for i, a in enumerate(agents)}
    if db is None:
        from accord.domains.deliberation.database import load_menu_database
        db = load_menu_database()
    if not inst.personas:
        raise InstanceError(inst.id or "<instance>", "personas",
                            "menu-semantic needs guest personas to sample observations")
    tables = list(db.observed_probability.values())
    out: dict[str, dict[str, Any]] = {}
    for i, a in enumerate(agents):
        probs = db.observed_probability.get(a, tables[i % len(tables)])
        out[a] = {"ingredients": parts[i],
                  "persona_fields": {g: sample_fields(probs, rng) for g in inst.personas}}
    return out


def shared_info(inst: Instance) -> dict[str, Any]:
    """What every agent knows: the decision space and the public rules of the instance."""
    if isinstance(inst, MenuInstance):
        return {"setting": inst.setting, "agents": list(inst.agents), "guests": inst.guests,
                "dishes": inst.dishes,
                "recipes": {d: dict(r) for d, r in inst.recipes.items()}}
    return {"setting": inst.setting, "agents": list(inst.agents), "leader": inst.leader,
            "tasks": list(inst.tasks),
            "requirements": {t: dict(inst.requirements.get(t, {})) for t in inst.tasks},
            "public_resource_types": list(inst.public_resources),
            "private_resource_types": inst.private_keys()}


def private_observation(inst: Instance, agent: str, *, merged: bool = False
                        ) -> dict[str, Any]:
    """The observation of ``agent`` (or, ``merged``, of the whole team, perfectly merged)."""
    if not inst.observations:
        raise InstanceError(inst.id or "<instance>", "observations",
                            "instance has no observation spec; sample one first")
    whose = list(inst.agents) if merged else [agent]
    specs = [inst.observations.get(a, {}) for a in whose]
    if isinstance(inst, TaskInstance):
        public: dict[str, Number] = {}
        if merged:
            public = dict(inst.public_resources)
        else:
            public = dict(specs[0].get("public_resources", {}))
        return {
            "private_resources": {a: dict(inst.private_resources.get(a, {})) for a in whose},
            "public_resources": public,
            "public_is_total": merged,
            "efficiency": {a: dict(inst.efficiency.get(a, {})) for a in whose},
        }
    names = [n for s in specs for n in s.get("ingredients", [])]
    out: dict[str, Any] = {"ingredients": {n: inst.ingredients[n] for n in inst.ingredients
                                           if n in set(names)}}
    if inst.setting == "menu-numeric":
        guests = {g for s in specs for g in s.get("guests", [])}
        out["guest_scores"] = {g: dict(inst.guest_scores[g]) for g in inst.guests if g in guests}
    else:
        seen: dict[str, set[str]] = {}
        for s in specs:
            for g, fields in s.get("persona_fields", {}).items():
                seen.setdefault(g, set()).update(fields)
        out["guests"] = {g: {f: v for f, v in inst.personas[g].items() if f in seen.get(g, ())}
                         for g in inst.personas}
    return out


def check_observations(inst: Instance) -> list[str]:
    """Problems with an instance's observation spec (empty when it follows the rules)."""
    obs = inst.observations
    if set(obs) != set(inst.agents):
        return [f"observations must cover exactly the agents {list(inst.agents)}"]
    problems: list[str] = []
    if isinstance(inst, TaskInstance):
        for p, total in inst.public_resources.items():
            frags = [exact(obs[a].get("public_resources", {}).get(p, 0)) for a in inst.agents]
            if any(f < 0 for f in frags) or sum(frags) != exact(total):
                problems.append(f"public fragments of {p!r} do not sum to {total}")
        return problems
    parts = [set(obs[a].get("ingredients", [])) for a in inst.agents]
    union = set().union(*parts)
    if union != set(inst.ingredients) or sum(map(len, parts)) != len(union):
        problems.append("ingredient observations must partition the inventory")
    n = len(inst.ingredients)
    if len(parts) == 2 and math.ceil(0.4 * n - 1e-9) <= math.floor(0.6 * n + 1e-9):
        for a, part in zip(inst.agents, parts, strict=True):
            if not 0.4 * n - 1e-9 <= len(part) <= 0.6 * n + 1e-9:
                problems.append(f"{a} observes {len(part)}/{n} ingredients (outside 40-60%)")
    if inst.setting == "menu-numeric":
        gparts = [set(obs[a].get("guests", [])) for a in inst.agents]
        if set().union(*gparts) != set(inst.guests) or sum(map(len, gparts)) != len(inst.guests):
            problems.append("guest observations must partition the guests")
    else:
        for a in inst.agents:
            for g, fields in obs[a].get("persona_fields", {}).items():
                if g not in inst.personas:
                    problems.append(f"{a} observes unknown guest {g!r}")
                elif set(fields) - set(inst.personas[g]):
                    problems.append(f"{a} observes unknown fields of {g!r}")
    return problems
