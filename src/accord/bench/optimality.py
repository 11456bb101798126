"""The gap to the optimum, per domain, and the value left on the table: how far an outcome
lies from what accord's exact solvers know is attainable.

**Value left on the table** (``value_left``, every domain) has one definition, the field's
usual one (Raiffa's "leaving money on the table", Lax and Sebenius' "leaving joint gains on
the table", the inefficiency measures of experimental negotiation): *the largest increase of
the parties' summed utility that moving to another outcome would have brought without
making any party worse off* -- ``max(sum(v) - sum(u))`` over the outcomes ``v`` with
``v >= u`` for every party. It is 0 exactly on the Pareto frontier (a frontier deal that
favours one side is a distributive choice, not value left), and a no-deal, placed at the
disagreement point (every BATNA), leaves the whole gain the best individually rational deal
would have brought. It is measured in the domain's own unit (utility, payoff, points; a
deliberation team's single reward: the ILP optimum minus the reward). The best such
outcome is always on the frontier, so only the frontier is searched.

The **distance to the Pareto frontier** is the Euclidean distance of the outcome's utility
vector to the nearest Pareto-optimal outcome (seed 000's L2); the **distance to the Nash
point** the Euclidean distance to the Nash bargaining solution over the disagreement point
(BATNAs, or a task exchange's initial allocation; in a game, to the nearest equilibrium
payoff). Both are 0 at their target.

One pure function per domain, all behind one interface (:data:`GAP_FUNCTIONS`: domain ->
``(scenario, outcome) -> Gaps``), so ``accord results -m value_left,gap_...``, the
leaderboard's columns, the reviewer's deal audit and the person's debrief
(:func:`plane_gaps`, the same primitives on the person's utility plane) read the same numbers:

============== ======================= ====================================================
domain         scenario, outcome       gaps (0 = optimal; ``None`` = not defined here)
============== ======================= ====================================================
bargaining     core Scenario,          ``value_left``; ``gap_pareto``: distance to the
               party -> utility, or    Pareto frontier (headline); ``gap_nash``: to the
               None for no deal (the   Nash bargaining point (BATNA-relative, as ``accord
               disagreement point:     analyze``); ``welfare_left``: the best individually
               every BATNA)            rational welfare minus the outcome's welfare
task exchange  task-exchange Scenario, ``value_left``, ``gap_pareto`` (seed 000's L2 to
               role -> mask, or None   the Pareto front of feasible allocations),
               (the initial            ``gap_nash`` (to the Nash point over the initial
               allocation)             allocation), ``welfare_left``
games          game spec, payoffs      ``value_left``; ``gap_pure_ne``: distance of the
               (player order)          payoff vector to the nearest pure equilibrium payoff
                                       (subgame-perfect for sequential games);
                                       ``gap_mixed_ne``: to the nearest equilibrium payoff,
                                       mixed included (two-player normal form);
                                       ``gap_po_ne``: to the nearest Pareto-optimal
                                       equilibrium payoff (headline)
deal or no     (counts, Alice's and    ``value_left``; ``gap_best``: points of the best
deal           Bob's values), Alice's  allocation (envy free, Pareto optimal, largest
               share or None           total: seed 003's "Best" row) minus the outcome's
                                       total (headline; None when no envy-free allocation
                                       exists)
deliberation   Instance, decision      ``value_left`` = ``gap_optimum``: the ILP optimum
                                       minus the reward (headline); ``optimum_ratio``:
                                       reward / ILP optimum
============== ======================= ====================================================

:func:`episode_gaps` reads scenario and outcome from a stored episode (the scenario by
name from the catalogs, the outcome from the record) and calls the same functions.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from accord.bench.frontier import (
    PlaneGaps,
    dond_points,
    joint_gain_left,
    pareto_front,
    plane_gaps,
)
from accord.bench.frontier import clean as _clean
from accord.bench.frontier import l2 as _l2
from accord.bench.store import EpisodeRow

#: every gap key, in the order columns show them
GAP_KEYS: tuple[str, ...] = ("value_left", "gap_pareto", "gap_nash", "welfare_left",
                             "gap_pure_ne", "gap_mixed_ne", "gap_po_ne", "gap_best",
                             "gap_optimum", "optimum_ratio")
#: what each gap measures, in words (for help texts and the web app)
GAP_TEXT: dict[str, str] = {
    "value_left": "the largest joint gain an outcome at least as good for every party "
                  "would have added",
    "gap_pareto": "distance of the utilities to the Pareto frontier",
    "gap_nash": "distance of the utilities to the Nash bargaining point",
    "welfare_left": "best individually rational welfare minus the outcome's welfare",
    "gap_pure_ne": "distance of the payoffs to the nearest pure equilibrium payoff",
    "gap_mixed_ne": "distance of the payoffs to the nearest equilibrium payoff, mixed "
                    "included",
    "gap_po_ne": "distance of the payoffs to the nearest Pareto-optimal equilibrium payoff",
    "gap_best": "points of the best envy-free Pareto-optimal allocation minus the outcome's",
    "gap_optimum": "the ILP optimum's reward minus the decision's reward",
    "optimum_ratio": "the decision's reward as a share of the ILP optimum",
}


@dataclass(frozen=True)
class Gaps:
    """The gaps of one outcome: ``values`` (gap key -> number or None), the ``headline`` key
    (the domain's gap to the optimum, e.g. the distance to the Pareto frontier) and the
    ``unit`` of both. ``values["value_left"]`` is the value left on the table (see the
    module docstring: one definition for every domain)."""

    domain: str
    values: dict[str, float | None] = field(default_factory=dict)
    headline: str = "gap_pareto"
    unit: str = "utility"

    @property
    def value_left(self) -> float | None:
        """The value left on the table (None: not defined for this outcome)."""
        return self.values.get("value_left")

    @property
    def gap(self) -> float | None:
        """The domain's headline gap to the optimum (None: not defined here)."""
        return self.values.get(self.headline)

    def sentence(self) -> str:
        """The value left on the table and the headline gap, for a person, rounded."""
        v, g = self.value_left, self.gap
        if v is None and g is None:
            return "The optimum is not defined for this outcome."
        said: list[str] = []
        if v is not None:
            said.append("Nothing was left on the table: no outcome was better for one party "
                        "without being worse for another." if v <= 1e-9 else
                        f"Value left on the table: {v:.3g} {self.unit} "
                        f"({GAP_TEXT['value_left']}).")
        if g is not None and self.headline != "value_left" and \
                not (self.headline == "gap_optimum" and v is not None):
            if g < -1e-9:  # e.g. DoND: more points than the best envy-free allocation
                said.append(f"The outcome exceeds the optimum by {-g:.3g} {self.unit} "
                            f"({GAP_TEXT[self.headline]}), at the price of its other "
                            "criteria.")
            elif g > 1e-9:
                said.append(f"Gap to the optimum: {g:.3g} ({GAP_TEXT[self.headline]}).")
        return " ".join(said)


class _Targets(NamedTuple):
    """What a scenario's gaps are measured against (solved once per scenario object)."""

    frontier: Any
    nash: Any
    best_welfare: float | None


_SOLVED: dict[int, tuple[Any, _Targets]] = {}


def _solved(scenario: Any, solve: Callable[[Any], _Targets]) -> _Targets:
    """The targets of ``scenario``, remembered by identity (the scenario is kept with them,
    so its id is not reused while remembered): 10^5 stored episodes share a few."""
    hit = _SOLVED.get(id(scenario))
    if hit is not None and hit[0] is scenario:
        return hit[1]
    if len(_SOLVED) >= 64:
        _SOLVED.clear()
    targets = solve(scenario)
    _SOLVED[id(scenario)] = (scenario, targets)
    return targets


# --- bargaining -------------------------------------------------------------------------
def _bargaining_targets(scenario: Any) -> _Targets:
    from accord.core.pareto import canonical_utilities
    from accord.core.solutions import max_welfare_point, nash_point

    # the same rounding, frontier and Nash point as the person's debrief (plane_gaps)
    u = canonical_utilities(scenario.utility_matrix)
    batna = [float(p.batna) for p in scenario.parties]
    n = nash_point(u, batna)
    best = max_welfare_point(u, batna)
    return _Targets(pareto_front(u), None if n is None else u[n:n + 1],
                    None if best is None else float(u[best].sum()))


def bargaining_gaps(scenario: Any, utilities: Mapping[str, float] | None) -> Gaps:
    """Gaps of a bargaining outcome (``None``: no deal, every party at its BATNA)."""
    t = _solved(scenario, _bargaining_targets)
    batna = [float(p.batna) for p in scenario.parties]
    vec = batna if utilities is None else [float(utilities[p]) for p in scenario.party_names]
    return Gaps("bargaining", {
        "value_left": joint_gain_left(t.frontier, vec)[0],
        "gap_pareto": _clean(_l2(vec, t.frontier)),
        "gap_nash": None if t.nash is None else _clean(_l2(vec, t.nash)),
        "welfare_left": None if t.best_welfare is None else _clean(t.best_welfare - sum(vec)),
    }, "gap_pareto", "utility")


# --- task exchange ----------------------------------------------------------------------
def _task_exchange_targets(scenario: Any) -> _Targets:
    from accord.core.solutions import max_welfare_point, nash_point
    from accord.domains.task_exchange.metrics import scenario_front

    points = np.asarray([[float(a), float(b)] for _, (a, b) in scenario.outcomes()])
    d = [float(x) for x in scenario.point(scenario.initial)]
    n = nash_point(points, d)
    best = max_welfare_point(points, d)
    return _Targets(np.asarray([[float(a), float(b)] for a, b in scenario_front(scenario)]),
                    None if n is None else points[n:n + 1],
                    None if best is None else float(points[best].sum()))


def task_exchange_gaps(scenario: Any, allocation: Mapping[str, int] | None) -> Gaps:
    """Gaps of a task-exchange allocation (``None``: the initial allocation stands)."""
    t = _solved(scenario, _task_exchange_targets)
    alloc = scenario.initial if allocation is None else allocation
    vec = [float(x) for x in scenario.point(alloc)]
    return Gaps("task-exchange", {
        "value_left": joint_gain_left(t.frontier, vec)[0],
        "gap_pareto": _clean(_l2(vec, t.frontier)),
        "gap_nash": None if t.nash is None else _clean(_l2(vec, t.nash)),
        "welfare_left": None if t.best_welfare is None else _clean(t.best_welfare - sum(vec)),
    }, "gap_pareto", "utility")


# --- games ------------------------------------------------------------------------------
@lru_cache(maxsize=256)
def _equilibrium_payoffs(spec_json: str) -> dict[str, list[list[float]]]:
    """Pure, all (mixed included) and Pareto-optimal equilibrium payoff vectors of a game
    given by its canonical JSON (solved once per game)."""
    from accord.domains.games.analysis import solve_game
    from accord.domains.games.load import parse_game
    from accord.domains.games.model import NormalFormGame
    from accord.solvers.budget import TimeBudget

    game = parse_game(json.loads(spec_json), source="record spec")
    sol = solve_game(game, mixed=True, budget=TimeBudget(5.0))
    if isinstance(game, NormalFormGame):
        def pay(names: Sequence[str]) -> list[float]:
            return [float(x) for x in game.payoff(game.profile_index(list(names)))]

        pure = [pay(p) for p in sol.pure_nash]
        pone = [pay(p) for p in sol.pareto_optimal_nash]
        mixed: list[list[float]] = []
        if sol.mixed_nash is not None:
            a, b = game.matrices()
            for x, y in sol.mixed_nash:
                px = np.asarray([float(x[act]) for act in game.actions[0]])
                py = np.asarray([float(y[act]) for act in game.actions[1]])
                mixed.append([float(px @ np.asarray(a, dtype=float) @ py),
                              float(px @ np.asarray(b, dtype=float) @ py)])
        from itertools import product

        outcomes = [[float(x) for x in game.payoff(p)]
                    for p in product(*(range(len(a)) for a in game.actions))]
        return {"pure": pure, "mixed": mixed + pure if sol.mixed_nash is not None else [],
                "pone": pone, "front": pareto_front(outcomes).tolist()}
    from accord.solvers.game_tree import leaves

    payoff = {tuple(p): [float(x) for x in lf.payoff] for p, lf in leaves(game.tree)}
    spe = [[float(x) for x in e.payoff] for e in sol.spe or []]
    pone = [payoff[tuple(p)] for p in sol.pareto_optimal_nash]
    return {"pure": spe, "mixed": [], "pone": pone,
            "front": pareto_front(list(payoff.values())).tolist()}


def games_gaps(game: Mapping[str, Any], payoffs: Sequence[float] | None) -> Gaps:
    """Gaps of a game's payoff vector (``game``: the game's spec, as a game file or an
    episode record holds it; solved once per game)."""
    eq = _equilibrium_payoffs(json.dumps(game, sort_keys=True, default=str))
    if payoffs is None:
        return Gaps("games", dict.fromkeys(("value_left", "gap_pure_ne", "gap_mixed_ne",
                                            "gap_po_ne")), "gap_po_ne", "payoff")
    vec = [float(x) for x in payoffs]
    return Gaps("games", {"value_left": joint_gain_left(eq["front"], vec)[0],
                          "gap_pure_ne": _clean(_l2(vec, eq["pure"])),
                          "gap_mixed_ne": _clean(_l2(vec, eq["mixed"])),
                          "gap_po_ne": _clean(_l2(vec, eq["pone"]))}, "gap_po_ne", "payoff")


# --- deal or no deal --------------------------------------------------------------------
class DondValues(NamedTuple):
    """A Deal-or-No-Deal datapoint: item counts and both sides' values per item."""

    counts: tuple[int, ...]
    alice: tuple[int, ...]
    bob: tuple[int, ...]


@lru_cache(maxsize=256)
def _dond_front(scenario: DondValues) -> np.ndarray:
    return pareto_front(dond_points(scenario.counts, scenario.alice, scenario.bob))


def dond_gaps(scenario: DondValues, alice_share: Sequence[int] | None) -> Gaps:
    """The value left on the table and the best envy-free Pareto-optimal total minus the
    outcome's (no deal: 0 points each)."""
    from accord.domains.deal_or_no_deal.rules import best, scores

    b = best(scenario.counts, scenario.alice, scenario.bob)
    vec = [0.0, 0.0] if alice_share is None else [float(x) for x in scores(
        scenario.counts, scenario.alice, scenario.bob, tuple(alice_share))]
    total = sum(vec)
    return Gaps("deal-or-no-deal", {
        "value_left": joint_gain_left(_dond_front(scenario), vec)[0],
        "gap_best": None if b is None else _clean(float(b.total) - total)},
        "gap_best", "points")


# --- deliberation -----------------------------------------------------------------------
def deliberation_reward_gaps(reward: float | None, optimum: float | None) -> Gaps:
    """The deliberation gaps from a reward and the ILP optimum (both known)."""
    if reward is None or optimum is None:
        return Gaps("deliberation", dict.fromkeys(("value_left", "gap_optimum",
                                                   "optimum_ratio")), "gap_optimum", "reward")
    ratio = None if optimum == 0 else float(reward) / float(optimum)
    # one team reward: the largest gain with nobody worse off is the optimum's surplus
    left = _clean(max(0.0, float(optimum) - float(reward)))
    return Gaps("deliberation", {"value_left": left,
                                 "gap_optimum": _clean(float(optimum) - float(reward)),
                                 "optimum_ratio": ratio}, "gap_optimum", "reward")


def deliberation_gaps(instance: Any, decision: Any) -> Gaps:
    """The reward of a decision against the instance's ILP optimum (HiGHS, exact)."""
    from accord.domains.deliberation.ilp import optimum
    from accord.domains.deliberation.rewards import reward

    return deliberation_reward_gaps(reward(instance, decision), optimum(instance).reward)


#: domain -> the pure gap function of (scenario, outcome)
GAP_FUNCTIONS: dict[str, Callable[[Any, Any], Gaps]] = {
    "bargaining": bargaining_gaps, "task-exchange": task_exchange_gaps,
    "games": games_gaps, "deal-or-no-deal": dond_gaps, "deliberation": deliberation_gaps}


def value_left(domain: str, scenario: Any, outcome: Any) -> Gaps:
    """The gaps of ``outcome`` in ``scenario`` (``ValueError`` for a domain without one)."""
    fn = GAP_FUNCTIONS.get(_canonical(domain))
    if fn is None:
        raise ValueError(f"no optimum is known for domain {domain!r}; known: "
                         f"{', '.join(GAP_FUNCTIONS)}")
    return fn(scenario, outcome)


def _canonical(domain: str) -> str:
    return {"task_exchange": "task-exchange", "deal_or_no_deal": "deal-or-no-deal",
            "dond": "deal-or-no-deal"}.get(domain, domain)


# --- stored episodes --------------------------------------------------------------------
@lru_cache(maxsize=64)
def _bargaining_scenario(name: str, max_outcomes: int | None) -> Any:
    """The stored episode's scenario, or None when it no longer loads. A failure is
    remembered too (lru_cache keeps no exceptions): a store of 10^5 episodes of a
    scenario that is gone would otherwise look it up, with its close-match suggestion,
    once per episode."""
    from accord.domains.bargaining.catalog import resolve_scenario

    try:
        return resolve_scenario(name, max_outcomes) if max_outcomes \
            else resolve_scenario(name)
    except (KeyError, ValueError, TypeError, IndexError, OSError):
        return None


def _record(row: EpisodeRow) -> Mapping[str, Any]:
    return (row.summary or {}).get("record") or {}


def _bargaining_row(row: EpisodeRow) -> Gaps | None:
    met = row.metrics or {}
    cap = (row.spec.get("params") or {}).get("max_outcomes")
    sc = _bargaining_scenario(str(row.spec.get("scenario")), cap)
    if sc is None:
        return None  # a scenario no longer loadable
    if row.outcome == "agreement":
        utils: dict[str, float] = {}
        for p in sc.party_names:
            v = met.get(f"u_{p}")
            if not isinstance(v, (int, float)):
                return None
            utils[p] = float(v)
        return bargaining_gaps(sc, utils)
    return bargaining_gaps(sc, None)


def _task_exchange_row(row: EpisodeRow) -> Gaps | None:
    from accord.domains.task_exchange.load import get_scenario
    from accord.domains.task_exchange.metrics import record_allocation

    sc = get_scenario(str(row.spec.get("scenario")))
    rec = _record(row)
    if not rec:
        return None
    return task_exchange_gaps(sc, record_allocation(sc, rec))


def _games_row(row: EpisodeRow) -> Gaps | None:
    rec = _record(row)
    if "spec" not in rec or not rec.get("completed"):
        return None
    met = row.metrics or {}
    pays: list[Any] = []
    while f"payoff_{len(pays) + 1}" in met:
        pays.append(met[f"payoff_{len(pays) + 1}"])
    if not pays or any(p is None for p in pays):
        return None
    return games_gaps(rec["spec"], pays)


def _dond_row(row: EpisodeRow) -> Gaps | None:
    rec = _record(row)
    if "counts" not in rec or "values" not in rec:
        return None
    sc = DondValues(tuple(rec["counts"]), tuple(rec["values"]["alice"]),
                    tuple(rec["values"]["bob"]))
    shares = rec.get("shares")
    items = rec.get("items")
    share = None
    if shares:
        own = shares["alice"]
        share = [int(own[i]) for i in items] if items and isinstance(own, Mapping) \
            else [int(x) for x in own]
    return dond_gaps(sc, share)


def _deliberation_row(row: EpisodeRow) -> Gaps | None:
    met = row.metrics or {}
    r, opt = met.get("reward"), met.get("max_reward")
    # the reward and the ILP optimum were computed by the same functions when the episode
    # finished (accord.domains.deliberation.metrics): re-solving the ILP per row is waste
    if not isinstance(r, (int, float)) or not isinstance(opt, (int, float)):
        return None
    return deliberation_reward_gaps(float(r), float(opt))


_ROW_READERS: dict[str, Callable[[EpisodeRow], Gaps | None]] = {
    "bargaining": _bargaining_row, "task-exchange": _task_exchange_row,
    "games": _games_row, "deal-or-no-deal": _dond_row, "deliberation": _deliberation_row}

_last: list[Any] = [None, None]


def episode_gaps(row: EpisodeRow) -> Gaps | None:
    """The gaps of one stored, finished episode (None: unfinished, an error, a domain
    without a known optimum, or a record without the outcome). Needs the episode's
    summary (its record). The last answer is remembered, so asking for several gap keys
    of one row solves once."""
    if _last[0] is row:
        return _last[1]
    out: Gaps | None = None
    if row.status == "done" and row.outcome != "error":
        reader = _ROW_READERS.get(_canonical(str(row.spec.get("domain"))))
        if reader is not None:
            try:
                out = reader(row)
            except (KeyError, ValueError, TypeError, IndexError):
                out = None  # a scenario no longer loadable, a record of an older format
    _last[0], _last[1] = row, out
    return out


__all__ = [
    "GAP_FUNCTIONS",
    "GAP_KEYS",
    "GAP_TEXT",
    "DondValues",
    "Gaps",
    "PlaneGaps",
    "bargaining_gaps",
    "deliberation_gaps",
    "deliberation_reward_gaps",
    "dond_gaps",
    "dond_points",
    "episode_gaps",
    "games_gaps",
    "joint_gain_left",
    "pareto_front",
    "plane_gaps",
    "task_exchange_gaps",
    "value_left",
]

