"""Pure Nash equilibria and best responses of n-player normal-form games (exact).

Payoffs are the arrays of :mod:`accord.solvers.payoff_arrays`: shape ``(k_1, ..., k_n, n)``.
A profile is a pure Nash equilibrium when every player's payoff there equals the maximum
over that player's own axis, so the whole search is ``n`` vectorised maxima and one logical
AND over the ``k_1 * ... * k_n`` profiles (a 1000 x 1000 game takes milliseconds).
Comparisons are on per-player integer rescalings, hence exact for any rational payoffs.
Mixed equilibria of two-player games live in :mod:`accord.solvers.nash_mixed`.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from accord.solvers.payoff_arrays import check_payoff_array, integer_payoffs, to_fraction

Profile = tuple[int, ...]
"""A pure action profile: one action index per player."""

Strategy = int | Sequence[Fraction]
"""A pure action index or a mixed strategy (one probability per action)."""


def best_response_mask(payoffs: np.ndarray) -> np.ndarray:
    """Boolean array of shape ``(k_1, ..., k_n, n)``: is ``a_i`` a best response to ``a_-i``."""
    check_payoff_array(payoffs)
    u, _ = integer_payoffs(payoffs)
    n = u.shape[-1]
    out = np.empty(u.shape, dtype=bool)
    for i in range(n):
        ui = u[..., i]
        out[..., i] = ui == ui.max(axis=i, keepdims=True)
    return out


def _nash_mask(payoffs: np.ndarray, strict: bool) -> np.ndarray:
    """Profiles where each player's action is a best response (the unique one if
    ``strict``), on exact integer payoffs."""
    check_payoff_array(payoffs)
    u, _ = integer_payoffs(payoffs)
    mask = np.ones(u.shape[:-1], dtype=bool)
    for i in range(u.shape[-1]):
        ui = u[..., i]
        best = ui == ui.max(axis=i, keepdims=True)
        mask &= best & (best.sum(axis=i, keepdims=True) == 1) if strict else best
    return mask


def pure_nash_mask(payoffs: np.ndarray) -> np.ndarray:
    """Boolean array over profiles (shape ``(k_1, ..., k_n)``): is the profile a pure NE."""
    return _nash_mask(payoffs, strict=False)


def strict_nash_mask(payoffs: np.ndarray) -> np.ndarray:
    """Boolean array over profiles: is the profile a *strict* pure NE (every unilateral
    deviation loses something, so each player's action is the unique best response)."""
    return _nash_mask(payoffs, strict=True)


def pure_nash(payoffs: np.ndarray) -> list[Profile]:
    """Every pure Nash equilibrium, as action-index profiles in lexicographic order."""
    return [tuple(int(a) for a in row) for row in np.argwhere(pure_nash_mask(payoffs))]


def is_pure_nash(payoffs: np.ndarray, profile: Sequence[int]) -> bool:
    """Whether one pure profile is a Nash equilibrium (no player gains by deviating)."""
    check_payoff_array(payoffs)
    u, _ = integer_payoffs(payoffs)
    prof = tuple(int(a) for a in profile)
    if len(prof) != u.ndim - 1:
        raise ValueError(f"profile {prof} has {len(prof)} actions, game has {u.ndim - 1} players")
    for i in range(len(prof)):
        line = list(prof)
        line[i] = slice(None)  # type: ignore[call-overload]
        col = u[(*line, i)]
        if col[prof[i]] != col.max():
            return False
    return True


def _as_distribution(strategy: Strategy, k: int, who: int) -> list[Fraction]:
    if isinstance(strategy, int | np.integer):
        if not 0 <= int(strategy) < k:
            raise ValueError(f"player {who}: action index {strategy} out of range 0..{k - 1}")
        return [Fraction(int(j == int(strategy))) for j in range(k)]
    probs = [to_fraction(p) for p in strategy]
    if len(probs) != k:
        raise ValueError(f"player {who}: mixed strategy has {len(probs)} entries, needs {k}")
    if any(p < 0 for p in probs) or sum(probs) != 1:
        raise ValueError(f"player {who}: {probs} is not a probability distribution")
    return probs


def action_values(
    payoffs: np.ndarray, player: int, others: Sequence[Strategy]
) -> list[Fraction]:
    """Exact expected payoff of each of ``player``'s actions against the others' strategies.

    ``others`` gives one strategy per player in player order; the entry at ``player`` is
    ignored (pass anything, e.g. ``0``). Each strategy is a pure action index or a mixed
    distribution over that player's actions.
    """
    check_payoff_array(payoffs)
    n = payoffs.shape[-1]
    if not 0 <= player < n:
        raise ValueError(f"player index {player} out of range 0..{n - 1}")
    if len(others) != n:
        raise ValueError(f"need one strategy per player ({n}), got {len(others)}")
    # contract every other player's axis with its distribution, highest axis first
    table = payoffs[..., player]
    for j in range(n - 1, -1, -1):
        if j == player:
            continue
        dist = _as_distribution(others[j], payoffs.shape[j], j)
        support = [(a, p) for a, p in enumerate(dist) if p]
        table = sum((np.take(table, a, axis=j) * p for a, p in support[1:]),
                    np.take(table, support[0][0], axis=j) * support[0][1])
    return [to_fraction(v) for v in np.asarray(table, dtype=object).reshape(-1)]


def best_responses(payoffs: np.ndarray, player: int, others: Sequence[Strategy]) -> list[int]:
    """Indices of ``player``'s best responses to the others' pure or mixed strategies."""
    values = action_values(payoffs, player, others)
    top = max(values)
    return [a for a, v in enumerate(values) if v == top]
