"""Dominant and dominated strategies, and iterated elimination (pure-strategy dominance).

For player ``i``, action ``a`` *strictly* dominates ``b`` when it pays strictly more against
every profile of the others, and *weakly* dominates ``b`` when it pays at least as much
everywhere and strictly more somewhere. A dominant action dominates every other action.
Only domination by pure actions is checked (domination by mixtures needs an LP and is not
needed by the catalog games). Comparisons are exact (integer rescaling per player).

Iterated elimination removes, in each round, every action that is dominated in the game
reduced so far, for all players at once. For strict dominance the order never matters;
for weak dominance it can, and this "all at once" order is the documented choice.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accord.solvers.payoff_arrays import check_payoff_array, integer_payoffs


def _rows(u: np.ndarray, player: int) -> np.ndarray:
    """Player's payoffs as a ``(k_player, others)`` matrix."""
    return np.moveaxis(u[..., player], player, 0).reshape(u.shape[player], -1)


def dominance_matrix(payoffs: np.ndarray, player: int, *, strict: bool = True) -> np.ndarray:
    """``D[a, b]`` is true when ``player``'s action ``a`` dominates action ``b``."""
    check_payoff_array(payoffs)
    u, _ = integer_payoffs(payoffs)
    if not 0 <= player < u.shape[-1]:
        raise ValueError(f"player index {player} out of range 0..{u.shape[-1] - 1}")
    x = _rows(u, player)
    k = x.shape[0]
    out = np.zeros((k, k), dtype=bool)
    for a in range(k):
        if strict:
            out[a] = (x[a] > x).all(axis=1)
        else:
            out[a] = (x[a] >= x).all(axis=1) & (x[a] > x).any(axis=1)
    return out


def dominated_actions(payoffs: np.ndarray, player: int, *, strict: bool = True) -> list[int]:
    """Actions of ``player`` dominated by some other pure action."""
    return [int(b) for b in np.flatnonzero(dominance_matrix(payoffs, player,
                                                            strict=strict).any(axis=0))]


def dominant_action(payoffs: np.ndarray, player: int, *, strict: bool = True) -> int | None:
    """The action that dominates every other action of ``player``, or ``None``."""
    d = dominance_matrix(payoffs, player, strict=strict)
    k = d.shape[0]
    for a in range(k):
        if all(d[a, b] for b in range(k) if b != a):
            return a
    return None


@dataclass(frozen=True)
class Elimination:
    """Result of iterated elimination.

    ``surviving[i]`` lists player ``i``'s remaining action indices (of the original game);
    ``steps`` lists ``(round, player, removed_action, dominating_action)``.
    """

    surviving: tuple[tuple[int, ...], ...]
    steps: tuple[tuple[int, int, int, int], ...]


def iterated_elimination(payoffs: np.ndarray, *, strict: bool = True) -> Elimination:
    """Iterated elimination of dominated actions (all players at once, each round)."""
    check_payoff_array(payoffs)
    u, _ = integer_payoffs(payoffs)
    n = u.shape[-1]
    alive = [list(range(u.shape[i])) for i in range(n)]
    steps: list[tuple[int, int, int, int]] = []
    rnd = 0
    while True:
        rnd += 1
        sub = u[np.ix_(*alive)]
        removals: list[tuple[int, list[int]]] = []
        for i in range(n):
            d = dominance_matrix(sub, i, strict=strict)
            gone = [b for b in range(d.shape[0]) if d[:, b].any()]
            for b in gone:
                steps.append((rnd, i, alive[i][b], alive[i][int(np.flatnonzero(d[:, b])[0])]))
            removals.append((i, gone))
        if not any(gone for _, gone in removals):
            return Elimination(tuple(tuple(a) for a in alive), tuple(steps))
        for i, gone in removals:
            alive[i] = [a for j, a in enumerate(alive[i]) if j not in set(gone)]
