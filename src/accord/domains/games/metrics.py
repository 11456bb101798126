"""Metrics for played games, as pure functions of episode records (seed 003, Tables 5-8).

Per episode (:func:`episode_metrics`), for a game played to its outcome (status
``completed``; a game is never an "agreement"):

- ``coordinated``: defined only for a game that poses a coordination problem, i.e. a
  normal-form game whose stage game has at least two *strict* pure Nash equilibria
  (battle of the sexes, stag hunt, wait-go: the games seed 003 Table 1 marks "coordination
  required"). It is true when the played profile is one of the game's pure Nash
  equilibria (the players landed on the same convention), false when they miscoordinated
  (e.g. opera/football). ``None`` for every other game: with at most one strict
  equilibrium (prisoner's dilemma, rock-paper-scissors, golden balls, whose three
  equilibria are all weak) there is nothing to coordinate on, and in a sequential game
  later movers see the earlier moves.
- ``nash``: for a normal-form game, the played profile is a pure Nash equilibrium; for an
  extensive-form game, the play followed a subgame-perfect equilibrium path (the seed
  scores sequential games against backward induction).
- ``pareto_optimal_nash``: ``nash`` and no other equilibrium (SPE for sequential games)
  gives everybody at least as much and somebody more (payoff dominance; the seed's
  "Pareto optimal Nash Equilibrium" column).
- ``nash_outcome`` (sequential only): the path is the outcome of *some* pure Nash
  equilibrium, credible or not.
- ``pareto_optimal``: no other outcome dominates the one reached.
- ``payoff_1 ...``, ``welfare``: payoffs by player position and their sum.
- ``workflow_correct`` (only with LLM workflow agents): the share of them whose derived
  strategy is right - for 4.4.1 the Nash profile it found is a pure Nash equilibrium (or
  it found none and there is none), for 4.4.2 its plan agrees at every own decision node
  with some subgame-perfect equilibrium.

Across episodes: :func:`rate` (e.g. the Nash-equilibrium rate), :func:`action_distribution`
and :func:`plot_action_distribution` (a bar chart, PNG, matplotlib's Agg canvas).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from accord.domains.games.load import parse_game
from accord.domains.games.model import ExtensiveGame, NormalFormGame
from accord.solvers.backward_induction import nash_outcomes, subgame_perfect_equilibria
from accord.solvers.game_pareto import pareto_optimal_mask, payoff_dominant_nash, undominated
from accord.solvers.game_tree import leaves
from accord.solvers.nash import pure_nash_mask, strict_nash_mask

Metrics = dict[str, bool | float | int | None]


@lru_cache(maxsize=256)
def _facts(spec_json: str) -> dict[str, Any]:
    """Solved facts about a game, memoised by its canonical JSON."""
    game = parse_game(json.loads(spec_json), source="record spec")
    if isinstance(game, NormalFormGame):
        return {"game": game, "nash": pure_nash_mask(game.payoffs),
                "coordination": is_coordination_game(game),
                "po": pareto_optimal_mask(game.payoffs),
                "pone": set(payoff_dominant_nash(game.payoffs))}
    assert isinstance(game, ExtensiveGame)
    spes = subgame_perfect_equilibria(game.tree)
    spe_paths: dict[tuple[str, ...], Any] = {}
    for e in spes:
        spe_paths.setdefault(e.path, e.payoff)
    keep = undominated(list(spe_paths.values()))
    all_leaves = leaves(game.tree)
    po_leaf = undominated([lf.payoff for _, lf in all_leaves])
    return {"game": game, "spe": set(spe_paths), "spe_list": spes,
            "pone": {p for p, k in zip(spe_paths, keep, strict=True) if k},
            "ne": {p for p, _ in nash_outcomes(game.tree, len(game.players))},
            "po": {p for (p, _), k in zip(all_leaves, po_leaf, strict=True) if k}}


def is_coordination_game(game: NormalFormGame) -> bool:
    """Whether a normal-form game poses a coordination problem: two or more strict pure
    Nash equilibria (see the module docstring)."""
    return int(strict_nash_mask(game.payoffs).sum()) >= 2


def _payoff_metrics(record: Mapping[str, Any]) -> Metrics:
    out: Metrics = {}
    pays = record.get("payoffs") or {}
    total = 0.0
    for i, player in enumerate(record.get("players", []), start=1):
        value = pays.get(player)
        num = None if value is None else float(_to_number(value))
        out[f"payoff_{i}"] = num
        total += num or 0.0
    out["welfare"] = total if pays else None
    return out


def _to_number(value: Any) -> float:
    if isinstance(value, str) and "/" in value:
        num, den = value.split("/")
        return int(num) / int(den)
    return float(value)


def _workflow_right(facts: Mapping[str, Any], flow: Mapping[str, Any]) -> bool:
    game = facts["game"]
    if isinstance(game, NormalFormGame):
        nash = flow.get("nash")
        if nash is None:
            return not bool(facts["nash"].any())
        try:
            idx = game.profile_index([nash[p] for p in game.players])
        except (KeyError, ValueError):
            return False
        return bool(facts["nash"][idx])
    plan = {tuple(k.strip("/").split("/")) if k != "/" else (): a
            for k, a in (flow.get("plan") or {}).items()}
    return any(all(e.strategy.get(node) == act for node, act in plan.items())
               for e in facts["spe_list"])


def workflow_correct(record: Mapping[str, Any]) -> float | None:
    """Share of the record's LLM workflow agents whose derived strategy is right."""
    flows = record.get("workflow") or {}
    if not flows or "spec" not in record:
        return None
    facts = _facts(json.dumps(record["spec"], sort_keys=True))
    return sum(_workflow_right(facts, f) for f in flows.values()) / len(flows)


def episode_metrics(record: Mapping[str, Any]) -> Metrics:
    """Per-episode metrics of one game record (see the module docstring)."""
    out: Metrics = {"completed": bool(record.get("completed"))}
    if record.get("workflow"):
        out["workflow_correct"] = workflow_correct(record)
    keys = ["coordinated", "nash", "pareto_optimal_nash", "pareto_optimal"]
    if record.get("type") == "extensive":
        keys.append("nash_outcome")
    if not record.get("completed"):
        return {**out, **dict.fromkeys(keys), **_payoff_metrics(record)}
    facts = _facts(json.dumps(record["spec"], sort_keys=True))
    game = facts["game"]
    if isinstance(game, NormalFormGame):
        idx = game.profile_index(record["profile"])
        out.update(coordinated=bool(facts["nash"][idx]) if facts["coordination"] else None,
                   nash=bool(facts["nash"][idx]), pareto_optimal_nash=idx in facts["pone"],
                   pareto_optimal=bool(facts["po"][idx]))
    else:
        path = tuple(record["path"])
        out.update(coordinated=None, nash=path in facts["spe"],
                   pareto_optimal_nash=path in facts["pone"],
                   pareto_optimal=path in facts["po"], nash_outcome=path in facts["ne"])
    return {**out, **_payoff_metrics(record)}


def rate(metrics: Iterable[Mapping[str, Any]], key: str = "nash") -> float | None:
    """Share of episodes where ``key`` is true, among those where it is defined."""
    vals = [bool(m[key]) for m in metrics if m.get(key) is not None]
    return sum(vals) / len(vals) if vals else None


def _outcome(record: Mapping[str, Any]) -> tuple[str, ...] | None:
    if not record.get("completed"):
        return None
    if record.get("type") == "extensive":
        return tuple(record["path"])
    return tuple(record["profile"])


def action_distribution(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Frequencies of outcomes (profiles or paths) and of each player's actions.

    Returns ``{"episodes", "completed", "outcomes": {"a, b": share}, "players":
    {player: {action: share}}}``; shares are over completed episodes (for sequential games
    a player's shares are over all the decisions they made).
    """
    outcomes: Counter[str] = Counter()
    per_player: dict[str, Counter[str]] = {}
    first = records[0] if records else {}
    if first.get("type") == "normal" and "spec" in first:  # list every action, in game order
        for player, acts in zip(first["players"], first["spec"]["actions"], strict=True):
            per_player[player] = Counter(dict.fromkeys(acts, 0))
    done = 0
    for rec in records:
        out = _outcome(rec)
        if out is None:
            continue
        done += 1
        outcomes[", ".join(out)] += 1
        if rec.get("type") == "extensive":
            for mv in rec.get("moves", []):
                per_player.setdefault(mv["player"], Counter())[mv["action"]] += 1
        else:
            for player, action in rec.get("actions", {}).items():
                per_player.setdefault(player, Counter())[action] += 1
    return {
        "episodes": len(records),
        "completed": done,
        "outcomes": {k: v / done for k, v in sorted(outcomes.items())} if done else {},
        "players": {p: {a: n / total for a, n in c.items()}
                    for p, c in per_player.items() if (total := sum(c.values()))},
    }


def plot_action_distribution(distribution: Mapping[str, Any], path: str | Path, *,
                             title: str | None = None) -> Path:
    """Bar charts of outcome shares and of each player's action shares, saved as PNG."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    players = list(distribution.get("players", {}))
    panels = 1 + len(players)
    fig = Figure(figsize=(4.0 * panels, 3.6))
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, panels, squeeze=False)[0]
    outcomes = distribution.get("outcomes", {})
    ax = axes[0]
    ax.bar(range(len(outcomes)), list(outcomes.values()), color="tab:blue")
    ax.set_xticks(range(len(outcomes)), [f"({k})" for k in outcomes], rotation=30, ha="right",
                  fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel("share of episodes")
    ax.set_title("outcomes")
    for ax, player in zip(axes[1:], players, strict=True):
        shares = distribution["players"][player]
        ax.bar(range(len(shares)), list(shares.values()), color="tab:orange")
        ax.set_xticks(range(len(shares)), list(shares), rotation=30, ha="right", fontsize=8)
        ax.set_ylim(0, 1)
        ax.set_title(f"{player}'s actions")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, format="png", dpi=110)
    return out
