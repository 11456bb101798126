"""The debrief a person gets after an episode: what they got, what was possible.

:func:`debrief` is pure: from the episode's spec, its result and the person's role it
builds JSON-ready data that both front ends render -- the terminal in words and numbers
(:func:`accord.play.terminal.print_debrief`), the browser with a small SVG of the utility
plane (:mod:`accord.play.web.plane`).

* the **utility plane** (:class:`Plane`): every outcome as (the person's value, the other
  side's value), the disagreement point (BATNAs; the original tasks; 0 points), and where
  the episode ended. Now that it is over, the other side's values are revealed;
* :func:`gap_to_optimum` -- the Pareto frontier, the Nash point (the Nash bargaining
  solution over BATNAs; in a game, its pure Nash equilibria), the distances to both and
  the **value left on the table**: the most the two could have gained together by moving
  to an outcome that is better for one and worse for neither. All of it comes from
  :func:`accord.bench.frontier.plane_gaps`, the same definitions ``accord results -m
  value_left,gap_pareto,gap_nash``, the leaderboard and the reviewer's deal audit use;
* **flags** the episode raised (a walk, stagnation, a bound hit, an agreement below a
  BATNA, sycophancy, leaks, invalid moves).

A bargaining episode with three or more parties has no single plane: its debrief
(:func:`accord.play.debrief_multi.multi_debrief`) is a table of every party against its
BATNA, a parallel-coordinates chart and one plane per other party, with the same value
left on the table.

Deliberation is cooperative (one team reward, no second axis): its debrief is the team's
reward against the best possible (the ILP optimum) and the optimal decision.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import Any

import numpy as np

from accord.agents.human.brief import num
from accord.bench.frontier import dond_points, plane_gaps
from accord.bench.optimality import deliberation_reward_gaps
from accord.domains.base import EpisodeSpec, get_domain
from accord.protocols.engine import EpisodeResult

MAX_POINTS = 3000
"""Outcomes kept for the picture at most (a regular subsample beyond; the frontier and
the solution points are computed on all of them)."""


@dataclass(frozen=True)
class Plane:
    """Every outcome as ``(the person's value, the other side's value)``.

    ``disagreement`` is what each gets without a deal, ``outcome`` where the episode
    ended (``None`` when it failed), ``equilibria`` the outcomes of a game's pure Nash
    equilibria (then the "Nash point" is those, not the bargaining solution); ``unit``
    names the values (``utility``, ``points``, ``payoff``).
    """

    you: str
    other: str
    points: np.ndarray
    disagreement: tuple[float, float]
    outcome: tuple[float, float] | None
    agreed: bool
    unit: str = "utility"
    equilibria: Sequence[tuple[float, float]] = field(default_factory=tuple)


def gap_to_optimum(plane: Plane) -> dict[str, Any]:
    """Frontier, Nash point(s), distances and value left on the table for ``plane``
    (:func:`accord.bench.frontier.plane_gaps`: ``value_left`` is ``max(u_you +
    u_other)`` over outcomes at least as good for both as where the episode ended, minus
    the ended outcome's sum; 0 on the Pareto frontier)."""
    g = plane_gaps(plane.points, plane.outcome, plane.disagreement, plane.equilibria)
    return {"frontier": g.frontier, "nash": g.nash, "l2_to_pareto": g.gap_pareto,
            "l2_to_nash": g.gap_nash, "value_left": g.value_left, "better": g.better}


# -- planes per domain -------------------------------------------------------------------

def _other(roles: Sequence[str], role: str) -> str | None:
    others = [r for r in roles if r != role]
    return others[0] if len(others) == 1 else None


def _bargaining(spec: EpisodeSpec, result: EpisodeResult, role: str) -> Plane | None:
    from accord.domains.bargaining import resolve_scenario

    sc = resolve_scenario(spec.scenario)
    other = _other(sc.party_names, role)
    if other is None:
        return None
    order = [sc.party_names.index(role), sc.party_names.index(other)]
    utils = result.record.get("utilities") or {}
    batna = {p.name: p.batna for p in sc.parties}
    at = (utils.get(role), utils.get(other))
    return Plane(role, other, np.asarray(sc.utility_matrix)[:, order],
                 (float(batna[role]), float(batna[other])),
                 None if None in at else (float(at[0]), float(at[1])),  # type: ignore[arg-type]
                 result.status == "agreement")


def _dond(spec: EpisodeSpec, result: EpisodeResult, role: str) -> Plane | None:
    rec = result.record
    values = rec.get("values") or {}
    other = _other(list(values), role)
    if other is None or not rec.get("counts"):
        return None
    counts = [int(c) for c in rec["counts"]]
    scores = rec.get("scores") or {}
    return Plane(role, other, dond_points(counts, values[role], values[other]), (0.0, 0.0),
                 (float(scores.get(role, 0)), float(scores.get(other, 0))),
                 bool(rec.get("agreement")), "points")


def _games(spec: EpisodeSpec, result: EpisodeResult, role: str) -> Plane | None:
    from accord.domains.games.analysis import solve_game
    from accord.domains.games.domain import _game, _split_params
    from accord.domains.games.model import NormalFormGame
    from accord.solvers.game_tree import leaves

    game = _game(spec, _split_params(spec)[1])
    other = _other(game.players, role)
    if other is None:
        return None
    i, j = game.player_index(role), game.player_index(other)
    if isinstance(game, NormalFormGame):
        vecs = [game.payoff(p) for p in product(*(range(len(a)) for a in game.actions))]
    else:
        vecs = [leaf.payoff for _, leaf in leaves(game.tree)]
    pts = np.asarray([(float(v[i]), float(v[j])) for v in vecs], dtype=np.float64)
    sol = solve_game(game, mixed=False)
    eqs = [game.payoff(p) for p in sol.pure_nash]
    pay = result.record.get("payoffs") or {}
    at = (pay.get(role), pay.get(other))
    low = (float(pts[:, 0].min()), float(pts[:, 1].min()))
    return Plane(role, other, pts, low,
                 None if None in at else (float(at[0]), float(at[1])),  # type: ignore[arg-type]
                 result.status in ("completed", "agreement"), "payoff",
                 tuple((float(e[i]), float(e[j])) for e in eqs))


def _task_exchange(spec: EpisodeSpec, result: EpisodeResult, role: str) -> Plane | None:
    from accord.domains.task_exchange.load import get_scenario

    sc = get_scenario(spec.scenario)
    other = _other(sc.roles, role)
    if other is None:
        return None
    pts = [(float(sc.utility(role, alloc[role])), float(sc.utility(other, alloc[other])))
           for alloc, _ in sc.outcomes()]
    init = sc.initial
    utils = result.record.get("utilities") or {}
    at = (utils.get(role), utils.get(other))
    return Plane(role, other, np.asarray(pts, dtype=np.float64),
                 (float(sc.utility(role, init[role])), float(sc.utility(other, init[other]))),
                 None if None in at else (float(at[0]), float(at[1])),  # type: ignore[arg-type]
                 result.status == "agreement")


PLANES = {"bargaining": _bargaining, "deal-or-no-deal": _dond, "games": _games,
          "task-exchange": _task_exchange}
"""The utility plane of a finished episode, per domain (two-party episodes only)."""


def plane_of(spec: EpisodeSpec, result: EpisodeResult, role: str) -> Plane | None:
    """The episode's utility plane from ``role``'s side, or ``None`` (no such picture)."""
    build = PLANES.get(spec.domain)
    return None if build is None else build(spec, result, role)


# -- flags -------------------------------------------------------------------------------

#: a flag of the record in words (``accord serve``'s deal audit says the same)
FLAG_WORDS = {
    "accepted_below_batna": "Accepted a deal worth less than their BATNA (sycophancy)",
    "sycophancy": "A party accepted a deal worth less than its BATNA (sycophancy)",
    "utility_leak": "Disclosed private values in public text (utility leak)",
}


def _raised(value: Any) -> bool:
    return any(bool(v) for v in value.values()) if isinstance(value, Mapping) else value is True


def flags_of(result: EpisodeResult, role: str) -> list[str]:
    """Sentences for every flag the episode raised (nothing when it raised none)."""
    out: list[str] = []
    if result.reason in ("walk", "stagnation", "bound_hit", "quit"):
        who = f" ({result.who})" if result.who else ""
        out.append({"walk": "A party walked away", "stagnation": "The talks stagnated",
                    "bound_hit": "A bound ended the episode (rounds, offers or time)",
                    "quit": "A person left the episode"}[result.reason] + who + ".")
    flags = result.flags or {}
    for name, val in flags.items():
        if name == "sycophancy" and _raised(flags.get("accepted_below_batna")):
            continue  # the same finding, already said with the parties' names
        words = FLAG_WORDS.get(name, name.replace("_", " ").capitalize())
        if isinstance(val, Mapping):
            hit = [str(k) for k, v in val.items() if v]
            if hit:
                out.append(f"{words}: {', '.join(hit)}.")
        elif val is True:
            out.append(f"{words}.")
    invalid = sum(1 for ev in result.trajectory.events
                  if ev.kind == "invalid" and ev.party == role)
    if invalid:
        out.append(f"{invalid} of your moves {'was' if invalid == 1 else 'were'} not "
                   "accepted by the protocol and asked again.")
    return out


# -- the debrief -------------------------------------------------------------------------

def _deliberation(spec: EpisodeSpec, result: EpisodeResult, role: str) -> dict[str, Any]:
    from accord.domains.deliberation.domain import resolve_instance
    from accord.domains.deliberation.ilp import optimum

    m = get_domain("deliberation").metrics(spec, result)
    best = optimum(resolve_instance(spec))
    decision = result.record.get("decision")
    # one team reward: the value left is the optimum's surplus, as accord results says
    gaps = deliberation_reward_gaps(m.get("reward"), m.get("max_reward"))
    left = gaps.value_left
    said = ["The team decided." if decision is not None else "The team reached no decision.",
            f"Team reward {num(m.get('reward'))} of a best possible {num(m.get('max_reward'))}"
            f" ({num(m.get('nr'), 1)}% of the best).",
            "" if left is None else f"Value left on the table: {num(left)} of team reward."
            if left > 1e-9 else "Nothing was left on the table: the decision is optimal.",
            "The decision was " + ("feasible." if m.get("valid") else "not feasible: it needs "
                                   "more than the team has, and earns nothing.")
            if decision is not None else ""]
    return {"domain": spec.domain, "role": role, "other": None, "plane": None,
            "sentences": [s for s in said if s],
            "rows": [["team reward", num(m.get("reward")), num(m.get("max_reward"))]],
            "columns": ["", "this episode", "best possible"],
            "decision": decision, "optimal": _jsonable(best.decision),
            "value_left": left, "flags": flags_of(result, role)}


def _jsonable(x: Any) -> Any:
    if isinstance(x, Mapping):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    return x


def debrief(spec: EpisodeSpec, result: EpisodeResult, role: str) -> dict[str, Any] | None:
    """The person's debrief of a finished episode (see the module docstring), or ``None``
    when the domain has none (an installed plug-in domain, a failed scenario)."""
    if spec.domain == "deliberation":
        return _deliberation(spec, result, role)
    plane = plane_of(spec, result, role)
    if plane is None:
        if spec.domain != "bargaining":
            return None
        # three or more parties: no single plane (see accord.play.debrief_multi)
        from accord.play.debrief_multi import multi_debrief

        return {**multi_debrief(spec, result, role), "flags": flags_of(result, role)}
    gap = gap_to_optimum(plane)
    unit = plane.unit
    you, other = plane.you, plane.other
    at = plane.outcome
    said: list[str] = []
    if at is None:
        said.append("The episode failed: there is no outcome to place.")
    else:
        ended = "You agreed" if plane.agreed and unit != "payoff" else \
            ("The game was played" if unit == "payoff" else "No deal")
        said.append(f"{ended}: your {unit} {num(at[0])}, {other}'s {num(at[1])} "
                    f"(now revealed).")
        if unit != "payoff":
            said.append(f"Without a deal you would have had {num(plane.disagreement[0])} "
                        f"and {other} {num(plane.disagreement[1])}.")
        left = gap["value_left"]
        if left is not None and left > 1e-9 and gap["better"] is not None:
            b = gap["better"]
            said.append(f"Value left on the table: {num(left)} in total. An outcome giving "
                        f"you {num(b[0])} and {other} {num(b[1])} was better for one of you "
                        "and worse for neither.")
        else:
            said.append("Nothing was left on the table: no outcome was better for one of "
                        "you without being worse for the other (on the Pareto frontier).")
        if gap["nash"]:
            what = "a Nash equilibrium" if plane.equilibria else "the Nash point"
            pts = "; ".join(f"you {num(p[0])}, {other} {num(p[1])}" for p in gap["nash"][:3])
            said.append(f"{what[0].upper() + what[1:]}"
                        + (" (of " + str(len(gap["nash"])) + ")" if len(gap["nash"]) > 1
                           else "") + f": {pts}; distance {num(gap['l2_to_nash'])}.")
        elif plane.equilibria == () and unit == "payoff":
            said.append("The game has no pure Nash equilibrium.")
    rows = [[f"your {unit}", num(at[0]) if at else "-"],
            [f"{other}'s {unit} (revealed)", num(at[1]) if at else "-"]]
    columns = ["", "this episode"]
    if unit != "payoff":  # a game has no disagreement point
        columns.append("without a deal")
        rows[0].append(num(plane.disagreement[0]))
        rows[1].append(num(plane.disagreement[1]))
    columns.append("Nash point" if unit != "payoff" else "Nash equilibrium")
    first = gap["nash"][0] if gap["nash"] else None
    rows[0].append(num(first[0]) if first else "-")
    rows[1].append(num(first[1]) if first else "-")
    step = max(1, len(plane.points) // MAX_POINTS)
    return {
        "domain": spec.domain, "role": you, "other": other, "unit": unit,
        "sentences": said, "columns": columns, "rows": rows,
        "plane": {"you": you, "other": other, "unit": unit,
                  "points": [[float(a), float(b)] for a, b in plane.points[::step]],
                  "frontier": gap["frontier"], "nash": gap["nash"],
                  "nash_label": "Nash equilibrium" if unit == "payoff" else "Nash point",
                  "disagreement": None if unit == "payoff" else list(plane.disagreement),
                  "outcome": None if at is None else list(at), "better": gap["better"]},
        "l2_to_pareto": gap["l2_to_pareto"], "l2_to_nash": gap["l2_to_nash"],
        "value_left": gap["value_left"], "flags": flags_of(result, you),
    }


__all__ = ["FLAG_WORDS", "MAX_POINTS", "PLANES", "Plane", "debrief", "flags_of", "gap_to_optimum",
           "plane_of"]
