"""Instance generation with the selection principles of the paper (A.1.4, A.2.3).

Menu design: draw many random candidates (a subset of dishes - biased towards dishes that
share ingredients, so they compete for them - two guests, an inventory over the dishes'
ingredients with some of them missing or short), keep those whose solved best menu has
at least 3 dishes, with at least 8 ingredient kinds in stock and at least 5 (and 40% of
the) dishes cookable on their own; then rank by a score favouring high ingredient
utilization by the best menu, a short ingredient list, many cookable dishes and few dishes
in the best menu, and keep the top ones. Task allocation: per sub-domain draw candidates
(10 tasks, 3 personas, persona-specific resources and efficiencies, public totals), keep
those whose optimum assigns at least 3 tasks, and rank by
``P = w_p p_done + w_u U_res + w_r R_max/n``.

All randomness comes from the ``numpy.random.Generator`` passed in. Settings live in
``data/generator.yaml``. A :class:`~.search_budget.SearchBudget` bounds the clock time of
the candidate search (the result is then partial, and says so).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from accord.domains.deliberation.database import (
    DATA_DIR,
    MenuDatabase,
    SubDomain,
    load_menu_database,
    load_teamwork_database,
    read_yaml,
)
from accord.domains.deliberation.ilp import optimum
from accord.domains.deliberation.load import (
    MENU_SETTINGS,
    TASK_SETTING,
    Instance,
    MenuInstance,
    TaskInstance,
    dump_instance,
)
from accord.domains.deliberation.observations import sample_observation_spec
from accord.domains.deliberation.preferences import dish_value
from accord.domains.deliberation.rewards import check_assignment, check_menu
from accord.domains.deliberation.search_budget import SearchBudget


def generator_config(data_dir: Path = DATA_DIR) -> dict[str, Any]:
    """The generator settings from ``data/generator.yaml``."""
    cfg = read_yaml(data_dir / "generator.yaml")
    assert isinstance(cfg, dict)
    return cfg


@dataclass(frozen=True)
class Candidate:
    """A candidate instance with the features used to select it."""

    instance: Instance
    features: Mapping[str, float]


def sample_dishes(db: MenuDatabase, rng: np.random.Generator, cfg: Mapping[str, Any]
                  ) -> list[str]:
    """The candidate dishes of one instance, in database order.

    With ``overlap_bias`` b > 0 the first dish is uniform and each further dish is drawn
    with weight ``(1 + k) ** b``, k = how many of its ingredients the dishes drawn so far
    already use, so dishes compete for shared ingredients (b = 0: uniform).
    """
    lo, hi = cfg["dishes"]
    names = list(db.dishes)
    n = int(rng.integers(lo, hi + 1))
    bias = float(cfg.get("overlap_bias", 0.0))
    if bias <= 0:
        return [names[i] for i in sorted(rng.choice(len(names), n, replace=False))]
    chosen = [int(rng.integers(len(names)))]
    used = set(db.dishes[names[chosen[0]]].recipe)
    while len(chosen) < n:
        weights = np.array([0.0 if i in chosen else
                            (1.0 + len(used & set(db.dishes[d].recipe))) ** bias
                            for i, d in enumerate(names)])
        pick = int(rng.choice(len(names), p=weights / weights.sum()))
        chosen.append(pick)
        used |= set(db.dishes[names[pick]].recipe)
    return [names[i] for i in sorted(chosen)]


def menu_candidate(db: MenuDatabase, setting: str, rng: np.random.Generator,
                   cfg: Mapping[str, Any]) -> MenuInstance:
    """One random menu instance (no observation spec yet)."""
    picked = sample_dishes(db, rng, cfg)
    guests = [list(db.characters)[i] for i in rng.choice(len(db.characters), cfg["guests"],
                                                         replace=False)]
    demand: dict[str, int] = {}
    for d in picked:
        for ing, amt in db.dishes[d].recipe.items():
            demand[ing] = demand.get(ing, 0) + amt
    biggest: dict[str, int] = {}
    for d in picked:
        for ing, amt in db.dishes[d].recipe.items():
            biggest[ing] = max(biggest.get(ing, 0), amt)
    e_lo, e_hi = cfg["extra_fraction"]
    inventory: dict[str, int] = {}
    for ing in (i for i in db.ingredients if i in demand):
        u = rng.random()
        if u < cfg["zero_probability"]:
            inventory[ing] = 0
        elif u < cfg["zero_probability"] + cfg["shortage_probability"] and biggest[ing] > 1:
            inventory[ing] = int(rng.integers(1, biggest[ing]))
        else:
            spare = demand[ing] - biggest[ing]
            inventory[ing] = biggest[ing] + int(rng.uniform(e_lo, e_hi) * spare)
    scores = {g: {d: dish_value(db.ratings[g][d], db.dishes[d].n_ingredients) for d in picked}
              for g in guests}
    personas = {g: dict(db.characters[g]) for g in guests} if setting == "menu-semantic" else {}
    return MenuInstance(setting, inventory, {d: dict(db.dishes[d].recipe) for d in picked},
                        scores, personas=personas)


def menu_features(inst: MenuInstance, cfg: Mapping[str, Any]) -> dict[str, float] | None:
    """Selection features, or None when a hard principle of A.1.4 fails."""
    nonzero = [i for i, v in inst.ingredients.items() if v > 0]
    if len(nonzero) < cfg["min_nonzero_ingredients"]:
        return None
    possible = [d for d in inst.dishes if check_menu(inst, [d]).valid]
    if len(possible) < cfg["min_possible_dishes"] or \
            len(possible) < cfg["min_possible_fraction"] * len(inst.dishes):
        return None
    best = optimum(inst)
    if len(best.decision) < cfg["min_best_menu"]:
        return None
    use = check_menu(inst, list(best.decision)).usage
    util = float(np.mean([min(1.0, use[i]["need"] / inst.ingredients[i]) if i in use else 0.0
                          for i in nonzero]))
    return {"utilization": util, "small_ingredient_list": -float(len(inst.ingredients)),
            "possible_dishes": len(possible) / len(inst.dishes),
            "few_best_dishes": -len(best.decision) / len(inst.dishes),
            "max_reward": best.reward}


def task_candidate(sub: SubDomain, rng: np.random.Generator, cfg: Mapping[str, Any]
                   ) -> TaskInstance:
    """One random task-allocation instance of a sub-domain (no observation spec yet)."""
    templates = [sub.tasks[i] for i in sorted(rng.choice(len(sub.tasks), cfg["tasks"],
                                                         replace=False))]
    personas = [sub.personas[i] for i in rng.choice(len(sub.personas), cfg["agents"],
                                                    replace=False)]
    agents = tuple(f"agent_{i}" for i in range(cfg["agents"]))
    reqs: dict[str, dict[str, int | float]] = {}
    for t in templates:
        row: dict[str, int | float] = {}
        for res, (lo, hi) in t.requirements.items():
            val = rng.uniform(lo, hi)
            row[res] = round(val) if res in sub.public_resources else round(float(val), 1)
        reqs[t.name] = row
    eff = {a: {t.name: round(float(np.clip(rng.normal(p.efficiency_mean[t.skill],
                                                      p.efficiency_sd), 0.05, 1.0)), 2)
               for t in templates} for a, p in zip(agents, personas, strict=True)}
    private = {a: {r: round(float(rng.uniform(lo, hi)), 1)
                   for r, (lo, hi) in p.private_resources.items()}
               for a, p in zip(agents, personas, strict=True)}
    f_lo, f_hi = cfg["public_fraction"]
    public: dict[str, int | float] = {}
    for res in sub.public_resources:
        demand = sum(row.get(res, 0) for row in reqs.values())
        if demand > 0:
            public[res] = max(1, round(rng.uniform(f_lo, f_hi) * demand))
    extra = {"domain": sub.key, "domain_title": sub.title,
             "personas": {a: {"name": p.name, "role": p.role, "description": p.description}
                          for a, p in zip(agents, personas, strict=True)},
             "task_skills": {t.name: t.skill for t in templates}}
    return TaskInstance(agents, agents[-1], tuple(reqs), eff, private, public, reqs, extra=extra)


def task_features(inst: TaskInstance, cfg: Mapping[str, Any]) -> dict[str, float] | None:
    """Selection features (p_done, U_res, R_max), or None when fewer than 3 tasks fit."""
    best = optimum(inst)
    assert isinstance(best.decision, dict)
    if len(best.decision) < cfg["min_done"]:
        return None
    usage = check_assignment(inst, best.decision).usage
    ratios = []
    for a in inst.agents:
        for r, cap in inst.private_resources.get(a, {}).items():
            if cap > 0:
                ratios.append(usage.get(f"{a}/{r}", {"need": 0.0})["need"] / cap)
    ratios += [usage.get(p, {"need": 0.0})["need"] / cap
               for p, cap in inst.public_resources.items() if cap > 0]
    n = len(inst.tasks)
    return {"p_done": len(best.decision) / n, "u_res": float(np.mean(ratios)),
            "r_max": best.reward / n, "max_reward": best.reward}


def _normalized_scores(feats: Sequence[Mapping[str, float]], weights: Mapping[str, float]
                       ) -> list[float]:
    scores = [0.0] * len(feats)
    for name, w in weights.items():
        vals = np.array([f[name] for f in feats], dtype=float)
        span = vals.max() - vals.min() if len(vals) else 0.0
        norm = (vals - vals.min()) / span if span > 0 else np.zeros_like(vals)
        for i, v in enumerate(norm):
            scores[i] += w * float(v)
    return scores


def select_menu_instances(setting: str, rng: np.random.Generator, *,
                          candidates: int | None = None, keep: int | None = None,
                          data_dir: Path = DATA_DIR, budget: SearchBudget | None = None
                          ) -> list[MenuInstance]:
    """Generate, filter and rank menu candidates; return the kept instances with ids.

    ``budget`` stops drawing candidates when its time is spent (and records how many were
    drawn); selection then ranks the candidates drawn so far.
    """
    if setting not in MENU_SETTINGS:
        raise ValueError(f"not a menu setting: {setting!r}")
    cfg = generator_config(data_dir)["menu"]
    db = load_menu_database(data_dir)
    budget = budget or SearchBudget()
    pool: list[Candidate] = []
    n_candidates = candidates or cfg["candidates"]
    budget.plan(n_candidates)
    budget.start()
    for _ in range(n_candidates):
        if not budget.allows():
            break
        budget.drew()
        inst = menu_candidate(db, setting, rng, cfg)
        feats = menu_features(inst, cfg)
        if feats is not None:
            pool.append(Candidate(inst, feats))
    scores = _normalized_scores([c.features for c in pool], cfg["weights"])
    order = sorted(range(len(pool)), key=lambda i: (-scores[i], i))[:keep or cfg["keep"]]
    out = []
    for n, i in enumerate(order):
        cand = pool[i].instance
        assert isinstance(cand, MenuInstance)
        cand = replace(cand, id=f"{setting}/{n:02d}")
        out.append(replace(cand, observations=sample_observation_spec(cand, rng, db)))
    return out


def select_task_instances(rng: np.random.Generator, *, candidates: int | None = None,
                          keep: int | None = None, data_dir: Path = DATA_DIR,
                          budget: SearchBudget | None = None) -> list[TaskInstance]:
    """Per sub-domain: generate, filter and rank candidates; return the kept instances.

    ``budget``'s time is split evenly over the sub-domains (each stops at its share).
    """
    cfg = generator_config(data_dir)["tasks"]
    tdb = load_teamwork_database(data_dir)
    budget = budget or SearchBudget()
    out: list[TaskInstance] = []
    n_candidates = candidates or cfg["candidates"]
    subs = list(tdb.subdomains.values())
    budget.plan(n_candidates * len(subs))
    budget.start()
    for k, sub in enumerate(subs):
        pool: list[Candidate] = []
        for _ in range(n_candidates):
            if not budget.allows((k + 1) / len(subs)):
                break
            budget.drew()
            inst = task_candidate(sub, rng, cfg)
            feats = task_features(inst, cfg)
            if feats is not None:
                pool.append(Candidate(inst, feats))
        scores = _normalized_scores([c.features for c in pool], cfg["weights"])
        for i in sorted(range(len(pool)), key=lambda i: (-scores[i], i))[:keep or cfg["keep"]]:
            chosen = pool[i].instance
            assert isinstance(chosen, TaskInstance)
            chosen = replace(chosen, id=f"{TASK_SETTING}/{len(out):02d}")
            spec = sample_observation_spec(chosen, rng,
                                           concentration=cfg["fragment_concentration"])
            out.append(replace(chosen, observations=spec))
    return out


def generate_setting(setting: str, rng: np.random.Generator, **kw: Any) -> list[Instance]:
    """The selected instances of one setting."""
    if setting == TASK_SETTING:
        return list(select_task_instances(rng, **kw))
    return list(select_menu_instances(setting, rng, **kw))


def default_seed(setting: str, data_dir: Path = DATA_DIR) -> int:
    """The seed the shipped instances of ``setting`` were generated with."""
    cfg = generator_config(data_dir)
    return int(cfg["tasks"]["seed"] if setting == TASK_SETTING else cfg["menu"]["seeds"][setting])


def write_setting(setting: str, out_dir: Path, seed: int | None = None, **kw: Any) -> list[Path]:
    """Generate a setting with ``seed`` (default: the shipped one) into ``out_dir/<setting>/``.

    Keyword arguments go to the selection (``candidates``, ``keep``, ``budget``).
    """
    rng = np.random.default_rng(default_seed(setting) if seed is None else seed)
    target = out_dir / setting
    target.mkdir(parents=True, exist_ok=True)
    paths = []
    for inst in generate_setting(setting, rng, **kw):
        path = target / f"{inst.id.rsplit('/', 1)[1]}.json"
        dump_instance(inst, path)
        paths.append(path)
    return paths
