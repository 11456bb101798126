"""TrueSkill-like ratings: openskill's Thurstone–Mosteller full-pairing model (Weng & Lin
2011, Algorithm 3: the Bayesian approximation of TrueSkill's Gaussian update), replayed
over the pair outcomes in store order.

The point estimate is openskill's own ``ThurstoneMostellerFull.rate`` (the library is the
reference). A bootstrap needs the same replay hundreds of times over resampled matches,
and openskill rates one match per Python call (about 50 µs: 10^5 matches x 200 resamples
would take 20 minutes), so :func:`replay_many` advances every resample together as numpy
vectors with the same two-player update (the same ``v``, ``w``, ``ṽ``, ``w̃`` functions,
the same tau, kappa and draw margin; as in openskill 6.2, a draw's "average change" step
for tied teams averages already-updated values, so each side keeps its own update).
``tests/bench/test_rating_methods.py`` checks that it matches openskill to 1e-9.

Ratings are converted to the leaderboard's natural-log-odds scale with the classic
probit-to-logit factor: P(a beats b) = Φ((μa − μb) / c) with c ≈ √2 β, and Φ(x) ≈
logistic(1.702 x), so θ = 1.702 μ / (√2 β).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from numpy.typing import NDArray
from scipy.special import ndtr

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


def openskill_replay(i: NDArray[np.int64], j: NDArray[np.int64],
                     result: NDArray[np.float64], players: int
                     ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(mu, sigma)`` of every player after openskill rates the pairs in order (``i``
    beat ``j`` when ``result`` is 1, lost at 0, drew at 0.5)."""
    from openskill.models import ThurstoneMostellerFull

    model = ThurstoneMostellerFull()
    ratings = [model.rating() for _ in range(players)]
    for a, b, r in zip(i.tolist(), j.tolist(), result.tolist(), strict=True):
        ranks = [0.0, 0.0] if r == 0.5 else [0.0, 1.0] if r == 1.0 else [1.0, 0.0]
        [[ra], [rb]] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
        ratings[a], ratings[b] = ra, rb
    return (np.asarray([x.mu for x in ratings]), np.asarray([x.sigma for x in ratings]))


def _pdf(x: NDArray[np.float64]) -> NDArray[np.float64]:
    out: NDArray[np.float64] = np.exp(-0.5 * x * x) * _INV_SQRT_2PI
    return out


_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def update(mu_w: NDArray[np.float64], sg_w: NDArray[np.float64], mu_l: NDArray[np.float64],
           sg_l: NDArray[np.float64], draw: NDArray[np.bool_]
           ) -> tuple[NDArray[np.float64], ...]:
    """One two-player Thurstone–Mosteller full-pairing update for many matches at once,
    the winner first (either side when ``draw``): new ``(mu_w, sigma_w, mu_l, sigma_l)``.

    openskill's per-team sums reduce, for two players, to one ``V`` and one ``W`` shared
    by both sides: the winner gains ``σw²/c V`` and the loser loses ``σl²/c V``, with
    ``V, W = v(d, t), w(d, t)`` after a win and ``ṽ(d, t), w̃(d, t)`` after a draw
    (``ṽ`` is odd and ``w̃`` even in ``d``), ``d = (μw − μl) / c``, ``t = ε / c``."""
    sw2 = sg_w * sg_w + TAU * TAU
    sl2 = sg_l * sg_l + TAU * TAU
    c2 = sw2 + sl2 + 2.0 * BETA * BETA
    c = np.sqrt(c2)
    d = (mu_w - mu_l) / c
    t = EPSILON / c
    # a win: v(d, t) and w(d, t) (openskill's guards for a vanishing normal tail)
    x = d - t
    den = ndtr(x)
    tail = den < _TINY
    v = np.where(tail, -x, _pdf(x) / np.where(tail, 1.0, den))
    w = np.where(tail, np.where(d < 0, 1.0, 0.0), v * (v + x))
    # a draw: ṽ(d, t) and w̃(d, t)
    xx = np.abs(d)
    lo, hi = -t - xx, t - xx
    b = ndtr(hi) - ndtr(lo)
    p_lo, p_hi = _pdf(lo), _pdf(hi)
    thin = b < 1e-5
    safe_b = np.where(b < _TINY, 1.0, b)
    vt = np.where(thin, np.where(d < 0, -d - t, -d + t),
                  np.where(d < 0, p_hi - p_lo, p_lo - p_hi) / np.where(thin, 1.0, b))
    wt = np.where(b < _TINY, 1.0, (hi * p_hi - lo * p_lo) / safe_b + vt * vt)
    big_v = np.where(draw, vt, v)
    big_w = np.where(draw, wt, w)
    rw, rl = np.sqrt(sw2), np.sqrt(sl2)
    new_sw = rw * np.sqrt(np.maximum(1.0 - rw * sw2 / (c * c2) * big_w, KAPPA))
    new_sl = rl * np.sqrt(np.maximum(1.0 - rl * sl2 / (c * c2) * big_w, KAPPA))
    return mu_w + sw2 / c * big_v, new_sw, mu_l - sl2 / c * big_v, new_sl


def replay_many(blocks: Iterable[NDArray[np.int64]], i: NDArray[np.int64],
                j: NDArray[np.int64], result: NDArray[np.float64], players: int,
                replays: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(mu, sigma)``, each ``(replays, players)``, after every replay ``k`` rates the
    pairs ``blk[k, t]`` of each block in order (``blk``: ``(replays, steps)`` indices into
    ``i``, ``j``, ``result``)."""
    mu = np.full(replays * players, MU0)
    sg = np.full(replays * players, SIGMA0)
    base = np.arange(replays)[:, None] * players
    lost = result == 0.0
    win_idx, lose_idx = np.where(lost, j, i), np.where(lost, i, j)
    for blk in blocks:
        fw, fl, draw = base + win_idx[blk], base + lose_idx[blk], result[blk] == 0.5
        for t in range(blk.shape[1]):
            a, b = fw[:, t], fl[:, t]
            mu[a], sg[a], mu[b], sg[b] = update(mu[a], sg[a], mu[b], sg[b], draw[:, t])
    return mu.reshape(replays, players), sg.reshape(replays, players)


__all__ = ["BETA", "EPSILON", "KAPPA", "MU0", "PROBIT_LOGIT", "SIGMA0", "TAU", "TO_LOGIT",
           "openskill_replay", "replay_many", "update"]
