"""Backward induction on perfect-information trees: every subgame-perfect equilibrium.

Seed 003, section 4.4.2: the value of a leaf is its payoff; at a decision node the mover
picks an action maximising their own value and everyone inherits the values below it.
When the mover is indifferent between actions whose subtrees give *others* different
payoffs, each choice starts a different equilibrium, so :func:`subgame_perfect_equilibria`
enumerates all of them (their number is :func:`count_spe`, computed without enumerating).
Payoffs are Fractions, so ties are exact.

:func:`nash_outcomes` gives the outcomes of *all* pure Nash equilibria (not only the
subgame-perfect ones): a leaf is an equilibrium outcome exactly when, at every node on its
path, the mover gets at least the punishment (min-max) value of every deviation, since the
others can commit to hold a deviator down to that value off the path.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product

from accord.solvers.game_tree import Leaf, Node, Path, decision_nodes, follow, walk

Payoff = tuple[Fraction, ...]


@dataclass(frozen=True)
class SubgamePerfectEquilibrium:
    """One SPE: the action at every decision node, the path it induces and its payoff."""

    strategy: Mapping[Path, str] = field(hash=False)
    path: Path
    payoff: Payoff

    def action_at(self, path: Path) -> str:
        """The equilibrium action at the decision node reached by ``path``."""
        return self.strategy[path]


def _argmax(values: list[Fraction]) -> list[int]:
    top = max(values)
    return [i for i, v in enumerate(values) if v == top]


def count_spe(tree: Node) -> int:
    """Number of pure subgame-perfect equilibria, by counting payoff classes per subtree."""
    def classes(node: Node) -> Counter[Payoff]:
        if isinstance(node, Leaf):
            return Counter({node.payoff: 1})
        kids = [list(classes(c).items()) for c in node.children]
        out: Counter[Payoff] = Counter()
        for combo in product(*kids):
            mult = 1
            for _, cnt in combo:
                mult *= cnt
            for a in _argmax([v[node.player] for v, _ in combo]):
                out[combo[a][0]] += mult
        return out

    return sum(classes(tree).values())


def _enumerate(node: Node, path: Path) -> Iterator[tuple[tuple[tuple[Path, str], ...], Payoff]]:
    if isinstance(node, Leaf):
        yield (), node.payoff
        return
    subs = [list(_enumerate(c, (*path, a))) for a, c in zip(node.actions, node.children,
                                                            strict=True)]
    for combo in product(*subs):
        for a in _argmax([v[node.player] for _, v in combo]):
            items: tuple[tuple[Path, str], ...] = ((path, node.actions[a]),)
            for part, _ in combo:
                items += part
            yield items, combo[a][1]


def strategy_key(tree: Node, strategy: Mapping[Path, str]) -> tuple[int, ...]:
    """Action indices at every decision node in preorder: a total order on strategies."""
    return tuple(n.actions.index(strategy[p]) for p, n in decision_nodes(tree))


def subgame_perfect_equilibria(tree: Node, *, limit: int = 100_000
                               ) -> list[SubgamePerfectEquilibrium]:
    """Every pure SPE, ordered by :func:`strategy_key`.

    Raises ``ValueError`` when there are more than ``limit`` of them (ties everywhere make
    the number explode); use :func:`count_spe` and :func:`canonical_spe` for such trees.
    """
    total = count_spe(tree)
    if total > limit:
        raise ValueError(f"the tree has {total} subgame-perfect equilibria, more than "
                         f"limit={limit}; use count_spe() / canonical_spe() instead")
    out = []
    for items, _ in _enumerate(tree, ()):
        strategy = dict(items)
        path, leaf = follow(tree, strategy)
        out.append(SubgamePerfectEquilibrium(strategy, path, leaf.payoff))
    out.sort(key=lambda e: strategy_key(tree, e.strategy))
    return out


def canonical_spe(tree: Node) -> SubgamePerfectEquilibrium:
    """The SPE that breaks every tie towards the first listed action (one linear pass)."""
    strategy: dict[Path, str] = {}

    def solve(node: Node, path: Path) -> Payoff:
        if isinstance(node, Leaf):
            return node.payoff
        values = [solve(c, (*path, a)) for a, c in zip(node.actions, node.children,
                                                        strict=True)]
        best = _argmax([v[node.player] for v in values])[0]
        strategy[path] = node.actions[best]
        return values[best]

    solve(tree, ())
    path, leaf = follow(tree, strategy)
    return SubgamePerfectEquilibrium(strategy, path, leaf.payoff)


def punishment_values(tree: Node, player: int) -> dict[Path, Fraction]:
    """Min-max value of ``player`` at every node: they maximise, everyone else minimises."""
    values: dict[Path, Fraction] = {}
    for path, node in reversed(list(walk(tree))):  # children before parents
        if isinstance(node, Leaf):
            values[path] = node.payoff[player]
            continue
        kids = [values[(*path, a)] for a in node.actions]
        values[path] = max(kids) if node.player == player else min(kids)
    return values


def nash_outcomes(tree: Node, players: int) -> list[tuple[Path, Payoff]]:
    """Outcomes (leaf path and payoff) of the pure Nash equilibria, in preorder."""
    punish = [punishment_values(tree, i) for i in range(players)]
    out: list[tuple[Path, Payoff]] = []

    def visit(node: Node, path: Path, floor: tuple[Fraction | None, ...]) -> None:
        if isinstance(node, Leaf):
            if all(f is None or node.payoff[i] >= f for i, f in enumerate(floor)):
                out.append((path, node.payoff))
            return
        i = node.player
        for a, child in zip(node.actions, node.children, strict=True):
            alts = [punish[i][(*path, b)] for b in node.actions if b != a]
            new = list(floor)
            if alts:
                best_dev = max(alts)
                new[i] = best_dev if floor[i] is None else max(best_dev, floor[i])  # type: ignore[type-var]
            visit(child, (*path, a), tuple(new))

    visit(tree, (), tuple(None for _ in range(players)))
    return out


def spe_outcomes(tree: Node, *, limit: int = 100_000) -> list[tuple[Path, Payoff]]:
    """Distinct (path, payoff) outcomes of the subgame-perfect equilibria, in SPE order."""
    seen: dict[Path, Payoff] = {}
    for eq in subgame_perfect_equilibria(tree, limit=limit):
        seen.setdefault(eq.path, eq.payoff)
    return list(seen.items())

