"""TrueSkill-like ratings: openskill's Thurstone–Mosteller full-pairing model (Weng & Lin
2011, Algorithm 3: the Bayesian approximation of TrueSkill's Gaussian update), replayed
over the pair outcomes in store order.

openskill (the library) is the reference, not a run-time dependency: the point estimate
and a bootstrap replay the same matches hundreds of times, and openskill rates one match
per Python call (36-50 µs: the point estimate alone of 10^5 matches took 4 s, 10^5 x 200
resamples would take 20 minutes), so :func:`replay_levels` advances the point estimate
and every resample together as numpy arrays with the same two-player update (the same
``v``, ``w``, ``ṽ``, ``w̃`` functions and guards, the same tau, kappa and draw margin; as
in openskill 6.2, a draw's "average change" step for tied teams averages already-updated
values, so each side keeps its own update), one step per level of pairs that share no
player (:mod:`accord.bench.sequential`). ``tests/bench/test_rating_methods.py`` checks that every
replay equals openskill rating that replay's own sequence, to 1e-9 (openskill is in the
``dev`` extra for that).

Ratings are converted to the leaderboard's natural-log-odds scale with the classic
probit-to-logit factor: P(a beats b) = Φ((μa − μb) / c) with c ≈ √2 β, and Φ(x) ≈
logistic(1.702 x), so θ = 1.702 μ / (√2 β).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray
from scipy.special import erfcx, ndtr

from accord.bench.sequential import Schedule, level_index, rounds_and_ends

#: openskill's defaults (mu, sigma, beta, tau, kappa, epsilon) for ThurstoneMostellerFull
MU0 = 25.0
SIGMA0 = 25.0 / 3.0
BETA = 25.0 / 6.0
TAU = 25.0 / 300.0
KAPPA = 1e-4
EPSILON = 0.1
#: probit-to-logit: Φ(x) ≈ 1 / (1 + exp(-1.702 x))
PROBIT_LOGIT = 1.702
#: log-odds units per openskill mu unit
TO_LOGIT = PROBIT_LOGIT / (math.sqrt(2.0) * BETA)
_TINY = float(np.finfo(float).eps)
_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
#: below this x, check openskill's tail guard (Φ(x) < eps starts at about x = -8.125)
_TAIL_X = -8.0


def _pdf(x: NDArray[np.float64]) -> NDArray[np.float64]:
    out: NDArray[np.float64] = np.exp(-0.5 * x * x) * _INV_SQRT_2PI
    return out


_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _win_vw(x: NDArray[np.float64], d: NDArray[np.float64]
            ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """openskill's ``v(d, t)`` and ``w(d, t)`` after a win, from ``x = d - t``: ``v`` is
    the inverse Mills ratio φ(x) / Φ(x), computed as √(2/π) / erfcx(−x/√2) (one special
    function instead of a normal pdf and cdf); openskill's guard for a vanishing Φ(x)
    (``v = -x``) applies only where Φ(x) underflows eps, i.e. x below about -8.1."""
    v = erfcx(x * -_INV_SQRT2)
    np.divide(_SQRT_2_OVER_PI, v, out=v)
    if float(x.min()) < _TAIL_X:
        tail = ndtr(x) < _TINY
        v = np.where(tail, -x, v)
        return v, np.where(tail, np.where(d < 0, 1.0, 0.0), v * (v + x))
    w = v + x
    w *= v
    return v, w


def _draw_vw(d: NDArray[np.float64], t: NDArray[np.float64]
             ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """openskill's ``ṽ(d, t)`` and ``w̃(d, t)`` after a draw (with its guards)."""
    xx = np.abs(d)
    lo, hi = -t - xx, t - xx
    b = ndtr(hi) - ndtr(lo)
    p_lo, p_hi = _pdf(lo), _pdf(hi)
    thin = b < 1e-5
    safe_b = np.where(b < _TINY, 1.0, b)
    vt = np.where(thin, np.where(d < 0, -d - t, -d + t),
                  np.where(d < 0, p_hi - p_lo, p_lo - p_hi) / np.where(thin, 1.0, b))
    wt = np.where(b < _TINY, 1.0, (hi * p_hi - lo * p_lo) / safe_b + vt * vt)
    return vt, wt


def _rate_level(g: NDArray[np.float64], n: int, wins: int) -> None:
    """One Thurstone–Mosteller update of the ``n`` pairs of a level in every replay, in
    place: ``g`` is ``(2, 2n, replays)`` (mu and sigma², winners then losers; the first
    ``wins`` pairs won, the rest drew). The same arithmetic as openskill's two-player
    update, grouped to touch each array as few times as possible (this loop is the
    bootstrap's cost)."""
    mu, var = g[0], g[1]
    s2 = var + TAU * TAU
    c2 = s2[:n] + s2[n:]
    c2 += 2.0 * BETA * BETA
    c = np.sqrt(c2)
    diff = mu[:n] - mu[n:]
    if wins == n:
        x = diff - EPSILON
        x /= c
        big_v, big_w = _win_vw(x, diff)
    else:
        d, t = diff / c, EPSILON / c
        if wins == 0:
            big_v, big_w = _draw_vw(d, t)
        else:
            big_v, big_w = np.empty_like(d), np.empty_like(d)
            big_v[:wins], big_w[:wins] = _win_vw(d[:wins] - t[:wins], d[:wins])
            big_v[wins:], big_w[wins:] = _draw_vw(d[wins:], t[wins:])
    s2 = s2.reshape(2, n, -1)
    dmu = s2 / c
    dmu *= big_v
    dmu[1] *= -1.0
    mu += dmu.reshape(2 * n, -1)
    # openskill: sigma' = r sqrt(max(1 - r s2 / (c c2) W, kappa)), r = sqrt(s2)
    fac = np.sqrt(s2)
    fac *= s2
    c *= c2
    fac /= c
    fac *= big_w
    np.subtract(1.0, fac, out=fac)
    np.maximum(fac, KAPPA, out=fac)
    fac *= s2
    var[...] = fac.reshape(2 * n, -1)


def replay_levels(sched: Schedule, winner: NDArray[np.int64], loser: NDArray[np.int64],
                  draw: NDArray[np.bool_], mult: NDArray[np.uint8],
                  episode: NDArray[np.int64], players: int
                  ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(mu, sigma)``, each ``(replays, players)``, after every replay ``k`` rates each
    pair ``t`` (``winner[t]`` beat ``loser[t]``, or drew) ``mult[episode[t], k]`` times in
    a row, the pairs in store order. ``sched`` is :func:`~accord.bench.sequential.schedule`
    of ``(winner, loser)`` keyed by ``draw`` (wins before draws within a level): one numpy
    step per level and round rates every pair of the level in every replay at once."""
    replays = mult.shape[1]
    state = np.empty((2, players, replays))
    state[0], state[1] = MU0, SIGMA0 * SIGMA0
    rounds, ends = rounds_and_ends(mult)
    order, bounds = sched.order, sched.bounds
    idx = level_index(sched, winner, loser)
    n_lv = np.diff(bounds)
    draws = np.r_[0, np.cumsum(draw[order])][bounds]
    wins = (n_lv - np.diff(draws)).tolist()
    m_o = mult[episode[order]]
    b = bounds.tolist()
    for k, n in enumerate(n_lv.tolist()):
        s, e = b[k], b[k + 1]
        at = idx[2 * s:2 * e]
        g = state[:, at]
        out = g.reshape(2, 2, n, -1)  # (mu/var, winner/loser, pair, replay)
        work = g.copy()
        mk = m_o[s:e]
        for rnd in range(1, rounds + 1):
            _rate_level(work, n, wins[k])
            if rnd in ends:  # entries counted rnd times are done: keep this round's
                out = np.where(mk == rnd, work.reshape(2, 2, n, -1), out)
        state[:, at] = out.reshape(2, 2 * n, -1)
    return state[0].T.copy(), np.sqrt(state[1].T)


__all__ = ["BETA", "EPSILON", "KAPPA", "MU0", "PROBIT_LOGIT", "SIGMA0", "TAU", "TO_LOGIT",
           "replay_levels"]
