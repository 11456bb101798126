"""Exact payoff arrays shared by the game solvers.

A normal-form game with ``n`` players is an array of shape ``(k_1, ..., k_n, n)``:
``U[a_1, ..., a_n, i]`` is player ``i``'s payoff at the action profile ``(a_1, ..., a_n)``.
Solvers keep payoffs exact: an integer game is an ``int64`` array, any other rational game
an ``object`` array of :class:`fractions.Fraction`. Best responses are invariant under a
positive scaling of one player's payoffs, so the solvers work on per-player integer
rescalings (:func:`integer_payoffs`) and never compare floats.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import numpy as np

#: integers whose magnitude stays below this survive int64 sums of a few thousand terms
_INT64_SAFE = 2**52


def to_fraction(value: Any) -> Fraction:
    """An exact :class:`Fraction` from an int, Fraction, float or numeric string.

    Floats are read through their shortest decimal repr, so ``0.1`` becomes ``1/10``.
    Booleans are refused: ``True`` is an ``int`` in Python but never a payoff.
    """
    if isinstance(value, bool):
        raise TypeError(f"expected a number, got the boolean {value!r}")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int | np.integer):
        return Fraction(int(value))
    if isinstance(value, float | np.floating):
        if not math.isfinite(float(value)):
            raise ValueError(f"payoff must be finite, got {value!r}")
        return Fraction(repr(float(value)))
    if isinstance(value, str):
        try:
            return Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{value!r} is not a number (use 3, -1.5 or 7/2)") from None
    raise TypeError(f"expected a number, got {type(value).__name__} {value!r}")


def exact_array(values: Any) -> np.ndarray:
    """An exact array from nested numbers: ``int64`` when all are small integers, else Fractions."""
    raw = np.asarray(values, dtype=object)
    flat = [to_fraction(v) for v in raw.reshape(-1)]
    if all(f.denominator == 1 and abs(f.numerator) < _INT64_SAFE for f in flat):
        return np.array([f.numerator for f in flat], dtype=np.int64).reshape(raw.shape)
    out = np.empty(len(flat), dtype=object)
    out[:] = flat
    return out.reshape(raw.shape)


def is_integer_array(u: np.ndarray) -> bool:
    """True for a native integer array (exact, fast comparisons)."""
    return np.issubdtype(u.dtype, np.integer)


def _lcm_of_denominators(values: Iterable[Any]) -> int:
    lcm = 1
    for v in values:
        lcm = math.lcm(lcm, to_fraction(v).denominator)
    return lcm


def integer_payoffs(u: np.ndarray) -> tuple[np.ndarray, tuple[int, ...]]:
    """Rescale each player's payoffs (last axis) by a positive integer so all are integers.

    Returns the integer array (``int64`` when it fits, else ``object`` of Python ints) and
    the per-player scale factors. Positive scaling leaves every best response, dominance
    relation, Nash equilibrium and Pareto comparison of the game unchanged.
    """
    if is_integer_array(u):
        return u, tuple(1 for _ in range(u.shape[-1]))
    n = u.shape[-1]
    scales = tuple(_lcm_of_denominators(u[..., i].reshape(-1)) for i in range(n))
    ints = np.empty(u.shape, dtype=object)
    for i in range(n):
        col = u[..., i].reshape(-1)
        ints[..., i] = np.array(
            [int(to_fraction(v) * scales[i]) for v in col], dtype=object
        ).reshape(u.shape[:-1])
    big = max((abs(int(v)) for v in ints.reshape(-1)), default=0)
    if big < _INT64_SAFE:
        return ints.astype(np.int64), scales
    return ints, scales


def fraction_of(u: np.ndarray, index: tuple[int, ...]) -> tuple[Fraction, ...]:
    """The exact payoff vector at one profile of a payoff array."""
    return tuple(to_fraction(v) for v in u[index])


def check_payoff_array(u: np.ndarray, players: int | None = None) -> None:
    """Raise ``ValueError`` unless ``u`` has shape ``(k_1, ..., k_n, n)``, every ``k_i >= 1``."""
    if u.ndim < 2:
        raise ValueError(f"payoff array needs shape (k_1, ..., k_n, n), got {u.shape}")
    n = u.shape[-1]
    if u.ndim - 1 != n:
        raise ValueError(f"payoff array of shape {u.shape} has {u.ndim - 1} action axes "
                         f"but {n} payoffs per profile")
    if players is not None and n != players:
        raise ValueError(f"expected {players} players, payoff array has {n}")
    if any(k < 1 for k in u.shape[:-1]):
        raise ValueError(f"every player needs at least one action, got shape {u.shape}")
