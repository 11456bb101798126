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

LLM kinds:

- ``llm:MODEL``: chain-of-thought LLM player (:mod:`accord.domains.games.llm.agents`);
- ``llm-workflow:MODEL``: an LLM that first derives its strategy with the workflow of
  seed 003, 4.4.1 (best responses, then a Nash profile) or 4.4.2 (backward induction)
  (:mod:`accord.domains.games.llm.workflow`).

Both take the generation options (``temperature``, ``max_tokens``, ``top_p``, ``seed``),
``personality=ADJECTIVE`` (section 6.3) and ``prompt=1..6`` (section 6.5).

Every kind lives in :data:`AGENT_KINDS`, an :class:`~accord.agents.kinds.AgentRegistry` like
every domain's: a factory takes ``(spec, ctx)`` with ``ctx`` an :class:`AgentContext` (the
game, the player's index and the run's settings). Other packages add kinds through the
``accord.agents`` entry points ``games.<kind>``, or in code with
``AGENT_KINDS.register(kind, factory)``. :func:`make_agent` builds any kind,
:func:`build_agent` the code kinds only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from accord.agents.base import Agent
from accord.agents.kinds import AgentRegistry, AgentSettings
from accord.agents.spec import AgentSpec, AgentSpecError
from accord.core.moves import Action, Message, Move
from accord.core.names import unknown_name
from accord.core.safeload import parse_yaml
from accord.domains.games.describe import fmt_number
from accord.domains.games.llm.agents import check_llm_spec, make_llm_agent
from accord.domains.games.llm.workflow import make_llm_workflow
from accord.domains.games.model import ExtensiveGame, Game, NormalFormGame
from accord.domains.games.protocol import GameObservation
from accord.domains.games.selection import NormalPlan, TieBreak, select_normal, select_spe
from accord.protocols.base import Observation
from accord.solvers.backward_induction import SubgamePerfectEquilibrium
from accord.solvers.game_tree import decision_nodes

CODE_AGENT_KINDS = ("rational", "random", "fixed")
"""Code-executed agent kinds (also built by :func:`build_agent`)."""
LLM_AGENT_KINDS = ("llm", "llm-workflow")
"""LLM agent kinds."""
HUMAN_KIND = "human"
"""A person at a seat (:attr:`AgentSettings.seat`; terminal or browser)."""


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


@dataclass(frozen=True)
class AgentContext:
    """What a games agent factory may use to build the agent of one player: the game
    (complete information), the player's index in ``game.players`` and the run's settings
    (LLM settings, episode id, retry budget, a person's seat)."""

    game: Game
    player: int
    settings: AgentSettings = field(default_factory=AgentSettings)


def _code_agent(spec: AgentSpec, ctx: AgentContext) -> GameAgent:
    """A code kind; every one takes ``message=...`` for its cheap-talk line."""
    opts = dict(spec.options)
    message = opts.pop("message", None)
    if spec.kind == "rational":
        agent: GameAgent = RationalAgent(tie_break=opts.pop("tie_break", "first"),
                                         message=message)
    elif spec.kind == "random":
        agent = RandomAgent(message=message)
    else:
        if not spec.arg:
            raise ValueError("fixed agent needs an action: fixed:ACTION (or fixed:A1/A2)")
        actions = [a for a in spec.arg.split("/") if a]
        _check_fixed(actions, ctx.game, ctx.player)
        agent = FixedAgent(actions, message=message)
    if opts:
        known = "message, tie_break" if spec.kind == "rational" else "message"
        raise ValueError(f"unknown option(s) {', '.join(sorted(opts))}; {spec.kind} takes: "
                         f"{known}")
    return agent


def _human(spec: AgentSpec, ctx: AgentContext) -> Agent:
    from accord.agents.human import HumanAgent, seat_from
    from accord.domains.games.human import GamesView

    _check_human(spec)
    return HumanAgent(seat_from(ctx.settings.as_mapping()), GamesView())


def _check_human(spec: AgentSpec) -> None:
    if spec.arg or spec.options:
        raise ValueError(f"agent {spec}: 'human' takes no argument or options")


def _llm(spec: AgentSpec, ctx: AgentContext) -> Agent:
    return make_llm_agent(spec, ctx.game, ctx.player, ctx.settings.as_mapping())


def check_for_game(spec: AgentSpec, game: Game) -> None:
    """What a spec check cannot know without the game: the ``llm-workflow`` kind's
    simultaneous-game workflow is defined for two players."""
    if spec.kind == "llm-workflow" and game.type == "normal" and len(game.players) != 2:
        raise AgentSpecError("llm-workflow: the simultaneous-game workflow is defined for "
                             "two players")


def _llm_workflow(spec: AgentSpec, ctx: AgentContext) -> Agent:
    check_for_game(spec, ctx.game)
    return make_llm_workflow(spec, ctx.game, ctx.player, ctx.settings.as_mapping())


AGENT_KINDS: AgentRegistry[AgentContext, Agent] = AgentRegistry("games")
"""Agent kinds of the games, by spec kind; factories take ``(spec, AgentContext)``. A kind
without a spec check is built once per player when a line-up is validated (cheap for
code agents, and it checks their options against the game)."""
for _kind in CODE_AGENT_KINDS:
    AGENT_KINDS.register(_kind, _code_agent)
AGENT_KINDS.register("llm", _llm, check=check_llm_spec)
AGENT_KINDS.register("llm-workflow", _llm_workflow, check=check_llm_spec)
AGENT_KINDS.register(HUMAN_KIND, _human, check=_check_human)


def build_agent(spec: AgentSpec, game: Game, player: int) -> GameAgent:
    """A code agent from its spec for ``player`` (index) of ``game``; checks options early."""
    if spec.kind not in CODE_AGENT_KINDS:
        raise ValueError(unknown_name("games agent kind", spec.kind, CODE_AGENT_KINDS))
    return _code_agent(spec, AgentContext(game, player))


def make_agent(spec: AgentSpec, game: Game, player: int,
               ctx: Mapping[str, Any] | None = None) -> Agent:
    """Any games agent from its spec (unknown kinds name the known ones); ``ctx`` holds LLM
    settings, the episode id, the retry budget and a seat (see
    :class:`~accord.agents.kinds.AgentSettings`)."""
    return AGENT_KINDS.build(spec, AgentContext(game, player, AgentSettings.of(ctx)))
