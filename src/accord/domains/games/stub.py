"""A rule-based classic-games player that answers accord's games LLM prompts (no model).

It lets whole LLM game episodes (cheap talk, simultaneous or sequential play, the
workflows of seed 003, 4.4) run end to end over real HTTP - real SDK, real tag parsing -
with no model. It is self-contained (it does not reuse accord's solvers, so it checks them
rather than echoing them). Policies: ``games`` and ``games-trusting`` (see "Strategy").

**What it reads**: the same text a model gets - no machine-readable block exists for it.
:mod:`accord.domains.games.stub_text` reads the game from the system prompt's payoff table
or tree and the turn from the conversation (the workflow step, the negotiation round or
the action turn with its legal actions, the node, the strategy shown, the section-6.5
prompt at the end of an action prompt, the talk so far) into a state mapping::

    {"role": "Alice", "phase": "workflow" | "negotiation" | "play",
     "step": null | "opponent_best_responses" | "own_best_responses" | "nash"
             | "backward_induction" | "plan",
     "nodes": ["/a", "/b"], "messages": [{"round": 1, "speaker": "Bob", "text": "..."}],
     "history": [["Alice", "choice_2"]], "node": ["choice_2"], "actions": [...],
     "strategy": null | {"kind": "simultaneous", "nash": {player: action} | null}
                      | {"kind": "sequential", "plan": {node: action}},
     "prompt_variant": 0..6, "retry": null | {"reason": "...", "attempt": 2}}

Replies (what the agents parse): ``<THINK>...</THINK>`` then ``<MESSAGE>...</MESSAGE>``
(negotiation), ``<ACTION>name</ACTION>`` (play), ``<RESULT>{json}</RESULT>`` (workflow
steps 1-2 and each backward-induction level), ``<NASH>{json}</NASH>`` or
``<NASH>none</NASH>`` with ``<STRATEGY>`` (step 3), ``<PLAN>{json}</PLAN>`` with
``<STRATEGY>`` (sequential summary).

**Strategy** (``games``, a rational player that coordinates through talk):

* workflow steps are answered exactly (first best response in action order on ties);
* its target in a normal-form game is a pure Nash equilibrium, chosen among those in
  undominated actions (else all): not payoff-dominated by another, then the highest
  total, then the highest payoff for itself, then the first listed; with no pure
  equilibrium it picks uniformly by a hash of the conversation. In a tree it follows
  backward induction (ties: higher total payoff, then the first action). A workflow
  strategy in the state replaces its own target (it plays what "its" workflow derived);
* in talk it proposes its target as ``(a, b)`` - or agrees to the latest profile (or path)
  another player wrote as ``(x, y, ...)`` if that is acceptable: a Nash equilibrium
  (normal form) or a subgame-perfect path (tree);
* in play it follows the latest acceptable profile mentioned in the talk, else its target.

``games-trusting`` models the credulity the seed reports (4.3, 6.4): without a workflow
strategy it proposes, and accepts, a profile that gives everybody at least its target's
payoffs and someone more (cooperation in the Prisoner's Dilemma), unless the action prompt
carries prompt variant 5 or 6 ("you should/must make your own choice regardless ..."),
which makes it play its target. Prompts 1-4 change nothing, as in the seed.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from accord.domains.games.stub_text import (
    SEED_PROMPTS,
    Profile,
    StubGame,
    Vector,
    _num,
    _out,
    node_path,
    parse_game,
    parse_state,
)
from accord.llm.policy import Outcome, Policy, PolicyError, PolicyRequest, Reply, register_policy

_PAREN = re.compile(r"\(([^()]*)\)")



# -- normal-form games ---------------------------------------------------------------------
def best_responses(game: StubGame, i: int, profile: Sequence[str]) -> list[str]:
    """Player ``i``'s best responses to the others' actions in ``profile``."""
    def value(a: str) -> Fraction:
        return game.payoff([*profile[:i], a, *profile[i + 1:]])[i]
    top = max(value(a) for a in game.actions[i])
    return [a for a in game.actions[i] if value(a) == top]


def pure_nash(game: StubGame) -> list[Profile]:
    """Every pure Nash equilibrium, in profile order."""
    return [p for p in game.profiles()
            if all(p[i] in best_responses(game, i, p) for i in range(len(game.players)))]


def _weakly_dominated(game: StubGame, i: int) -> set[str]:
    others = list(itertools.product(*(a for j, a in enumerate(game.actions) if j != i)))

    def u(a: str, rest: Sequence[str]) -> Fraction:
        return game.payoff([*rest[:i], a, *rest[i:]])[i]
    out = set()
    for a in game.actions[i]:
        for b in game.actions[i]:
            if b != a and all(u(b, r) >= u(a, r) for r in others) and any(
                    u(b, r) > u(a, r) for r in others):
                out.add(a)
    return out


def _dominates(w: Vector, v: Vector) -> bool:
    return all(x >= y for x, y in zip(w, v, strict=True)) and w != v


def equilibria(game: StubGame) -> list[Profile]:
    """The pure equilibria a rational player considers (undominated actions if possible)."""
    eqs = pure_nash(game)
    weak = [_weakly_dominated(game, i) for i in range(len(game.players))]
    clean = [e for e in eqs if not any(a in weak[i] for i, a in enumerate(e))]
    return clean or eqs


def pick(game: StubGame, cands: Sequence[Profile], me: int) -> Profile | None:
    """The candidate a player aims for (see the module docstring), ``None`` if none."""
    if not cands:
        return None
    pays = [game.payoff(c) for c in cands]
    return min(cands, key=lambda c: (
        any(_dominates(q, game.payoff(c)) for q in pays), -sum(game.payoff(c)),
        -game.payoff(c)[me], cands.index(c)))


def improvement(game: StubGame, base: Vector) -> Profile | None:
    """The profile best for all that Pareto-improves on ``base`` (most total, then fairest)."""
    better = [p for p in game.profiles() if _dominates(game.payoff(p), base)]
    if not better:
        return None
    return max(better, key=lambda p: (sum(game.payoff(p)), min(game.payoff(p))))


# -- trees ---------------------------------------------------------------------------------
Node = Mapping[str, Any]


def node_at(tree: Node, path: Sequence[str]) -> Node:
    """The node reached by ``path``."""
    node = tree
    for a in path:
        node = node["actions"][a]
    return node


def solve_tree(game: StubGame, node: Node | None = None, path: Profile = ()
               ) -> tuple[dict[Profile, str], dict[Profile, Vector]]:
    """Backward induction: the chosen action and the value vector at every decision node."""
    node = game.tree if node is None else node
    assert node is not None
    if "payoff" in node:
        return {}, {path: tuple(map(_num, node["payoff"]))}
    plan: dict[Profile, str] = {}
    values: dict[Profile, Vector] = {}
    mover = game.players.index(node["player"])
    for a, child in node["actions"].items():
        sub_plan, sub_values = solve_tree(game, child, (*path, a))
        plan.update(sub_plan)
        values.update(sub_values)
    kids = list(node["actions"])
    best = max(kids, key=lambda a: (values[(*path, a)][mover], sum(values[(*path, a)]),
                                    -kids.index(a)))
    plan[path] = best
    values[path] = values[(*path, best)]
    return plan, values


def follow(game: StubGame, plan: Mapping[Profile, str], start: Profile = ()) -> Profile:
    """The path from ``start`` when every mover plays ``plan``."""
    path = start
    while "payoff" not in node_at(game.tree or {}, path):
        path = (*path, plan[path])
    return path


def leaves(node: Node, path: Profile = ()) -> list[tuple[Profile, Vector]]:
    """Every leaf's path and payoffs."""
    if "payoff" in node:
        return [(path, tuple(map(_num, node["payoff"])))]
    return [x for a, c in node["actions"].items() for x in leaves(c, (*path, a))]


def _name(path: Sequence[str]) -> str:
    return "/" + "/".join(path)


def _fmt(items: Sequence[str]) -> str:
    return "(" + ", ".join(items) + ")"


def _pays(values: Sequence[Fraction]) -> list[int | float | str]:
    return [_out(v) for v in values]


@register_policy("games")
class GamesPolicy(Policy):
    """Rule-based player for the games prompts (see the module docstring)."""

    name = "games"

    def __init__(self, trust: bool = False) -> None:
        self.trust = bool(trust)

    def respond(self, request: PolicyRequest) -> Outcome:
        """Read the game and the turn from the prompt text and answer the phase or step."""
        game = parse_game(request.system())
        state = parse_state(request)
        me = game.players.index(state["role"]) if state["role"] in game.players else -1
        if me < 0:
            raise PolicyError(f"games policy: role {state['role']!r} is not a player")
        phase = state["phase"]
        if phase == "workflow":
            return Reply(self._workflow(game, state, me))
        if phase == "negotiation":
            return Reply(self._talk(game, state, me))
        if phase == "play":
            return Reply(self._act(game, state, me, request.conversation))
        raise PolicyError(f"games policy: unknown phase {phase!r}")

    # -- shared reasoning ------------------------------------------------------------------
    def _credulous(self, state: Mapping[str, Any], acting: bool) -> bool:
        if not self.trust or state.get("strategy"):
            return False
        return not (acting and state.get("prompt_variant") in (5, 6))

    def target(self, game: StubGame, state: Mapping[str, Any], me: int, propose: bool = False
               ) -> Profile | None:
        """The profile (normal form) or path (tree) this player aims for; a credulous player
        proposes (``propose``) a Pareto improvement but only plays one that was agreed."""
        strategy = state.get("strategy") or {}
        if game.type == "normal":
            nash = strategy.get("nash")
            if nash and all(p in nash for p in game.players):
                base: Profile | None = tuple(str(nash[p]) for p in game.players)
            else:
                base = pick(game, equilibria(game), me)
            if base is not None and propose and self._credulous(state, False):
                return improvement(game, game.payoff(base)) or base
            return base
        plan, values = solve_tree(game)
        own = {node_path(k): v for k, v in (strategy.get("plan") or {}).items()}
        path = follow(game, {**plan, **own})
        if propose and self._credulous(state, False):
            assert game.tree is not None
            better = [(p, v) for p, v in leaves(game.tree) if _dominates(v, values[()])]
            if better:
                return max(better, key=lambda pv: (sum(pv[1]), min(pv[1])))[0]
        return path

    def _acceptable(self, game: StubGame, state: Mapping[str, Any], me: int,
                    proposal: Profile, acting: bool) -> bool:
        if game.type == "normal":
            ok = proposal in pure_nash(game)
            base = pick(game, equilibria(game), me)
            if not ok and base is not None and self._credulous(state, acting):
                ok = _dominates(game.payoff(proposal), game.payoff(base))
            return ok
        plan, values = solve_tree(game)
        if proposal == follow(game, plan):
            return True
        leaf = dict(leaves(game.tree or {}))[proposal]
        return self._credulous(state, acting) and _dominates(leaf, values[()])

    def _mentioned(self, game: StubGame, text: str) -> Profile | None:
        """The last profile (or full path) written as ``(a, b, ...)`` in ``text``."""
        found = None
        for inner in _PAREN.findall(text):
            items = tuple(x.strip() for x in inner.split(","))
            if game.type == "normal":
                if len(items) == len(game.players) and all(
                        a in acts for a, acts in zip(items, game.actions, strict=True)):
                    found = items
            elif items in dict(leaves(game.tree or {})):
                found = items
        return found

    def agreed(self, game: StubGame, state: Mapping[str, Any], me: int, *, acting: bool,
               others_only: bool) -> Profile | None:
        """The latest acceptable profile mentioned in the talk (by others only, if asked)."""
        for msg in reversed(state.get("messages") or []):
            if others_only and msg.get("speaker") == state["role"]:
                continue
            prop = self._mentioned(game, str(msg.get("text", "")))
            if prop is not None:
                return prop if self._acceptable(game, state, me, prop, acting) else None
        return None

    # -- phases ----------------------------------------------------------------------------
    def _talk(self, game: StubGame, state: Mapping[str, Any], me: int) -> str:
        agreed = self.agreed(game, state, me, acting=False, others_only=True)
        if agreed is not None:
            return (f"<THINK>The proposal {_fmt(agreed)} is acceptable to me.</THINK>\n"
                    f"<MESSAGE>Agreed: let us play {_fmt(agreed)}.</MESSAGE>")
        target = self.target(game, state, me, propose=True)
        if target is None:
            return ("<THINK>No equilibrium in pure actions: I should be unpredictable."
                    "</THINK>\n<MESSAGE>I will choose at random; nothing I could announce "
                    "would be credible here.</MESSAGE>")
        if game.type == "normal" and target in pure_nash(game):
            why = "it is a Nash equilibrium, so neither of us gains by deviating from it"
        elif game.type == "extensive" and target == follow(game, solve_tree(game)[0]):
            why = "it is the subgame-perfect path that backward induction gives"
        else:
            why = "it is better for both of us than the equilibrium"
        return (f"<THINK>My target is {_fmt(target)}.</THINK>\n"
                f"<MESSAGE>I propose we play {_fmt(target)}: {why}.</MESSAGE>")

    def _act(self, game: StubGame, state: Mapping[str, Any], me: int, conversation: str) -> str:
        legal = [str(a) for a in state.get("actions") or []]
        agreed = self.agreed(game, state, me, acting=True, others_only=False)
        if game.type == "normal":
            choice = agreed[me] if agreed is not None else None
            if choice is None:
                target = self.target(game, state, me)
                if target is not None:
                    choice = target[me]
            if choice is None:  # no pure equilibrium: a deterministic "coin"
                seed = hashlib.sha256(f"{conversation}|{json.dumps(state)}".encode()).digest()
                choice = legal[seed[0] % len(legal)]
        else:
            here = tuple(str(a) for a in state.get("node") or [])
            path = agreed if agreed is not None and agreed[:len(here)] == here else None
            if path is None:
                target = self.target(game, state, me)
                path = target if target is not None and target[:len(here)] == here else None
            if path is None:
                plan, _ = solve_tree(game)
                own = {node_path(k): v for k, v in
                       ((state.get("strategy") or {}).get("plan") or {}).items()}
                path = (*here, {**plan, **own}[here])
            choice = path[len(here)]
        if legal and choice not in legal:
            choice = legal[0]
        return f"<THINK>I play {choice}.</THINK>\n<ACTION>{choice}</ACTION>"

    def _workflow(self, game: StubGame, state: Mapping[str, Any], me: int) -> str:
        step = state.get("step")
        if game.type == "normal":
            other = 1 - me
            if step in ("opponent_best_responses", "own_best_responses"):
                mover, fixed = (other, me) if step == "opponent_best_responses" else (me, other)
                key = "response" if mover == other else "best_response"
                rows = {}
                for a in game.actions[fixed]:
                    prof = list(game.actions[0][:1] * 2)
                    prof[fixed] = a
                    prof[mover] = best_responses(game, mover, prof)[0]
                    rows[a] = {key: prof[mover], "my_payoff": _out(game.payoff(prof)[me])}
                return (f"<THINK>Best responses, one by one.</THINK>\n"
                        f"<RESULT>{json.dumps(rows)}</RESULT>")
            if step == "nash":
                eq = pick(game, equilibria(game), me)
                if eq is None:
                    return ("<THINK>No profile is a mutual best response.</THINK>\n"
                            "<NASH>none</NASH>\n<STRATEGY>There is no pure equilibrium: I "
                            "will choose unpredictably.</STRATEGY>")
                nash = dict(zip(game.players, eq, strict=True))
                return (f"<THINK>{_fmt(eq)} is a mutual best response.</THINK>\n"
                        f"<NASH>{json.dumps(nash)}</NASH>\n<STRATEGY>Aim for the Nash "
                        f"equilibrium {_fmt(eq)}: I play {eq[me]} and propose it in the "
                        f"negotiation.</STRATEGY>")
        else:
            plan, values = solve_tree(game)
            if step == "backward_induction":
                level = {n: {"action": plan[node_path(n)], "value": _pays(values[node_path(n)])}
                         for n in state.get("nodes") or []}
                return f"<THINK>From the leaves up.</THINK>\n<RESULT>{json.dumps(level)}</RESULT>"
            if step == "plan":
                mine = {n: plan[node_path(n)] for n in state.get("nodes") or []}
                path = follow(game, plan)
                return (f"<THINK>Collect my choices.</THINK>\n<PLAN>{json.dumps(mine)}</PLAN>\n"
                        f"<STRATEGY>Play the subgame-perfect plan; the expected path is "
                        f"{_fmt(path)}.</STRATEGY>")
        raise PolicyError(f"games policy: unknown workflow step {step!r} for a {game.type} game")


@register_policy("games-trusting")
def trusting(**options: Any) -> GamesPolicy:
    """The ``games`` player made credulous (see the module docstring)."""
    return GamesPolicy(trust=True, **options)


__all__ = ["SEED_PROMPTS", "GamesPolicy", "StubGame", "best_responses", "equilibria",
           "follow", "improvement", "leaves", "node_path", "parse_game", "parse_state", "pick",
           "pure_nash", "solve_tree", "trusting"]
