"""Perfect-information game trees: the data the extensive-form solvers work on.

A tree is a :class:`Decision` (the mover's player index and one child per named action)
or a :class:`Leaf` (one exact payoff per player). A node is addressed by its *path*, the
tuple of action names taken from the root (the root is ``()``). Trees are immutable.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction

Path = tuple[str, ...]
"""The actions taken from the root to a node."""


@dataclass(frozen=True, slots=True)
class Leaf:
    """A terminal node: one payoff per player."""

    payoff: tuple[Fraction, ...]


@dataclass(frozen=True, slots=True)
class Decision:
    """A decision node: ``player`` (index) chooses one of ``actions``, leading to ``children``."""

    player: int
    actions: tuple[str, ...]
    children: tuple[Leaf | Decision, ...]

    def __post_init__(self) -> None:
        if len(self.actions) != len(self.children):
            raise ValueError("a decision node needs exactly one child per action")
        if not self.actions:
            raise ValueError("a decision node needs at least one action")
        if len(set(self.actions)) != len(self.actions):
            raise ValueError(f"duplicate action names {self.actions}")

    def child(self, action: str) -> Leaf | Decision:
        """The node reached by ``action``."""
        try:
            return self.children[self.actions.index(action)]
        except ValueError:
            raise KeyError(f"no action {action!r} here; actions are {list(self.actions)}"
                           ) from None


Node = Leaf | Decision
"""Any tree node."""

Strategy = Mapping[Path, str]
"""A pure strategy profile: the action chosen at every decision node, keyed by path."""


def walk(tree: Node, prefix: Path = ()) -> Iterator[tuple[Path, Node]]:
    """Every node with its path, in preorder (root first, actions in their order)."""
    stack: list[tuple[Path, Node]] = [(prefix, tree)]
    while stack:
        path, node = stack.pop()
        yield path, node
        if isinstance(node, Decision):
            for action, child in reversed(list(zip(node.actions, node.children, strict=True))):
                stack.append(((*path, action), child))


def decision_nodes(tree: Node) -> list[tuple[Path, Decision]]:
    """Every decision node with its path, in preorder."""
    return [(p, n) for p, n in walk(tree) if isinstance(n, Decision)]


def leaves(tree: Node) -> list[tuple[Path, Leaf]]:
    """Every leaf with its path, in preorder."""
    return [(p, n) for p, n in walk(tree) if isinstance(n, Leaf)]


def node_at(tree: Node, path: Path) -> Node:
    """The node at ``path``; ``KeyError`` names the first step that does not exist."""
    node = tree
    for depth, action in enumerate(path):
        if not isinstance(node, Decision):
            raise KeyError(f"path {list(path)} continues past a leaf at step {depth}")
        node = node.child(action)
    return node


def follow(tree: Node, strategy: Strategy, start: Path = ()) -> tuple[Path, Leaf]:
    """Play ``strategy`` from ``start`` to a leaf; returns the full path and the leaf."""
    path = start
    node = node_at(tree, start)
    while isinstance(node, Decision):
        action = strategy[path]
        node = node.child(action)
        path = (*path, action)
    return path, node


def players_in(tree: Node) -> int:
    """The number of players: the payoff length (checked equal at every leaf)."""
    sizes = {len(leaf.payoff) for _, leaf in leaves(tree)}
    if len(sizes) != 1:
        raise ValueError(f"leaves disagree on the number of players: {sorted(sizes)}")
    return sizes.pop()


def depth(tree: Node) -> int:
    """The longest number of moves from the root to a leaf."""
    return max(len(p) for p, _ in leaves(tree))
