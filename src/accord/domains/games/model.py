"""Game models: n-player normal-form games and perfect-information extensive-form games.

Both are complete-information games (seed 003, Definition 1): named players, named actions
and exact payoffs. The solvers in :mod:`accord.solvers` work on the raw data (payoff arrays,
trees of player indices); these classes add names, metadata and convenience methods that
translate between names and indices.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import ClassVar

import numpy as np

from accord.solvers.game_tree import Decision, Leaf, Node, Path, node_at, walk
from accord.solvers.payoff_arrays import check_payoff_array, fraction_of


@dataclass(frozen=True, eq=False)
class GameInfo:
    """Descriptive metadata: catalog name, text for people and prompts, provenance notes."""

    name: str = ""
    description: str = ""
    notes: str = ""
    parameters: Mapping[str, Fraction] = field(default_factory=dict)


class _Players:
    """What both game kinds share: named players and catalog metadata."""

    players: tuple[str, ...]
    info: GameInfo

    @property
    def name(self) -> str:
        """The catalog name (empty for ad-hoc games)."""
        return self.info.name

    def player_index(self, player: str) -> int:
        """Index of a player by name."""
        try:
            return self.players.index(player)
        except ValueError:
            raise KeyError(f"unknown player {player!r}; players are {list(self.players)}"
                           ) from None


@dataclass(frozen=True, eq=False)
class NormalFormGame(_Players):
    """A simultaneous-move game: ``payoffs[a_1, ..., a_n, i]`` is player ``i``'s payoff.

    ``payoffs`` is exact: ``int64`` for integer games, else an object array of Fractions
    (see :mod:`accord.solvers.payoff_arrays`).
    """

    players: tuple[str, ...]
    actions: tuple[tuple[str, ...], ...]
    payoffs: np.ndarray
    info: GameInfo = field(default_factory=GameInfo)
    type: ClassVar[str] = "normal"

    def __post_init__(self) -> None:
        check_payoff_array(self.payoffs, len(self.players))
        sizes = tuple(len(a) for a in self.actions)
        if sizes != self.payoffs.shape[:-1]:
            raise ValueError(f"action counts {sizes} do not match payoff shape "
                             f"{self.payoffs.shape}")
        _check_names("player", self.players)
        for p, acts in zip(self.players, self.actions, strict=True):
            _check_names(f"action of {p}", acts)

    def action_index(self, player: int | str, action: str) -> int:
        """Index of one player's action by name."""
        i = player if isinstance(player, int) else self.player_index(player)
        try:
            return self.actions[i].index(action)
        except ValueError:
            raise KeyError(f"{self.players[i]} has no action {action!r}; actions are "
                           f"{list(self.actions[i])}") from None

    def profile_index(self, profile: Sequence[str]) -> tuple[int, ...]:
        """Action indices of a profile given by action names in player order."""
        if len(profile) != len(self.players):
            raise ValueError(f"profile {list(profile)} needs {len(self.players)} actions")
        return tuple(self.action_index(i, a) for i, a in enumerate(profile))

    def profile_names(self, profile: Sequence[int]) -> tuple[str, ...]:
        """Action names of a profile given by indices."""
        return tuple(self.actions[i][a] for i, a in enumerate(profile))

    def payoff(self, profile: Sequence[int] | Sequence[str]) -> tuple[Fraction, ...]:
        """Exact payoff vector at a profile (indices or names)."""
        idx = (self.profile_index(profile)  # type: ignore[arg-type]
               if profile and isinstance(profile[0], str) else tuple(profile))
        return fraction_of(self.payoffs, idx)  # type: ignore[arg-type]

    def matrices(self) -> tuple[np.ndarray, np.ndarray]:
        """``(A, B)``: the row and column player's payoff matrices (two players only)."""
        if len(self.players) != 2:
            raise ValueError(f"{self.name or 'game'} has {len(self.players)} players, not 2")
        return self.payoffs[..., 0], self.payoffs[..., 1]


@dataclass(frozen=True, eq=False)
class ExtensiveGame(_Players):
    """A sequential game with perfect information: a tree whose decision nodes name a mover.

    ``tree`` uses player *indices* (into ``players``) at decision nodes.
    """

    players: tuple[str, ...]
    tree: Node
    info: GameInfo = field(default_factory=GameInfo)
    type: ClassVar[str] = "extensive"

    def __post_init__(self) -> None:
        _check_names("player", self.players)
        n = len(self.players)
        for path, node in walk(self.tree):
            if isinstance(node, Leaf) and len(node.payoff) != n:
                raise ValueError(f"leaf {list(path)} has {len(node.payoff)} payoffs, "
                                 f"game has {n} players")
            if isinstance(node, Decision) and not 0 <= node.player < n:
                raise ValueError(f"node {list(path)} names player index {node.player}")

    def node(self, path: Path) -> Node:
        """The node reached by ``path`` (a tuple of action names)."""
        return node_at(self.tree, tuple(path))

    def mover(self, path: Path) -> str | None:
        """Name of the player to move at ``path``, ``None`` at a leaf."""
        node = self.node(path)
        return self.players[node.player] if isinstance(node, Decision) else None

    def legal(self, path: Path) -> tuple[str, ...]:
        """Actions available at ``path`` (empty at a leaf)."""
        node = self.node(path)
        return node.actions if isinstance(node, Decision) else ()

    def payoff(self, path: Path) -> tuple[Fraction, ...]:
        """Payoffs at the leaf reached by ``path``."""
        node = self.node(path)
        if not isinstance(node, Leaf):
            raise ValueError(f"path {list(path)} ends at a decision node, not a leaf")
        return node.payoff


Game = NormalFormGame | ExtensiveGame
"""Any game model."""


def _check_names(what: str, names: Sequence[str]) -> None:
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"every {what} needs a non-empty name, got {name!r}")
    dupes = sorted({n for n in names if list(names).count(n) > 1})
    if dupes:
        raise ValueError(f"duplicate {what} names: {dupes}")
