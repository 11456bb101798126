"""Nash-equilibrium invariant perturbations (seed 003, Definition 13).

A perturbation ``delta`` turns payoffs ``pi`` into ``pi + delta``; it is *NE-invariant* when
the perturbed game has the same set of Nash equilibria. The seed's variations (Tables 20-21)
keep the set of *pure* equilibria but may move mixed ones (Stag Hunt variation 1 moves the
mixed equilibrium from 1/3 to 1/300), so the pure set is the default test and
``mixed=True`` also demands the same two-player mixed (extreme) equilibria.

Generators (all draw from an explicit ``numpy.random.Generator`` and are verified before
they are returned):

- ``affine``: each player's payoffs become ``a_i * pi_i + b_i`` with integer ``a_i >= 1``;
  every best response is unchanged, so pure *and* mixed equilibria are preserved.
- ``opponent-shift``: adds to player ``i`` an amount that depends only on the *others'*
  actions; best responses, hence all equilibria, are unchanged, while the numbers (and
  which profile looks "fair") change a lot. The seed's variations are of this flavour.
- ``noise``: independent integer noise on every payoff, redrawn until the equilibrium set
  is unchanged (rejection sampling, at most ``max_attempts`` draws).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from accord.solvers.nash import pure_nash
from accord.solvers.nash_mixed import mixed_nash
from accord.solvers.payoff_arrays import check_payoff_array, exact_array

Method = Literal["affine", "opponent-shift", "noise"]


@dataclass(frozen=True, eq=False)
class Perturbation:
    """A verified NE-invariant perturbation: the new payoffs and ``delta = new - old``."""

    payoffs: np.ndarray
    delta: np.ndarray
    method: str
    attempts: int


def same_equilibria(original: np.ndarray, perturbed: np.ndarray, *, mixed: bool = False
                    ) -> bool:
    """Whether two payoff arrays of one shape have the same Nash equilibria.

    Compares pure equilibria; with ``mixed=True`` (two players only) also the exact mixed
    (extreme) equilibria.
    """
    check_payoff_array(original)
    check_payoff_array(perturbed)
    if original.shape != perturbed.shape:
        raise ValueError(f"games differ in shape: {original.shape} vs {perturbed.shape}")
    if pure_nash(original) != pure_nash(perturbed):
        return False
    if mixed:
        if original.shape[-1] != 2:
            raise ValueError("mixed=True needs a two-player game")
        return (mixed_nash(original[..., 0], original[..., 1])
                == mixed_nash(perturbed[..., 0], perturbed[..., 1]))
    return True


def is_ne_invariant(original: np.ndarray, delta: np.ndarray, *, mixed: bool = False) -> bool:
    """Definition 13: does adding ``delta`` keep the set of Nash equilibria."""
    return same_equilibria(original, exact_array(original + delta), mixed=mixed)


def _draw(u: np.ndarray, method: Method, rng: np.random.Generator, magnitude: int
          ) -> np.ndarray:
    n = u.shape[-1]
    shape = u.shape[:-1]
    delta = np.zeros(u.shape, dtype=object)
    if method == "affine":
        for i in range(n):
            a = int(rng.integers(1, magnitude + 1))
            b = int(rng.integers(-magnitude, magnitude + 1))
            delta[..., i] = u[..., i] * (a - 1) + b
    elif method == "opponent-shift":
        for i in range(n):
            others = list(shape)
            others[i] = 1  # constant along the player's own axis
            shift = rng.integers(-magnitude, magnitude + 1, size=others).astype(object)
            delta[..., i] = np.broadcast_to(shift, shape)
    elif method == "noise":
        delta[...] = rng.integers(-magnitude, magnitude + 1, size=u.shape).astype(object)
    else:
        raise ValueError(f"unknown perturbation method {method!r}; "
                         "use 'affine', 'opponent-shift' or 'noise'")
    return delta


def nash_invariant_perturbation(
    payoffs: np.ndarray,
    rng: np.random.Generator,
    *,
    method: Method = "opponent-shift",
    magnitude: int = 10,
    mixed: bool = False,
    max_attempts: int = 1000,
) -> Perturbation:
    """Draw a perturbation with ``method`` and verify it keeps the equilibrium set.

    ``magnitude`` bounds the integer draws (shifts and noise in ``[-magnitude, magnitude]``,
    affine scales in ``[1, magnitude]``). Raises ``RuntimeError`` when no draw in
    ``max_attempts`` keeps the equilibria (possible only for ``noise``).
    """
    check_payoff_array(payoffs)
    if magnitude < 1:
        raise ValueError(f"magnitude must be >= 1, got {magnitude}")
    u = exact_array(payoffs)
    for attempt in range(1, max_attempts + 1):
        delta = _draw(u, method, rng, magnitude)
        new = exact_array(u + delta)
        if same_equilibria(u, new, mixed=mixed):
            return Perturbation(new, exact_array(delta), method, attempt)
    raise RuntimeError(f"no NE-invariant {method} perturbation of magnitude {magnitude} "
                       f"found in {max_attempts} attempts")
