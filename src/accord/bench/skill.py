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
_min = np.minimum.reduce


_TAU2 = TAU * TAU
_TWO_BETA2 = 2.0 * BETA * BETA
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _pdf(x: NDArray[np.float64]) -> NDArray[np.float64]:
    out: NDArray[np.float64] = np.exp(-0.5 * x * x) * _INV_SQRT_2PI
    return out


def _win_vw(x: NDArray[np.float64], d: NDArray[np.float64], v: NDArray[np.float64],
            w: NDArray[np.float64]) -> None:
    """openskill's ``v(d, t)`` and ``w(d, t)`` after a win, from ``x = d - t``, into ``v``
    and ``w``: ``v`` is the inverse Mills ratio φ(x) / Φ(x), computed as
    √(2/π) / erfcx(−x/√2) (one special function instead of a normal pdf and cdf);
    openskill's guard for a vanishing Φ(x) (``v = -x``, ``w`` 1 if ``d < 0`` else 0)
    applies only where Φ(x) underflows eps, i.e. x below about -8.1."""
    np.multiply(x, -_INV_SQRT2, out=v)
    erfcx(v, out=v)
    np.divide(_SQRT_2_OVER_PI, v, out=v)
    if _min(x, axis=None) < _TAIL_X:
        tail = ndtr(x) < _TINY
        np.copyto(v, np.negative(x), where=tail)
        w[...] = np.where(tail, np.where(d < 0, 1.0, 0.0), v * (v + x))
        return
    np.add(v, x, out=w)
    w *= v


def _draw_vw(d: NDArray[np.float64], t: NDArray[np.float64], v: NDArray[np.float64],
             w: NDArray[np.float64]) -> None:
    """openskill's ``ṽ(d, t)`` and ``w̃(d, t)`` after a draw, into ``v`` and ``w``: the
    normal cdf and pdf of both bounds ``lo = -t - |d|`` and ``hi = t - |d|`` in one call
    each, and openskill's guards (a band ``Φ(hi) - Φ(lo)`` below 1e-5, or below eps) only
    when some band is that thin."""
    xx = np.abs(d)
    lh = np.empty((2, *d.shape))
    lo, hi = lh
    np.negative(t, out=lo)
    lo -= xx
    np.subtract(t, xx, out=hi)
    cdf = ndtr(lh)
    b = cdf[1] - cdf[0]
    if _min(b, axis=None) < 1e-5:  # openskill's guards, as openskill writes them
        p_lo, p_hi = _pdf(lo), _pdf(hi)
        thin = b < 1e-5
        safe_b = np.where(b < _TINY, 1.0, b)
        v[...] = np.where(thin, np.where(d < 0, -d - t, -d + t),
                          np.where(d < 0, p_hi - p_lo, p_lo - p_hi) / np.where(thin, 1.0, b))
        w[...] = np.where(b < _TINY, 1.0, (hi * p_hi - lo * p_lo) / safe_b + v * v)
        return
    pdf = np.multiply(lh, -0.5)  # the pdf of both bounds: exp(-x²/2) / √(2π)
    pdf *= lh
    np.exp(pdf, out=pdf)
    pdf *= _INV_SQRT_2PI
    p_lo, p_hi = pdf
    np.divide(np.where(d < 0, p_hi - p_lo, p_lo - p_hi), b, out=v)
    lh *= pdf  # lo φ(lo), hi φ(hi)
    np.subtract(lh[1], lh[0], out=w)
    w /= b
    w += v * v


class _Step:
    """One Thurstone–Mosteller update of the ``n`` pairs of a level in every replay, in
    place on ``work`` (``(2, 2, n, replays)``: mu and sigma², winners then losers; the
    first ``wins`` pairs won, the rest drew). The same arithmetic as openskill's
    two-player update. Every scratch array and every view the step uses is made once per
    level shape: this step is the bootstrap's cost (about 80,000 calls for 10^5
    episodes, each on a few hundred numbers), so what counts is the number of numpy and
    Python operations per call."""

    def __init__(self, work: NDArray[np.float64], wins: int) -> None:
        n, replays = work.shape[2:]
        self.wins, self.all_won = wins, wins == n
        s2 = np.empty((2, n, replays))  # sigma² + tau², winners then losers
        num = np.empty((2, 2, n, replays))  # (s2 / c, r s2 / (c c2)), r = sqrt(s2)
        vw = np.empty((2, n, replays))  # openskill's (V, W) or (Ṽ, W̃)
        c, cc, c2, diff, x, t = np.empty((6, n, replays))
        self.views = (work[0, 0], work[0, 1], work[1], s2, s2[0], s2[1], c2, c, cc, diff,
                      x, vw[0], vw[1], num, num[0], num[1], num[0, 0], num[0, 1],
                      vw[:, None])
        k = wins
        self.mixed = (t, x[:k], t[:k], vw[0, :k], vw[1, :k], x[k:], t[k:], vw[0, k:],
                      vw[1, k:])

    def __call__(self) -> None:
        (mu_w, mu_l, var, s2, s2_w, s2_l, c2, c, cc, diff, x, v, w, num, dmu, fac,
         dmu_w, dmu_l, vw) = self.views
        np.add(var, _TAU2, out=s2)
        np.add(s2_w, s2_l, out=c2)
        c2 += _TWO_BETA2
        np.sqrt(c2, out=c)
        np.subtract(mu_w, mu_l, out=diff)
        if self.all_won:
            np.subtract(diff, EPSILON, out=x)
            x /= c
            _win_vw(x, diff, v, w)
        else:  # x holds d = diff / c here
            t, d_w, t_w, v_w, w_w, d_d, t_d, v_d, w_d = self.mixed
            np.divide(diff, c, out=x)
            np.divide(EPSILON, c, out=t)
            if self.wins:
                _win_vw(d_w - t_w, d_w, v_w, w_w)
            _draw_vw(d_d, t_d, v_d, w_d)
        # openskill: mu' = mu ± s2 / c V; sigma' = r sqrt(max(1 - r s2 / (c c2) W, kappa))
        np.divide(s2, c, out=dmu)
        np.sqrt(s2, out=fac)
        fac *= s2
        np.multiply(c, c2, out=cc)
        fac /= cc
        num *= vw
        mu_w += dmu_w
        mu_l -= dmu_l
        np.subtract(1.0, fac, out=fac)
        np.maximum(fac, KAPPA, out=fac)
        np.multiply(fac, s2, out=var)


def _level_rows(idx: NDArray[np.int64], bounds: NDArray[np.int64], players: int
                ) -> NDArray[np.int64]:
    """Rows of the ``(2 players, replays)`` state (mu rows, then sigma² rows) of every
    level: level ``k`` occupies ``[4 bounds[k], 4 bounds[k + 1])``, its players' mu rows
    (winners, losers; ``idx`` is :func:`~accord.bench.sequential.level_index`), then the
    same players' sigma² rows."""
    n_lv = np.diff(bounds)
    lv = np.repeat(np.arange(len(n_lv)), 2 * n_lv)
    pos = np.arange(len(idx)) + 2 * bounds[lv]
    rows = np.empty(2 * len(idx), dtype=np.int64)
    rows[pos], rows[pos + 2 * n_lv[lv]] = idx, idx + players
    return rows


def replay_levels(sched: Schedule, winner: NDArray[np.int64], loser: NDArray[np.int64],
                  draw: NDArray[np.bool_], mult: NDArray[np.uint8],
                  episode: NDArray[np.int64], players: int
                  ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(mu, sigma)``, each ``(replays, players)``, after every replay ``k`` rates each
    pair ``t`` (``winner[t]`` beat ``loser[t]``, or drew) ``mult[episode[t], k]`` times in
    a row, the pairs in store order. ``sched`` is :func:`~accord.bench.sequential.schedule`
    of ``(winner, loser)`` keyed by ``draw`` (wins before draws within a level): one numpy
    step per level and round rates every pair of the level in every replay at once (the
    rows, masks and scratch arrays of every level are made once, before the loop)."""
    replays = mult.shape[1]
    state = np.empty((2 * players, replays))  # mu rows, then sigma² rows
    state[:players], state[players:] = MU0, SIGMA0 * SIGMA0
    rounds, ends = rounds_and_ends(mult)
    order, bounds = sched.order, sched.bounds
    n_lv = np.diff(bounds)
    rows = _level_rows(level_index(sched, winner, loser), bounds, players)
    draws = np.r_[0, np.cumsum(draw[order])][bounds]
    wins = (n_lv - np.diff(draws)).tolist()
    m_o = mult[episode[order]]
    # entries counted rnd times are final after round rnd; when every entry counts the
    # same number of times, the rounds update the gathered rows in place
    uniform = bool(mult.size) and int(mult.min()) == rounds  # min, not a 20 MB mask
    # rounds after which some entries are final; their masks are made per level (made
    # once for the whole store, each would hold 20 MB for 10^5 episodes x 201 replays)
    done = set(ends)
    # per level size: the gathered rows, a working copy and its steps (one per win count)
    gath = {n: np.empty((4 * n, replays)) for n in set(n_lv.tolist())}
    works = {n: np.empty((2, 2, n, replays)) for n in gath}
    steps = {(n, w): _Step(works[n], w) for n, w in set(zip(n_lv.tolist(), wins, strict=True))}
    b = bounds.tolist()
    for k, n in enumerate(n_lv.tolist()):
        s, e = b[k], b[k + 1]
        at = rows[4 * s:4 * e]
        g = np.take(state, at, axis=0, out=gath[n])
        step = steps[n, wins[k]]
        if uniform:
            work = g.reshape(2, 2, n, replays)
            np.copyto(works[n], work)
            for _ in range(rounds):
                step()
            state[at] = works[n].reshape(4 * n, replays)
            continue
        out = g.reshape(2, 2, n, replays)  # (mu/var, winner/loser, pair, replay)
        work = works[n]
        np.copyto(work, out)
        for rnd in range(1, rounds + 1):
            step()
            if rnd in done:  # entries counted rnd times are done: keep this round's
                out = np.where(m_o[s:e] == rnd, work, out)
        state[at] = out.reshape(4 * n, replays)
    return state[:players].T.copy(), np.sqrt(state[players:].T)


__all__ = ["BETA", "EPSILON", "KAPPA", "MU0", "PROBIT_LOGIT", "SIGMA0", "TAU", "TO_LOGIT",
           "replay_levels"]
