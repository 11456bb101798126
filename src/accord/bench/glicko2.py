"""Glicko-2 (Glickman, "Example of the Glicko-2 system", 2022 revision of the 2001 note)
over rating periods, vectorised over many replays at once (the point estimate and every
bootstrap resample advance together: each resample counts each game 0, 1 or more times,
see :mod:`accord.bench.sequential`).

No well-kept library fits: openskill implements the Weng–Lin models but not Glicko-2, and
the small Glicko-2 packages on PyPI update one player object at a time (10^5 episodes x
200 resamples would take hours). The algorithm is the note's steps 1-8, on numpy arrays of
shape ``(replays, players)``; ``tests/bench/test_glicko2.py`` checks it against the note's
worked example (1500/200/0.06 against 1400/30, 1550/100, 1700/300 with results 1, 0, 0 ->
1464.06 / 151.52 / 0.05999).

Pure functions: no I/O, randomness only through the caller's weights.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.special import expit

#: Glicko-2's scale factor: rating = 1500 + SCALE * mu (the same 400 / ln 10 as Elo)
SCALE = 173.7178
#: the system constant tau (constrains the change of volatility; Glickman: 0.3 to 1.2)
TAU = 0.5
#: a new player's rating deviation and volatility on the Glicko scale
RD0 = 350.0
SIGMA0 = 0.06
#: convergence tolerance of the volatility iteration (the note's epsilon)
EPS = 1e-6


@dataclass
class Glicko2State:
    """Ratings of ``players`` in ``replays`` parallel replays, on the Glicko-2 scale:
    ``mu`` (log-odds units), ``phi`` (deviation) and ``sigma`` (volatility), each
    ``(replays, players)``."""

    mu: NDArray[np.float64]
    phi: NDArray[np.float64]
    sigma: NDArray[np.float64]

    @classmethod
    def new(cls, replays: int, players: int) -> Glicko2State:
        """Everyone unrated: rating 1500, RD 350, volatility 0.06."""
        shape = (replays, players)
        return cls(np.zeros(shape), np.full(shape, RD0 / SCALE), np.full(shape, SIGMA0))


def _g(phi: NDArray[np.float64]) -> NDArray[np.float64]:
    out: NDArray[np.float64] = 1.0 / np.sqrt(1.0 + 3.0 * phi * phi / (math.pi ** 2))
    return out


def _volatility(sigma: NDArray[np.float64], phi: NDArray[np.float64],
                v: NDArray[np.float64], delta: NDArray[np.float64], tau: float
                ) -> NDArray[np.float64]:
    """Step 5: the new volatility by the Illinois algorithm, for every entry at once."""
    a = np.log(sigma * sigma)
    d2, p2 = delta * delta, phi * phi

    def f(x: NDArray[np.float64]) -> NDArray[np.float64]:
        ex = np.exp(x)
        out: NDArray[np.float64] = (ex * (d2 - p2 - v - ex) / (2.0 * (p2 + v + ex) ** 2)
                                    - (x - a) / (tau * tau))
        return out

    big = d2 > p2 + v
    lo = a.copy()
    hi = np.where(big, np.log(np.where(big, d2 - p2 - v, 1.0)), a - tau)
    todo = ~big & (f(hi) < 0)
    k = 1
    while todo.any() and k < 1000:  # the note's "k = k + 1 while f(a - k tau) < 0"
        k += 1
        hi = np.where(todo, a - k * tau, hi)
        todo = todo & (f(hi) < 0)
    f_lo, f_hi = f(lo), f(hi)
    # iterate only on the entries still bracketing (most converge in a few steps): the
    # arrays are compressed to them whenever fewer than half remain
    idx = np.flatnonzero(np.abs(hi - lo) > EPS)
    live = np.ones(len(idx), dtype=bool)
    a, d2, p2, v = a[idx], d2[idx], p2[idx], v[idx]
    sub = (lo[idx], hi[idx], f_lo[idx], f_hi[idx])
    for _ in range(200):
        if not len(idx):
            break
        s_lo, s_hi, s_flo, s_fhi = sub
        c = s_lo + (s_lo - s_hi) * s_flo / np.where(s_fhi == s_flo, 1.0, s_fhi - s_flo)
        f_c = f(c)
        swap = live & (f_c * s_fhi <= 0)
        s_lo = np.where(swap, s_hi, s_lo)
        s_flo = np.where(swap, s_fhi, np.where(live, s_flo / 2.0, s_flo))
        s_hi = np.where(live, c, s_hi)
        s_fhi = np.where(live, f_c, s_fhi)
        live &= np.abs(s_hi - s_lo) > EPS
        sub = (s_lo, s_hi, s_flo, s_fhi)
        n_live = int(np.count_nonzero(live))
        if 2 * n_live <= len(idx):  # write back the finished ones and compress
            lo[idx] = s_lo
            idx, a, d2, p2, v = idx[live], a[live], d2[live], p2[live], v[live]
            sub = (s_lo[live], s_hi[live], s_flo[live], s_fhi[live])
            live = np.ones(n_live, dtype=bool)
    if len(idx):
        lo[idx] = sub[0]
    out: NDArray[np.float64] = np.exp(lo / 2.0)
    return out


def rate_period(state: Glicko2State, a: NDArray[np.int64], b: NDArray[np.int64],
                result: NDArray[np.float64], tau: float = TAU,
                weight: NDArray[np.floating[Any]] | NDArray[np.integer[Any]] | None = None
                ) -> Glicko2State:
    """One rating period in which every replay played the games ``a[t]`` vs ``b[t]`` with
    ``result[t]`` (1: ``a`` won, 0.5 a draw, 0 lost; a single row ``(1, games)`` is
    accepted too), replay ``k`` counting game ``t`` ``weight[k, t]`` times (default once):
    the period's sums are over games, so a weight of 2 is exactly the game played twice in
    the period, 0 not played. Steps 3-8 of the note, each player rated against the
    pre-period ratings of its opponents; a player without games only has its deviation
    grown (step 6)."""
    p = state.mu.shape[1]
    a, b = np.asarray(a).reshape(-1), np.asarray(b).reshape(-1)
    res = np.asarray(result, dtype=np.float64).reshape(-1)
    n = len(a)
    # the games are shared by every replay: a player's sums over its games are one small
    # matrix product with the game -> player incidence, not a scatter per replay
    one_a, one_b = np.zeros((n, p)), np.zeros((n, p))
    one_a[np.arange(n), a] = 1.0
    one_b[np.arange(n), b] = 1.0
    g = _g(state.phi)  # per (replay, player), then read per game: cheaper than per game
    g_a, g_b = g[:, a], g[:, b]
    diff = state.mu[:, a] - state.mu[:, b]
    e_a = expit(g_b * diff)  # a's expected score against b, E(mu_a | mu_b, phi_b)
    e_b = expit(-g_a * diff)
    v_a = g_b * g_b
    v_a *= e_a * (1.0 - e_a)
    v_b = g_a * g_a
    v_b *= e_b * (1.0 - e_b)
    d_a = g_b * (res - e_a)
    d_b = g_a * ((1.0 - res) - e_b)
    if weight is not None:
        w = np.asarray(weight, dtype=np.float64)
        v_a *= w
        v_b *= w
        d_a *= w
        d_b *= w
    vinv = v_a @ one_a + v_b @ one_b
    dsum = d_a @ one_a + d_b @ one_b
    played = vinv > 0
    v = np.where(played, 1.0 / np.where(played, vinv, 1.0), 0.0)  # only read where played
    delta = v * dsum
    sigma = state.sigma.copy()
    if played.any():
        sigma[played] = _volatility(state.sigma[played], state.phi[played], v[played],
                                    delta[played], tau)
    phi_star = np.sqrt(state.phi ** 2 + sigma ** 2)
    new_phi = np.where(played, 1.0 / np.sqrt(1.0 / phi_star ** 2 + vinv), phi_star)
    new_mu = state.mu + np.where(played, new_phi ** 2 * dsum, 0.0)
    return Glicko2State(new_mu, new_phi, np.where(played, sigma, state.sigma))


__all__ = ["EPS", "RD0", "SCALE", "SIGMA0", "TAU", "Glicko2State", "rate_period"]
