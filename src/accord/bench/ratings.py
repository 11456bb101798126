"""What every rating method of ``accord leaderboard`` works on: matches (seats and scores),
their pair outcomes as arrays, the rating scale, and the one interface a rating method
implements (:class:`RatingMethod`).

The methods themselves live in their own modules: Bradley–Terry in
:mod:`accord.bench.bradley_terry`, the sequential ones (Elo, Glicko-2, TrueSkill-like) in
:mod:`accord.bench.sequential`; :data:`accord.bench.leaderboard.METHODS` names them.
Pure data and functions: no I/O.
"""

from __future__ import annotations

import contextlib
import gc
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple, Protocol

import numpy as np
from numpy.typing import NDArray

#: Elo points per natural-log unit of strength (a 400-point gap = 10:1 odds)
ELO_SCALE = 400.0 / math.log(10.0)
#: the centre of the reported scale
ELO_BASE = 1500.0
#: K-factor of the sequential Elo
ELO_K = 32.0

class Seat(NamedTuple):
    """One seat of a match: who (the rated label) and its score (a tuple: cheap to make
    10^5 times)."""

    label: str
    score: float


class Match(NamedTuple):
    """One stored episode seen as a match between its seats (``agreed``: None where the
    domain has no agreement)."""

    seats: tuple[Seat, ...]
    agreed: bool | None


@dataclass
class Pairs:
    """Every rated pair of every match, as arrays over pairs (``i`` plays ``j``).

    ``result`` is 1 when ``i`` won, 0.5 a draw, 0 a loss; ``episode`` the match index
    (for resampling episodes); ``score_i``/``score_j`` the seats' scores; ``agreed`` 1/0
    or NaN where the domain has no agreement."""

    players: list[str]
    i: NDArray[np.int64]
    j: NDArray[np.int64]
    result: NDArray[np.float64]
    score_i: NDArray[np.float64]
    score_j: NDArray[np.float64]
    agreed: NDArray[np.float64]
    episode: NDArray[np.int64]
    episodes: int


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a loop makes 10^5 small objects and keeps
    them: its passes over them find nothing to free and cost more than the loop (reading
    10^5 episodes: 1.3 of 3 s of CPU; their pair outcomes: 0.35 of 0.5 s)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def pair_outcomes(matches: Iterable[Match]) -> Pairs:
    """Flatten matches into pair arrays (seats with the same label are not paired)."""
    with gc_paused():
        return _pair_outcomes(matches)


def _pair_outcomes(matches: Iterable[Match]) -> Pairs:
    index: dict[str, int] = {}
    put = index.setdefault
    rows: list[tuple[float, ...]] = []  # (i, j, result, score_i, score_j, agreed, episode)
    add = rows.append
    n = 0
    for m in matches:
        seats = m.seats
        ag = math.nan if m.agreed is None else float(m.agreed)
        if len(seats) == 2:  # the common case, without the pair loop
            (la, sa), (lb, sb) = seats
            if la != lb:
                ia = put(la, len(index))
                add((ia, put(lb, len(index)), 1.0 if sa > sb else 0.0 if sa < sb else 0.5,
                     sa, sb, ag, n))
            n += 1
            continue
        for x in range(len(seats)):
            for y in range(x + 1, len(seats)):
                (la, sa), (lb, sb) = seats[x], seats[y]
                if la == lb:
                    continue
                ia = put(la, len(index))
                add((ia, put(lb, len(index)), 1.0 if sa > sb else 0.0 if sa < sb else 0.5,
                     sa, sb, ag, n))
        n += 1
    cols = np.array(rows, dtype=np.float64).reshape(-1, 7).T  # indices < 2^53: exact
    return Pairs(list(index), cols[0].astype(np.int64), cols[1].astype(np.int64),
                 cols[2].copy(), cols[3].copy(), cols[4].copy(), cols[5].copy(),
                 cols[6].astype(np.int64), n)


def win_matrix(pairs: Pairs, weights: NDArray[np.float64] | None = None
               ) -> NDArray[np.float64]:
    """``W[a, b]`` = wins of ``a`` over ``b``, draws counted as half a win each
    (``weights``: how many times each pair counts, e.g. in a bootstrap resample)."""
    p = len(pairs.players)
    w = np.ones(len(pairs.i)) if weights is None else weights
    win = np.zeros(p * p)
    np.add.at(win, pairs.i * p + pairs.j, w * pairs.result)
    np.add.at(win, pairs.j * p + pairs.i, w * (1.0 - pairs.result))
    return win.reshape(p, p)


class RatingMethod(Protocol):
    """Log-strengths (natural-log odds scale, mean 0) of every player from pair outcomes;
    ``bootstrap`` resamples (seeded by ``rng``) give one row each."""

    def __call__(self, pairs: Pairs, boot: int, rng: np.random.Generator
                 ) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...


def centred(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``x`` with the mean of its last axis subtracted (ratings are relative)."""
    out: NDArray[np.float64] = x - x.mean(axis=-1, keepdims=True) if x.shape[-1] else x
    return out


__all__ = ["ELO_BASE", "ELO_K", "ELO_SCALE", "Match", "Pairs", "RatingMethod", "Seat",
           "centred", "gc_paused", "pair_outcomes", "win_matrix"]
