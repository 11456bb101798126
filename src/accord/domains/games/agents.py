"""Code-executed agents for the classic games: rational, random and fixed-action players.

All read the game from the :class:`~accord.domains.games.protocol.GameObservation`
(complete information) and talk with the short lines in ``data/messages.yaml``.

- ``rational``: plays the equilibrium picked by :mod:`accord.domains.games.selection`
  (pure, mixed or subgame-perfect) and announces it honestly during cheap talk. Cheap talk
  does not change its choice: messages bind nothing, and every rational agent computes
  the same equilibrium anyway. Option ``tie_break=random`` draws among equally good
  equilibria instead (then rational agents can miscoordinate).
- ``random``: uniform over the legal actions.
- ``fixed:ACTION`` (or ``fixed:A1/A2/...`` for successive decisions in a sequential game;
  the last one repeats): always the named action, for tests and scripted baselines.

Any code kind accepts ``message=...`` to replace its cheap-talk line.

``human``: a person at a seat (the terminal in ``accord run``, or the play page), see
:mod:`accord.domains.games.human`.

LLM kinds (:func:`make_agent` builds every kind; :func:`build_agent` the code kinds only):

- ``llm:MODEL``: chain-of-thought LLM player (:mod:`accord.domains.games.llm.agents`);
- ``llm-workflow:MODEL``: an LLM that first derives its strategy with the workflow of
  seed 003, 4.4.1 (best responses, then a Nash profile) or 4.4.2 (backward induction)
  (:mod:`accord.domains.games.llm.workflow`).

Both take the generation options (``temperature``, ``max_tokens``, ``top_p``, ``seed``),
``personality=ADJECTIVE`` (section 6.3) and ``prompt=1..6`` (section 6.5).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from accord.agents.base import Agent
from accord.agents.spec import AgentSpec
from accord.core.moves import Action, Message, Move
from accord.core.names import unknown_name
from accord.core.safeload import parse_yaml
from accord.domains.games.describe import fmt_number
from accord.domains.games.llm.agents import make_llm_agent
from accord.domains.games.llm.workflow import make_llm_workflow
from accord.domains.games.model import ExtensiveGame, Game, NormalFormGame
from accord.domains.games.protocol import GameObservation
from accord.domains.games.selection import NormalPlan, TieBreak, select_normal, select_spe
from accord.protocols.base import Observation
from accord.solvers.backward_induction import SubgamePerfectEquilibrium
from accord.solvers.game_tree import decision_nodes

AGENT_KINDS = ("rational", "random", "fixed")
"""Code-executed agent kinds (built by :func:`build_agent`)."""
LLM_AGENT_KINDS = ("llm", "llm-workflow")
"""LLM agent kinds (built by :func:`make_agent`)."""
HUMAN_KIND = "human"
"""A person at a seat (``ctx["seat"]``; terminal or browser), built by :func:`make_agent`."""


@lru_cache(maxsize=1)
def _messages() -> dict[str, Any]:
    text = (resources.files("accord.domains.games") / "data" / "messages.yaml").read_text(
        encoding="utf-8")
    return dict(parse_yaml(text, "games/data/messages.yaml").data)


def _game_obs(observation: Observation) -> GameObservation:
    if not isinstance(observation, GameObservation) or observation.game is None:
        raise TypeError(f"games agents need a GameObservation with the game, got "
                        f"{type(observation).__name__}")
    return observation


class GameAgent(Agent):
    """Shared behaviour: talk in the negotiation phase, choose in the play phase."""

    def __init__(self, message: str | None = None) -> None:
        self.message = message
        self.reset()

    async def act(self, observation: Observation) -> Move:
        obs = _game_obs(observation)
        if obs.phase == "negotiation":
            return Message(self.message or self.talk(obs))
        return Action(self.choose(obs))

    def talk(self, obs: GameObservation) -> str:
        """The cheap-talk line for this negotiation turn."""
        raise NotImplementedError

    def choose(self, obs: GameObservation) -> str:
        """The action name to play now."""
        raise NotImplementedError


class RationalAgent(GameAgent):
    """Plays the selected Nash / subgame-perfect equilibrium (see module docstring)."""

    name = "rational"

    def __init__(self, tie_break: TieBreak = "first", message: str | None = None) -> None:
        if tie_break not in ("first", "random"):
            raise ValueError(f"tie_break must be 'first' or 'random', got {tie_break!r}")
        self.tie_break: TieBreak = tie_break
        super().__init__(message)

    def reset(self, rng: np.random.Generator | None = None) -> None:
        super().reset(rng)
        self._plans: dict[int, NormalPlan | SubgamePerfectEquilibrium] = {}

    def plan(self, game: Game) -> NormalPlan | SubgamePerfectEquilibrium:
        """The equilibrium this agent follows in ``game`` (computed once per episode)."""
        key = id(game)
        if key not in self._plans:
            if isinstance(game, NormalFormGame):
                self._plans[key] = select_normal(game, tie_break=self.tie_break, rng=self.rng)
            else:
                self._plans[key] = select_spe(game, tie_break=self.tie_break, rng=self.rng)
        return self._plans[key]

    def talk(self, obs: GameObservation) -> str:
        game = obs.game
        assert game is not None
        lines = _messages()["rational"]
        plan = self.plan(game)
        if isinstance(plan, SubgamePerfectEquilibrium):
            assert isinstance(game, ExtensiveGame)
            mine = [f"{plan.strategy[p]} at {'/' + '/'.join(p)}"
                    for p, node in decision_nodes(game.tree) if node.player == obs.player_index]
            return str(lines["extensive"]).format(plan=", ".join(mine) or "nothing",
                                                  path=" -> ".join(plan.path))
        assert isinstance(game, NormalFormGame)
        acts = game.actions[obs.player_index]
        own = plan.strategies[obs.player_index]
        profile = plan.pure_profile()
        if profile is not None:
            return str(lines["pure"]).format(action=acts[profile[obs.player_index]],
                                             profile=", ".join(game.profile_names(profile)))
        if plan.kind == "mixed":
            mix = ", ".join(f"{a} with probability {fmt_number(p)}"
                            for a, p in zip(acts, own, strict=True) if p)
            return str(lines["mixed"]).format(mix=mix)
        return str(lines["uniform-undominated"]).format(
            actions=", ".join(a for a, p in zip(acts, own, strict=True) if p))

    def choose(self, obs: GameObservation) -> str:
        game = obs.game
        assert game is not None
        plan = self.plan(game)
        if isinstance(plan, SubgamePerfectEquilibrium):
            return plan.strategy[obs.node]
        assert isinstance(game, NormalFormGame)
        own = plan.strategies[obs.player_index]
        probs = np.array([float(p) for p in own])
        idx = int(np.flatnonzero(probs == 1)[0]) if probs.max() == 1 else int(
            self.rng.choice(len(own), p=probs / probs.sum()))
        return game.actions[obs.player_index][idx]


class RandomAgent(GameAgent):
    """Uniform over the legal actions; a neutral line during cheap talk."""

    name = "random"

    def talk(self, obs: GameObservation) -> str:
        return str(_messages()["random"])

    def choose(self, obs: GameObservation) -> str:
        return obs.actions[int(self.rng.integers(len(obs.actions)))]


class FixedAgent(GameAgent):
    """Always the given action (``actions[i]`` at its i-th decision; the last repeats)."""

    name = "fixed"

    def __init__(self, actions: list[str], message: str | None = None) -> None:
        if not actions:
            raise ValueError("fixed agent needs an action, e.g. fixed:defect")
        self.actions = list(actions)
        super().__init__(message)

    def reset(self, rng: np.random.Generator | None = None) -> None:
        super().reset(rng)
        self._decisions = 0

    def talk(self, obs: GameObservation) -> str:
        return str(_messages()["fixed"]).format(action=" then ".join(self.actions))

    def choose(self, obs: GameObservation) -> str:
        if obs.feedback is None:  # a retry after an invalid move is the same decision
            self._decisions += 1
        return self.actions[min(self._decisions, len(self.actions)) - 1]


def _check_fixed(actions: list[str], game: Game, player: int) -> None:
    if isinstance(game, NormalFormGame):
        known = set(game.actions[player])
    else:
        known = {a for _, n in decision_nodes(game.tree) if n.player == player
                 for a in n.actions}
    bad = [a for a in actions if a not in known]
    if bad:
        raise ValueError(f"fixed agent for {game.players[player]}: unknown action(s) {bad}; "
                         f"{game.players[player]} can play {sorted(known)}")


def build_agent(spec: AgentSpec, game: Game, player: int) -> GameAgent:
    """An agent from its spec for ``player`` (index) of ``game``; checks options early."""
    opts = dict(spec.options)
    message = opts.pop("message", None)
    if spec.kind == "rational":
        agent: GameAgent = RationalAgent(tie_break=opts.pop("tie_break", "first"),
                                         message=message)
    elif spec.kind == "random":
        agent = RandomAgent(message=message)
    elif spec.kind == "fixed":
        if not spec.arg:
            raise ValueError("fixed agent needs an action: fixed:ACTION (or fixed:A1/A2)")
        actions = [a for a in spec.arg.split("/") if a]
        _check_fixed(actions, game, player)
        agent = FixedAgent(actions, message=message)
    else:
        raise ValueError(unknown_name("games agent kind", spec.kind, AGENT_KINDS))
    if opts:
        raise ValueError(f"agent {spec}: unknown option(s) {sorted(opts)}")
    return agent


def make_agent(spec: AgentSpec, game: Game, player: int,
               ctx: Mapping[str, Any] | None = None) -> Agent:
    """Any games agent from its spec: LLM kinds with ``ctx`` (LLM settings under ``llm``,
    ``episode_id`` for cache scopes, ``max_retries``), code kinds via :func:`build_agent`."""
    context = dict(ctx or {})
    if spec.kind == "llm":
        return make_llm_agent(spec, game, player, context)
    if spec.kind == "llm-workflow":
        return make_llm_workflow(spec, game, player, context)
    if spec.kind == HUMAN_KIND:
        from accord.agents.human import HumanAgent, seat_from
        from accord.domains.games.human import GamesView

        if spec.arg or spec.options:
            raise ValueError(f"agent {spec}: 'human' takes no argument or options")
        return HumanAgent(seat_from(context), GamesView())
    if spec.kind not in AGENT_KINDS:
        raise ValueError(unknown_name("games agent kind", spec.kind,
                                      (*AGENT_KINDS, *LLM_AGENT_KINDS, HUMAN_KIND)))
    return build_agent(spec, game, player)
