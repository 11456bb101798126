"""The store-order bootstrap of the sequential rating methods (Elo, Glicko-2, TrueSkill):
episode multiplicities, a schedule of the pairs in parallel levels, and Elo's replay.

A sequential method rates the pairs in store order, so its bootstrap must replay a whole
sequence per resample. Replaying each resample's own drawn sequence takes one vector step
per pair (10^5 steps for 10^5 episodes, whatever numpy does inside a step). Here every
resample keeps **store order** and differs only in how many times it counts each episode:

- :func:`double_or_nothing` draws the multiplicities: each episode counts 0 or 2 times with
  probability 1/2 each, independently per resample (Owen & Eckles 2012, "Bootstrapping data
  arrays of arbitrary order"). Like the classic bootstrap's multinomial counts they have
  mean 1 and variance 1, and since they are 0 or 2, a resample is a real sequence of
  matches: the kept episodes in store order, each rated twice in a row (Glicko-2 rates the
  second copy in the next rating period instead, see :func:`glicko2`).
- :func:`schedule` cuts the pair sequence into *levels*: a pair's level is one more than
  the last level of either of its players, so the pairs of one level share no player and
  rating a level at once (every resample and every pair of the level in one numpy step)
  equals rating its pairs one after another. 10^5 pairs among 12 players make about
  4 x 10^4 levels; the schedule is the same for every resample.

Pure functions over arrays; randomness only through the caller's generator.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.special import expit

from accord.bench.ratings import ELO_K, ELO_SCALE, Pairs, centred


@dataclass(frozen=True)
class Schedule:
    """Pairs grouped into levels: ``order[bounds[k]:bounds[k + 1]]`` are the pair indices
    of level ``k`` (no player twice in a level; levels in the order they must be rated)."""

    order: NDArray[np.int64]
    bounds: NDArray[np.int64]

    def levels(self) -> Iterator[NDArray[np.int64]]:
        """The pair indices of each level, in order."""
        order, bounds = self.order, self.bounds.tolist()
        for k in range(len(bounds) - 1):
            yield order[bounds[k]:bounds[k + 1]]


def schedule(i: NDArray[np.int64], j: NDArray[np.int64],
             key: NDArray[np.int64] | None = None) -> Schedule:
    """The levels of the pair sequence ``i[t]`` vs ``j[t]`` (see the module docstring);
    within a level, pairs are sorted by ``key`` (e.g. wins before draws), then store
    order."""
    m = len(i)
    level = np.zeros(m, dtype=np.int64)
    if m:
        last: dict[int, int] = {}
        lv = [0] * m
        get = last.get
        for t, (a, b) in enumerate(zip(i.tolist(), j.tolist(), strict=True)):
            la, lb = get(a, -1), get(b, -1)
            x = (la if la > lb else lb) + 1
            last[a] = last[b] = lv[t] = x
        level = np.asarray(lv, dtype=np.int64)
    keys = (level,) if key is None else (key, level)
    order = np.lexsort(keys).astype(np.int64)  # stable: store order within a level
    sizes = np.bincount(level) if m else np.zeros(0, dtype=np.int64)
    bounds = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    return Schedule(order, bounds)


def double_or_nothing(rng: np.random.Generator, episodes: int, boot: int
                      ) -> NDArray[np.uint8]:
    """Multiplicities ``(episodes, boot)``: 0 or 2 with probability 1/2 each (column ``k``
    is resample ``k``; ``uint8`` keeps 10^5 x 200 at 20 MB)."""
    out: NDArray[np.uint8] = rng.integers(0, 2, size=(episodes, boot), dtype=np.uint8)
    out <<= 1
    return out


def level_index(sched: Schedule, a: NDArray[np.int64], b: NDArray[np.int64]
                 ) -> NDArray[np.int64]:
    """For every level, its ``a`` players then its ``b`` players: level ``k`` occupies
    ``[2 bounds[k], 2 bounds[k + 1])`` (one gather and one scatter per level)."""
    order, bounds = sched.order, sched.bounds
    n_lv = np.diff(bounds)
    lv = np.repeat(np.arange(len(n_lv)), n_lv)
    pos = np.arange(len(order)) + bounds[lv]
    idx = np.empty(2 * len(order), dtype=np.int64)
    idx[pos], idx[pos + n_lv[lv]] = a[order], b[order]
    return idx


def rounds_and_ends(mult: NDArray[np.uint8]) -> tuple[int, list[int]]:
    """The most rounds any pair needs, and the multiplicities that occur (after that many
    rounds, those entries are final)."""
    top = int(mult.max()) if mult.size else 0
    return top, [r for r in range(1, top + 1) if (mult == r).any()]  # no int64 copy


def elo_replay(sched: Schedule, i: NDArray[np.int64], j: NDArray[np.int64],
               result: NDArray[np.float64], mult: NDArray[np.uint8],
               episode: NDArray[np.int64], players: int, scale: float
               ) -> NDArray[np.float64]:
    """Log-strengths ``(replays, players)`` after a sequential Elo (step ``scale`` in
    log-strength units, everyone starting at 0) rates, in every replay ``k``, each pair
    ``t`` ``mult[episode[t], k]`` times in a row, the pairs in store order (``sched`` is
    :func:`schedule` of ``(i, j)``)."""
    th = np.zeros((players, mult.shape[1]))
    rounds, ends = rounds_and_ends(mult)
    order, bounds = sched.order, sched.bounds.tolist()
    idx = level_index(sched, i, j)
    sr2 = (2.0 * scale * result[order])[:, None]  # the difference moves by twice a step
    m_o = mult[episode[order]]
    for k in range(len(bounds) - 1):
        s, e = bounds[k], bounds[k + 1]
        n = e - s
        at = idx[2 * s:2 * e]
        g = th[at]
        d0 = g[:n] - g[n:]
        d, total = d0, np.zeros_like(d0)
        for rnd in range(1, rounds + 1):
            step = expit(d)
            step *= -2.0 * scale
            step += sr2[s:e]
            d = d + step
            if rnd in ends:  # pairs counted rnd times stop here
                total = np.where(m_o[s:e] == rnd, d, total if rnd > ends[0] else d0)
        total -= d0
        total *= 0.5
        g[:n] += total
        g[n:] -= total
        th[at] = g
    out: NDArray[np.float64] = th.T.copy()
    return out


def elo_point(i: NDArray[np.int64], j: NDArray[np.int64], result: NDArray[np.float64],
              players: int, scale: float) -> NDArray[np.float64]:
    """Log-strengths after one sequential Elo pass over the pairs in store order (plain
    Python floats: faster than numpy for one replay)."""
    th = [0.0] * players
    for a, b, r in zip(i.tolist(), j.tolist(), result.tolist(), strict=True):
        step = scale * (r - 1.0 / (1.0 + math.exp(th[b] - th[a])))
        th[a] += step
        th[b] -= step
    return np.asarray(th, dtype=np.float64)


# --- the sequential rating methods (behind accord.bench.ratings.RatingMethod) -------------
def elo(pairs: Pairs, boot: int, rng: np.random.Generator
        ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Sequential Elo (K = 32, everyone starts level) over the pairs in store order; the
    bootstrap replays the same order with :func:`double_or_nothing` multiplicities."""
    p, m = len(pairs.players), len(pairs.i)
    scale = ELO_K / ELO_SCALE  # work in log-strength units
    point = centred(elo_point(pairs.i, pairs.j, pairs.result, p, scale))
    if not boot or not m:
        return point, np.zeros((boot, p))
    mult = double_or_nothing(rng, pairs.episodes, boot)
    boots = elo_replay(schedule(pairs.i, pairs.j), pairs.i, pairs.j, pairs.result, mult,
                       pairs.episode, p, scale)
    return point, centred(boots)


#: pairs per Glicko-2 rating period, per rated player (Glickman suggests periods in which
#: each player plays 10-15 games: 5 pairs per player gives each about 10)
GLICKO2_PAIRS_PER_PLAYER = 5


def glicko2_periods(pairs: Pairs, keep: NDArray[np.uint8] | None, size: int
                    ) -> Iterator[tuple[NDArray[np.int64], NDArray[np.uint8]]]:
    """The rating periods of :func:`glicko2`: ``(at, weight)`` with ``at`` the pair
    indices rated in the period and ``weight[k, t]`` how many times replay ``k`` counts
    pair ``at[t]`` there. Replay 0 (the point estimate) counts each period's ``size``
    pairs once; replay ``k >= 1`` counts a pair whose episode it keeps (``keep[episode,
    k - 1]`` is 1) once in its period and once in the next (one more period after the
    last: replay 0 does not play it), so no period holds a game twice."""
    m = len(pairs.i)
    boot = 0 if keep is None else keep.shape[1]
    prev = np.zeros(0, dtype=np.int64)
    for start in [*range(0, m, size), m]:
        own = np.arange(start, min(start + size, m))
        at = np.r_[prev, own]  # last period's kept pairs again, then this period's
        weight = np.zeros((1 + boot, len(at)), dtype=np.uint8)
        weight[0, len(prev):] = 1
        if keep is not None:
            weight[1:] = keep[pairs.episode[at]].T
        if len(at) and (start < m or keep is not None):
            yield at, weight
        prev = own


def glicko2(pairs: Pairs, boot: int, rng: np.random.Generator
            ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Glicko-2 (:mod:`accord.bench.glicko2`, Glickman's algorithm, tau = 0.5) over rating
    periods of ``5 x players`` pairs in store order, every bootstrap resample advanced
    together with the point estimate. A resample counts each episode twice or not at all
    (:func:`double_or_nothing`), a kept one **once in its own period and once in the
    next** (:func:`glicko2_periods`): Glicko-2 estimates each player's volatility from the
    scatter of its results within a period, and the same game twice in one period is
    scatter no real period has (over 10^5 episodes the volatilities of some resamples grew
    without bound). Log-strengths are the Glicko-2 ``mu`` (natural-log odds), centred."""
    from accord.bench.glicko2 import TAU, Glicko2State, rate_period

    p = len(pairs.players)
    keep = double_or_nothing(rng, pairs.episodes, boot) // 2 if boot else None
    state = Glicko2State.new(1 + boot, p)
    for at, weight in glicko2_periods(pairs, keep, max(1, GLICKO2_PAIRS_PER_PLAYER * p)):
        if not weight[0].any():  # the period after the last: the resamples' only
            rest = Glicko2State(state.mu[1:], state.phi[1:], state.sigma[1:])
            rest = rate_period(rest, pairs.i[at], pairs.j[at], pairs.result[at], TAU,
                               weight[1:])
            state = Glicko2State(np.r_[state.mu[:1], rest.mu],
                                 np.r_[state.phi[:1], rest.phi],
                                 np.r_[state.sigma[:1], rest.sigma])
            continue
        state = rate_period(state, pairs.i[at], pairs.j[at], pairs.result[at], TAU, weight)
    mu = centred(state.mu)
    return mu[0], mu[1:]


def trueskill(pairs: Pairs, boot: int, rng: np.random.Generator
              ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """TrueSkill-like ratings (:mod:`accord.bench.skill`: openskill's Thurstone–Mosteller
    full-pairing model, defaults mu 25, sigma 25/3, beta 25/6) over the pairs in store
    order. One numpy replay (:func:`~accord.bench.skill.replay_levels`) gives the point
    estimate (replay 0: every episode counted once) and the bootstrap (replays 1 to
    ``boot``: :func:`double_or_nothing` multiplicities) together; the tests hold each
    replay equal to openskill rating that replay's own sequence, to 1e-9. ``mu`` is
    converted to natural-log odds (1.702 mu / (sqrt(2) beta)) and centred."""
    from accord.bench.skill import TO_LOGIT, replay_levels

    p, m = len(pairs.players), len(pairs.i)
    if not m:
        return np.zeros(p), np.zeros((boot, p))
    mult = np.ones((pairs.episodes, 1 + boot), dtype=np.uint8)
    if boot:
        mult[:, 1:] = double_or_nothing(rng, pairs.episodes, boot)
    lost = pairs.result == 0.0
    winner, loser = np.where(lost, pairs.j, pairs.i), np.where(lost, pairs.i, pairs.j)
    draw = pairs.result == 0.5
    sched = schedule(winner, loser, draw.astype(np.int64))
    mus, _ = replay_levels(sched, winner, loser, draw, mult, pairs.episode, p)
    theta = centred(TO_LOGIT * mus)
    return theta[0], theta[1:]


__all__ = ["GLICKO2_PAIRS_PER_PLAYER", "Schedule", "double_or_nothing", "elo", "elo_point",
           "elo_replay", "glicko2", "glicko2_periods", "level_index", "rounds_and_ends", "schedule",
           "trueskill"]
