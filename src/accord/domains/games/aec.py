"""A PettingZoo-style AEC (agent-environment-cycle) environment for any catalog or file game.

Install the optional extra (``pip install accord[pettingzoo]``) to get a genuine
``pettingzoo.AECEnv`` subclass with ``gymnasium`` spaces; without it the same class works
standalone with minimal space objects (``n``, ``shape``, ``sample``, ``contains``).

Observations are dicts ``{"observation": int64 vector, "action_mask": int8 vector}``:

- normal form: one entry per player, the index of that player's action once the game is
  over and ``-1`` before (players choose in turn but nobody sees another's choice);
- extensive form: the action indices along the path so far, ``-1`` padded to the depth.

Actions are indices into the current mover's legal actions (``action_mask`` marks them).
Rewards (the payoffs, as floats) arrive when the game ends; then every agent is terminated
and must be stepped with ``None``, as in PettingZoo.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np

from accord.domains.games.describe import render_game
from accord.domains.games.model import ExtensiveGame, Game, NormalFormGame
from accord.solvers.game_tree import Decision, decision_nodes, depth

_spaces: Any = None
_AECBase: Any = object
try:  # optional extra
    _spaces = importlib.import_module("gymnasium.spaces")
    _AECBase = importlib.import_module("pettingzoo").AECEnv
    HAVE_PETTINGZOO = True
except ImportError:  # pragma: no cover - exercised when the extra is absent
    _spaces, _AECBase = None, object
    HAVE_PETTINGZOO = False


class _Discrete:
    """Minimal stand-in for ``gymnasium.spaces.Discrete``."""

    def __init__(self, n: int, seed: int | None = None) -> None:
        self.n = n
        self.shape: tuple[int, ...] = ()
        self._rng = np.random.default_rng(seed)

    def seed(self, seed: int | None = None) -> None:
        """Reseed the sampler."""
        self._rng = np.random.default_rng(seed)

    def sample(self, mask: np.ndarray | None = None) -> int:
        """A uniform action (among ``mask == 1`` when given)."""
        choices = np.arange(self.n) if mask is None else np.flatnonzero(mask)
        return int(self._rng.choice(choices))

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is an action index."""
        return isinstance(x, int | np.integer) and 0 <= int(x) < self.n


class _Box:
    """Minimal stand-in for an integer ``gymnasium.spaces.Box``."""

    def __init__(self, low: int, high: int, shape: tuple[int, ...], dtype: Any) -> None:
        self.low, self.high, self.shape, self.dtype = low, high, shape, dtype

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is an array of the right shape within bounds."""
        arr = np.asarray(x)
        return arr.shape == self.shape and bool(((arr >= self.low) & (arr <= self.high)).all())


class _DictSpace(dict[str, Any]):
    """Minimal stand-in for ``gymnasium.spaces.Dict``."""

    def contains(self, x: Any) -> bool:
        """Whether every entry of ``x`` lies in its sub-space."""
        return isinstance(x, dict) and all(self[k].contains(x.get(k)) for k in self)


class GameAECEnv(_AECBase):
    """One play of a game per episode, in the PettingZoo AEC API (see module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"name": "accord_games_v0", "render_modes": ["ansi"],
                                          "is_parallelizable": False}

    def __init__(self, game: Game, render_mode: str | None = None) -> None:
        if HAVE_PETTINGZOO:
            super().__init__()
        self.game = game
        self.render_mode = render_mode
        self.possible_agents = list(game.players)
        if isinstance(game, NormalFormGame):
            self._width = max(len(a) for a in game.actions)
            self._obs_len = len(game.players)
        else:
            self._width = max(len(n.actions) for _, n in decision_nodes(game.tree))
            self._obs_len = depth(game.tree)
        self._action_spaces = {a: self._discrete() for a in self.possible_agents}
        self._observation_spaces = {a: self._obs_space() for a in self.possible_agents}
        self.agents: list[str] = []

    def _discrete(self) -> Any:
        return _spaces.Discrete(self._width) if _spaces is not None else _Discrete(self._width)

    def _obs_space(self) -> Any:
        if _spaces is not None:
            return _spaces.Dict({
                "observation": _spaces.Box(-1, self._width - 1, (self._obs_len,), np.int64),
                "action_mask": _spaces.Box(0, 1, (self._width,), np.int8)})
        return _DictSpace(observation=_Box(-1, self._width - 1, (self._obs_len,), np.int64),
                          action_mask=_Box(0, 1, (self._width,), np.int8))

    def action_space(self, agent: str) -> Any:
        """The agent's action space (indices up to the largest action count)."""
        return self._action_spaces[agent]

    def observation_space(self, agent: str) -> Any:
        """The agent's observation space."""
        return self._observation_spaces[agent]

    # -- episode ------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new play."""
        if seed is not None:
            for space in self._action_spaces.values():
                space.seed(seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._choices: dict[str, int] = {}
        self._path: tuple[str, ...] = ()
        self._over = False
        self.agent_selection = self._mover()

    def _mover(self) -> str:
        if isinstance(self.game, NormalFormGame):
            return next(a for a in self.possible_agents if a not in self._choices)
        mover = self.game.mover(self._path)
        assert mover is not None
        return mover

    def _legal(self, agent: str) -> tuple[str, ...]:
        if self._over or agent != self.agent_selection:
            return ()
        if isinstance(self.game, NormalFormGame):
            return self.game.actions[self.game.player_index(agent)]
        return self.game.legal(self._path)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation (see module docstring)."""
        obs = np.full(self._obs_len, -1, dtype=np.int64)
        if isinstance(self.game, NormalFormGame):
            if self._over:
                for i, p in enumerate(self.possible_agents):
                    obs[i] = self._choices[p]
        else:
            node = self.game.tree
            for t, action in enumerate(self._path):
                assert isinstance(node, Decision)
                obs[t] = node.actions.index(action)
                node = node.child(action)
        mask = np.zeros(self._width, dtype=np.int8)
        mask[:len(self._legal(agent))] = 1
        return {"observation": obs, "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Observation, accumulated reward, termination, truncation, info of the mover."""
        agent = self.agent_selection
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def agent_iter(self, max_iter: int = 2**63) -> Iterator[str]:
        """The agents in turn, until all are done."""
        count = 0
        while self.agents and count < max_iter:
            yield self.agent_selection
            count += 1

    def step(self, action: int | None) -> None:
        """Apply the current agent's action (``None`` once the agent is done)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._remove_done(action)
            return
        legal = self._legal(agent)
        if action is None or not 0 <= int(action) < len(legal):
            raise ValueError(f"{agent}: action {action!r} is not legal; legal indices are "
                             f"0..{len(legal) - 1} ({', '.join(legal)})")
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if isinstance(self.game, NormalFormGame):
            self._choices[agent] = int(action)
            finished = len(self._choices) == len(self.possible_agents)
        else:
            self._path = (*self._path, legal[int(action)])
            finished = not isinstance(self.game.node(self._path), Decision)
        if finished:
            self._finish()
        else:
            self.agent_selection = self._mover()
        for a in self.agents:
            self._cumulative_rewards[a] += self.rewards[a]

    def _finish(self) -> None:
        self._over = True
        if isinstance(self.game, NormalFormGame):
            payoff = self.game.payoff(tuple(self._choices[p] for p in self.possible_agents))
        else:
            assert isinstance(self.game, ExtensiveGame)
            payoff = self.game.payoff(self._path)
        self.rewards = {p: float(v) for p, v in zip(self.possible_agents, payoff, strict=True)}
        self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.agents[0]

    def _remove_done(self, action: int | None) -> None:
        if action is not None:
            raise ValueError("when an agent is done, the only valid action is None")
        agent = self.agent_selection
        for table in (self.terminations, self.truncations, self.rewards,
                      self._cumulative_rewards, self.infos):
            del table[agent]
        self.agents.remove(agent)
        if self.agents:
            self.agent_selection = self.agents[0]
        self.rewards = dict.fromkeys(self.agents, 0.0)

    def render(self) -> str | None:
        """The game and the play so far, as text (``render_mode="ansi"``)."""
        if self.render_mode != "ansi":
            return None
        state = (f"choices: {self._choices}" if isinstance(self.game, NormalFormGame)
                 else f"path: {list(self._path)}")
        return f"{render_game(self.game)}\n{state}"

    def close(self) -> None:
        """Nothing to release."""


def make_aec_env(game: Game, render_mode: str | None = None) -> GameAECEnv:
    """A :class:`GameAECEnv` for ``game``."""
    return GameAECEnv(game, render_mode=render_mode)
