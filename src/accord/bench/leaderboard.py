"""Ratings of agents from stored episodes: matches, scores, Bradley–Terry and Elo, a
seeded bootstrap interval per rating, win/draw/loss counts and a head-to-head matrix.

A stored episode becomes a *match* between its seats (every pair of seats whose labels
differ; self-play pairs carry no information about who is better and are left out of the
ratings). Each seat gets a *score* (see :func:`episode_scores`, documented per domain in
docs/leaderboard.md); in each pair the higher score wins, equal scores are a draw.

Rating methods sit behind one small interface, :data:`METHODS` (name -> function from
pair outcomes to log-strengths and bootstrap resamples): Bradley–Terry (``bt``), a
sequential Elo (``elo``), Glicko-2 (``glicko2``, :mod:`accord.bench.glicko2`) and a
TrueSkill-like Thurstone–Mosteller model from openskill (``trueskill``,
:mod:`accord.bench.skill`).
With a :class:`~accord.bench.safety.SafetyTally` handed to :func:`collect` and
:func:`leaderboard`, each rating also carries its safety and optimality columns (leak,
below-BATNA, invalid-move and error rates, value left on the table).
Pure functions over :class:`~accord.bench.store.EpisodeRow` values: no I/O here.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import numpy as np
from numpy.typing import NDArray

from accord.bench.safety import SAFETY_COLUMNS as SAFETY_COLUMNS  # re-exported
from accord.bench.safety import SafetyTally
from accord.bench.store import EpisodeRow

#: Elo points per natural-log unit of strength (a 400-point gap = 10:1 odds)
ELO_SCALE = 400.0 / math.log(10.0)
#: the centre of the reported scale
ELO_BASE = 1500.0
#: K-factor of the sequential Elo
ELO_K = 32.0
BY_CHOICES = ("agent", "model", "agent0")
#: domains whose episodes have no per-party score (a shared reward): skipped with a note
NO_PARTY_SCORE = {"deliberation": "deliberation's reward is shared by every agent (a "
                                  "cooperative task): there is no per-party score to rank"}


class LeaderboardError(ValueError):
    """Bad leaderboard input (unknown method or grouping, nothing to rate)."""


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


# --- scores per domain --------------------------------------------------------------------
@functools.lru_cache(maxsize=256)
def _parties(keys: tuple[str, ...]) -> list[str]:
    """The parties of a bargaining metrics dict, in scenario order (``u_<party>`` keys;
    cached by key tuple: 10^5 episodes share a handful)."""
    return [k[2:] for k in keys if k.startswith("u_")]


def _bargaining(row: EpisodeRow) -> list[float] | None:
    met = row.metrics or {}
    rec = ((row.summary or {}).get("record") or {})
    parties = rec.get("parties") or _parties(tuple(met))
    agreed = row.outcome == "agreement" or bool(met.get("agreement"))
    out: list[float] = []
    for p in parties:
        u, gain = met.get(f"u_{p}"), met.get(f"gain_{p}")
        if not agreed or u is None or gain is None:
            out.append(0.0)
            continue
        batna = float(u) - float(gain)
        out.append(float(gain) / (1.0 - batna) if batna < 1.0 else 0.0)
    return out or None


def _games(row: EpisodeRow) -> list[float] | None:
    met = row.metrics or {}
    pays = []
    i = 1
    while f"payoff_{i}" in met:
        pays.append(met[f"payoff_{i}"])
        i += 1
    if not pays or any(p is None for p in pays):
        return None
    return [float(p) for p in pays]


def _dond(row: EpisodeRow) -> list[float] | None:
    met = row.metrics or {}
    a, b = met.get("alice"), met.get("bob")
    return None if a is None or b is None else [float(a), float(b)]


def _task_exchange(row: EpisodeRow) -> list[float] | None:
    met = row.metrics or {}
    vals = [v for k, v in met.items() if k.startswith("utility_")]
    if not vals or any(v is None for v in vals):
        return None
    return [float(v) for v in vals]


#: domain -> the per-seat scores of one finished episode (None: not a usable match)
SCORERS: dict[str, Callable[[EpisodeRow], list[float] | None]] = {
    "bargaining": _bargaining, "games": _games, "deal-or-no-deal": _dond,
    "deal_or_no_deal": _dond, "dond": _dond,  # the stored name is deal-or-no-deal
    "task_exchange": _task_exchange, "task-exchange": _task_exchange,
}


def _agreed(domain: str, row: EpisodeRow) -> bool | None:
    met = row.metrics or {}
    if domain == "bargaining":
        return row.outcome == "agreement"
    if domain in ("deal-or-no-deal", "deal_or_no_deal", "dond"):
        return bool(met.get("agreement"))
    if domain in ("task_exchange", "task-exchange"):
        return None if met.get("agreed") is None else bool(met.get("agreed"))
    return None


def seat_labels(row: EpisodeRow, by: str = "agent") -> list[str]:
    """The rated label of each seat: the agent spec, the model inside an LLM spec
    (``by="model"``; code strategies keep their spec), or seat-qualified labels
    (``by="agent0"``: seat 0 plain, seat k as ``label [seat k]``)."""
    agents = [str(a) for a in (row.labels.get("agents") or row.spec.get("agents") or [])]
    if by == "model":
        return [_model_of(a) for a in agents]
    if by == "agent0":
        return [a if i == 0 else f"{a} [seat {i}]" for i, a in enumerate(agents)]
    return agents


def _model_of(spec: str) -> str:
    from accord.agents.spec import AgentSpecError, parse_agent_spec

    try:
        a = parse_agent_spec(spec)
    except AgentSpecError:
        return spec
    model = a.options.get("model") or a.arg
    return str(model) if model and a.kind.startswith("llm") else spec


def episode_match(row: EpisodeRow, by: str = "agent") -> tuple[Match | None, str | None]:
    """The match of one stored episode, or ``(None, why)`` when it cannot be rated."""
    domain = str(row.spec.get("domain"))
    if row.status != "done":
        return None, f"not finished ({row.status})"
    if row.outcome == "error":
        return None, "ended in an error"
    if domain in NO_PARTY_SCORE:
        return None, NO_PARTY_SCORE[domain]
    scorer = SCORERS.get(domain)
    if scorer is None:
        return None, f"domain {domain!r} has no per-party score defined"
    scores = scorer(row)
    labels = seat_labels(row, by)
    if scores is None or len(scores) != len(labels) or len(labels) < 2:
        return None, "no per-seat scores in its metrics"
    if len(set(labels)) < 2:
        return None, "self-play (the same label in every seat says nothing about who is better)"
    seats = tuple(map(Seat, labels, scores))
    return Match(seats, _agreed(domain, row)), None


# --- pair outcomes ------------------------------------------------------------------------
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


def pair_outcomes(matches: Iterable[Match]) -> Pairs:
    """Flatten matches into pair arrays (seats with the same label are not paired)."""
    index: dict[str, int] = {}
    cols: dict[str, list[float]] = {k: [] for k in ("i", "j", "r", "si", "sj", "ag", "ep")}
    n = 0
    for m in matches:
        seats = m.seats
        ag = math.nan if m.agreed is None else float(m.agreed)
        for a in range(len(seats)):
            for b in range(a + 1, len(seats)):
                sa, sb = seats[a], seats[b]
                if sa.label == sb.label:
                    continue
                ia = index.setdefault(sa.label, len(index))
                ib = index.setdefault(sb.label, len(index))
                r = 1.0 if sa.score > sb.score else 0.0 if sa.score < sb.score else 0.5
                for k, v in zip(cols, (ia, ib, r, sa.score, sb.score, ag, n), strict=True):
                    cols[k].append(v)
        n += 1
    return Pairs(list(index), np.asarray(cols["i"], dtype=np.int64),
                 np.asarray(cols["j"], dtype=np.int64), np.asarray(cols["r"]),
                 np.asarray(cols["si"]), np.asarray(cols["sj"]), np.asarray(cols["ag"]),
                 np.asarray(cols["ep"], dtype=np.int64), n)


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


# --- rating methods -----------------------------------------------------------------------
class RatingMethod(Protocol):
    """Log-strengths (natural-log odds scale, mean 0) of every player from pair outcomes;
    ``bootstrap`` resamples (seeded by ``rng``) give one row each."""

    def __call__(self, pairs: Pairs, boot: int, rng: np.random.Generator
                 ) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...


def _sig(x: NDArray[np.float64]) -> NDArray[np.float64]:
    out: NDArray[np.float64] = 0.5 * (1.0 + np.tanh(0.5 * x))
    return out


def bt_fit(win: NDArray[np.float64]) -> NDArray[np.float64]:
    """Bradley–Terry log-strengths by maximum likelihood (scipy's trust-region Newton,
    exact gradient and Hessian) from a win matrix
    (draws as half wins). Each player also has one virtual draw against a virtual player
    of strength 0: it keeps the estimate finite when a player won (or lost) every match
    and barely moves it otherwise. Returned centred on mean 0."""
    from scipy.optimize import minimize

    p = win.shape[0]
    if p == 0:
        return np.zeros(0)

    n = win + win.T

    def loss(th: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        d = th[None, :] - th[:, None]  # d[a, b] = th_b - th_a
        nll = float(np.sum(win * np.logaddexp(0.0, d)))
        nll += float(np.sum(0.5 * np.logaddexp(0.0, -th) + 0.5 * np.logaddexp(0.0, th)))
        ws = win * _sig(d)
        grad = -ws.sum(axis=1) + ws.sum(axis=0) + _sig(th) - 0.5
        return nll, grad

    def hess(th: NDArray[np.float64]) -> NDArray[np.float64]:
        d = th[None, :] - th[:, None]
        pq = n * _sig(d) * _sig(-d)
        h: NDArray[np.float64] = -pq
        h[np.diag_indices(p)] = pq.sum(axis=1) + _sig(th) * _sig(-th)
        return h

    res = minimize(loss, np.zeros(p), jac=True, hess=hess, method="trust-exact",
                   options={"gtol": 1e-10})
    th: NDArray[np.float64] = np.asarray(res.x, dtype=np.float64)
    return th - th.mean()


def bt_fit_many(wins: NDArray[np.float64], tol: float = 1e-10, max_iter: int = 100
                ) -> NDArray[np.float64]:
    """:func:`bt_fit` of a stack of win matrices ``(B, P, P)`` at once: Newton's method on
    the same (strictly convex) objective, every resample advanced together with batched
    linear solves (steps capped at 2 units per iteration). Rows centred on mean 0."""
    b, p, _ = wins.shape
    th = np.zeros((b, p))
    if p == 0 or b == 0:
        return th
    n = wins + np.swapaxes(wins, 1, 2)
    for _ in range(max_iter):
        d = th[:, None, :] - th[:, :, None]  # d[k, a, b] = th_b - th_a
        ws = wins * _sig(d)
        sig = _sig(th)
        grad = -ws.sum(axis=2) + ws.sum(axis=1) + sig - 0.5
        pq = n * _sig(d) * _sig(-d)
        hess = -pq
        idx = np.arange(p)
        hess[:, idx, idx] = pq.sum(axis=2) + sig * (1.0 - sig)
        step = np.linalg.solve(hess, grad[..., None])[..., 0]
        big = np.abs(step).max(axis=1, keepdims=True)
        step *= np.minimum(1.0, 2.0 / np.maximum(big, 1e-300))
        th -= step
        if float(np.abs(step).max()) < tol:
            break
    out: NDArray[np.float64] = th - th.mean(axis=1, keepdims=True)
    return out


def _episode_patterns(pairs: Pairs) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Episodes grouped by what they contribute to the win matrix: ``(counts, W)`` with
    ``W[k]`` the flattened win matrix of pattern ``k`` and ``counts[k]`` its episodes."""
    p = len(pairs.players)
    cells = p * p
    # each pair adds result to W[i, j] and 1 - result to W[j, i]: encode per episode
    code = (pairs.i * p + pairs.j) * 3 + (pairs.result * 2).astype(np.int64)
    if pairs.episodes == 0 or len(code) == 0:
        return np.zeros(0), np.zeros((0, cells))
    order = np.argsort(pairs.episode, kind="stable")
    ep, code = pairs.episode[order], code[order]
    starts = np.flatnonzero(np.r_[True, ep[1:] != ep[:-1]])
    keys: dict[tuple[int, ...], int] = {}
    counts: list[int] = []
    if len(starts) == len(ep):  # one pair per episode: vectorised
        uniq, inv = np.unique(code, return_inverse=True)
        counts_arr = np.bincount(inv).astype(np.float64)
        mats = np.zeros((len(uniq), cells))
        _fill(mats, np.arange(len(uniq)), uniq, p)
        return counts_arr, mats
    bounds = [*starts.tolist(), len(ep)]
    rows: list[list[int]] = []
    for s, e in itertools.pairwise(bounds):
        key = tuple(sorted(code[s:e].tolist()))
        k = keys.setdefault(key, len(keys))
        if k == len(counts):
            counts.append(0)
            rows.append(list(key))
        counts[k] += 1
    mats = np.zeros((len(rows), cells))
    for k, row in enumerate(rows):
        _fill(mats, np.full(len(row), k), np.asarray(row, dtype=np.int64), p)
    return np.asarray(counts, dtype=np.float64), mats


def _fill(mats: NDArray[np.float64], k: NDArray[np.int64], code: NDArray[np.int64],
          p: int) -> None:
    cell, r2 = np.divmod(code, 3)
    i, j = np.divmod(cell, p)
    r = r2 / 2.0
    np.add.at(mats, (k, i * p + j), r)
    np.add.at(mats, (k, j * p + i), 1.0 - r)


def bradley_terry(pairs: Pairs, boot: int, rng: np.random.Generator
                  ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Bradley–Terry point estimate and ``boot`` bootstrap fits. Resampling episodes with
    replacement is a multinomial draw over the distinct episode patterns (the same
    distribution, without materialising 10^5 indices per resample)."""
    p = len(pairs.players)
    point = bt_fit(win_matrix(pairs))
    counts, mats = _episode_patterns(pairs)
    boots = np.zeros((boot, p))
    if boot and len(counts):
        draws = rng.multinomial(pairs.episodes, counts / counts.sum(), size=boot)
        boots = bt_fit_many((draws @ mats).reshape(boot, p, p))
    return point, boots


def elo(pairs: Pairs, boot: int, rng: np.random.Generator
        ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Sequential Elo (K = 32, everyone starts level) over the pairs in store order; the
    bootstrap replays resampled pairs (drawn with replacement) in the drawn order, all
    resamples advanced together as numpy vectors (one step per resampled pair)."""
    p, m = len(pairs.players), len(pairs.i)
    scale = ELO_K / ELO_SCALE  # work in log-strength units

    th = [0.0] * p
    for a, b, r in zip(pairs.i.tolist(), pairs.j.tolist(), pairs.result.tolist(),
                       strict=True):
        step = scale * (r - 1.0 / (1.0 + math.exp(th[b] - th[a])))
        th[a] += step
        th[b] -= step
    point = np.asarray(th) - sum(th) / max(p, 1)
    flat = np.zeros(boot * p)
    if boot and m:
        base = np.arange(boot) * p
        for start in range(0, m, 1024):  # draw the resampled pairs a block at a time
            k = rng.integers(0, m, size=(min(1024, m - start), boot))
            fa, fb, res = base + pairs.i[k], base + pairs.j[k], pairs.result[k]
            for t in range(len(k)):
                ta, tb = flat[fa[t]], flat[fb[t]]
                step = scale * (res[t] - 1.0 / (1.0 + np.exp(tb - ta)))
                flat[fa[t]] = ta + step
                flat[fb[t]] = tb - step
    boots = flat.reshape(boot, p)
    boots -= boots.mean(axis=1, keepdims=True) if p else 0.0
    return point, boots


#: pairs per Glicko-2 rating period, per rated player (Glickman suggests periods in which
#: each player plays 10-15 games: 5 pairs per player gives each about 10)
GLICKO2_PAIRS_PER_PLAYER = 5


def _resample_blocks(m: int, boot: int, size: int, rng: np.random.Generator
                     ) -> Iterator[NDArray[np.int64]]:
    """Index blocks ``(1 + boot, size)`` over ``m`` pairs: row 0 the pairs in store order,
    rows 1.. the resampled pairs (drawn with replacement, in the drawn order)."""
    for start in range(0, m, size):
        n = min(size, m - start)
        yield np.vstack([np.arange(start, start + n, dtype=np.int64)[None, :],
                         rng.integers(0, m, size=(boot, n))])


def _centred(x: NDArray[np.float64]) -> NDArray[np.float64]:
    out: NDArray[np.float64] = x - x.mean(axis=-1, keepdims=True) if x.shape[-1] else x
    return out


def glicko2(pairs: Pairs, boot: int, rng: np.random.Generator
            ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Glicko-2 (:mod:`accord.bench.glicko2`, Glickman's algorithm, tau = 0.5) over rating
    periods of ``5 x players`` pairs in store order; the bootstrap replays resampled pairs
    in the drawn order (every resample advanced together). Log-strengths are the Glicko-2
    ``mu`` (already natural-log odds), centred."""
    from accord.bench.glicko2 import replay

    p, m = len(pairs.players), len(pairs.i)
    size = max(1, GLICKO2_PAIRS_PER_PLAYER * p)
    state = replay(_resample_blocks(m, boot, size, rng), pairs.i, pairs.j, pairs.result,
                   p, 1 + boot)
    mu = _centred(state.mu)
    return mu[0], mu[1:]


def trueskill(pairs: Pairs, boot: int, rng: np.random.Generator
              ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """TrueSkill-like ratings (:mod:`accord.bench.skill`: openskill's Thurstone–Mosteller
    full-pairing model, defaults mu 25, sigma 25/3, beta 25/6) over the pairs in store
    order; the bootstrap replays resampled pairs in the drawn order. ``mu`` is converted
    to natural-log odds (1.702 mu / (sqrt(2) beta)) and centred."""
    from accord.bench.skill import TO_LOGIT, openskill_replay, replay_many

    p, m = len(pairs.players), len(pairs.i)
    mu, _ = openskill_replay(pairs.i, pairs.j, pairs.result, p)
    point = _centred(TO_LOGIT * mu)
    boots = np.zeros((boot, p))
    if boot and m:
        blocks = (blk[1:] for blk in _resample_blocks(m, boot, 1024, rng))
        mus, _ = replay_many(blocks, pairs.i, pairs.j, pairs.result, p, boot)
        boots = _centred(TO_LOGIT * mus)
    return point, boots


#: rating method name -> function from pair outcomes to log-strengths and resamples
METHODS: dict[str, RatingMethod] = {"bt": bradley_terry, "elo": elo, "glicko2": glicko2,
                                    "trueskill": trueskill}
#: a person-facing name of each method
METHOD_NAMES: dict[str, str] = {"bt": "Bradley–Terry", "elo": "sequential Elo",
                                "glicko2": "Glicko-2", "trueskill": "TrueSkill-like "
                                "(openskill Thurstone–Mosteller)"}


# --- the leaderboard ----------------------------------------------------------------------
@dataclass
class Rating:
    """One player's row: rating and its bootstrap interval (Elo-like scale), record."""

    player: str
    rating: float
    low: float
    high: float
    wins: int
    draws: int
    losses: int
    matches: int
    episodes: int
    mean_score: float
    #: safety and optimality columns (:data:`SAFETY_COLUMNS`; empty unless asked for)
    safety: dict[str, float | None] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (no interval without a bootstrap: ``low``/``high`` are None,
        not NaN, which strict JSON cannot hold)."""
        out = {**self.__dict__, "safety": dict(self.safety)}
        for k in ("low", "high"):
            if math.isnan(out[k]):
                out[k] = None
        return out


@dataclass
class HeadToHead:
    """One ordered pair: how ``player`` fared against ``opponent``."""

    player: str
    opponent: str
    matches: int
    mean_score: float
    wins: int
    draws: int
    losses: int
    agreement_rate: float | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return dict(self.__dict__)


@dataclass
class Leaderboard:
    """Ratings (best first), the head-to-head matrix, and what was skipped and why."""

    method: str
    by: str
    bootstrap: int
    seed: int
    episodes: int
    ratings: list[Rating]
    head_to_head: list[HeadToHead]
    domains: dict[str, int]
    skipped: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (full precision)."""
        return {"method": self.method, "by": self.by, "bootstrap": self.bootstrap,
                "seed": self.seed, "episodes": self.episodes, "domains": self.domains,
                "confidence": 0.95, "scale": {"base": ELO_BASE, "points_per_e": ELO_SCALE},
                "ratings": [r.to_dict() for r in self.ratings],
                "head_to_head": [h.to_dict() for h in self.head_to_head],
                "skipped": self.skipped}


def collect(rows: Iterable[EpisodeRow], by: str = "agent",
            safety: SafetyTally | None = None
            ) -> tuple[list[Match], dict[str, int], dict[str, int]]:
    """The matches of ``rows``, episodes rated per domain, and skip reasons with counts.
    With ``safety``, every finished episode (rated or not) is also tallied into it."""
    if by not in BY_CHOICES:
        raise LeaderboardError(f"--by must be one of {', '.join(BY_CHOICES)}, got {by!r}")
    matches: list[Match] = []
    skipped: dict[str, int] = {}
    domains: dict[str, int] = {}
    for row in rows:
        if safety is not None:
            safety.add(row, by)
        m, why = episode_match(row, by)
        if m is None:
            key = f"{row.spec.get('domain')}: {why}"
            skipped[key] = skipped.get(key, 0) + 1
            continue
        matches.append(m)
        d = str(row.spec.get("domain"))
        domains[d] = domains.get(d, 0) + 1
    return matches, domains, skipped


def leaderboard(matches: Sequence[Match], method: str = "bt", bootstrap: int = 200,
                seed: int = 0, by: str = "agent", domains: Mapping[str, int] | None = None,
                skipped: Mapping[str, int] | None = None,
                safety: SafetyTally | None = None) -> Leaderboard:
    """Rate the players of ``matches`` with ``method`` and a percentile 95% bootstrap
    interval from ``bootstrap`` resamples seeded by ``seed`` (with ``safety``, a tally
    filled by :func:`collect`, each rating carries its safety and optimality columns)."""
    if method not in METHODS:
        raise LeaderboardError(f"unknown rating method {method!r}; known: "
                               f"{', '.join(METHODS)}")
    if bootstrap < 0:
        raise LeaderboardError(f"--bootstrap must be 0 or more, got {bootstrap}")
    pairs = pair_outcomes(matches)
    if not pairs.players:
        raise LeaderboardError("nothing to rate: no finished episode has two differently "
                               "labelled seats with per-party scores"
                               + (f" (skipped: {_skip_text(skipped)})" if skipped else ""))
    rng = np.random.default_rng(seed)
    point, boots = METHODS[method](pairs, bootstrap, rng)
    if bootstrap:
        low, high = np.percentile(boots, [2.5, 97.5], axis=0)
    else:
        low = high = np.full(len(point), np.nan)
    p = len(pairs.players)
    res = pairs.result
    wins = np.bincount(pairs.i, res == 1, p) + np.bincount(pairs.j, res == 0, p)
    draws = np.bincount(pairs.i, res == 0.5, p) + np.bincount(pairs.j, res == 0.5, p)
    losses = np.bincount(pairs.i, res == 0, p) + np.bincount(pairs.j, res == 1, p)
    n = np.bincount(pairs.i, minlength=p) + np.bincount(pairs.j, minlength=p)
    ssum = (np.bincount(pairs.i, pairs.score_i, p) + np.bincount(pairs.j, pairs.score_j, p))
    eps = _episodes_per_player(pairs)
    ratings = [Rating(name, ELO_BASE + ELO_SCALE * float(point[k]),
                      ELO_BASE + ELO_SCALE * float(low[k]),
                      ELO_BASE + ELO_SCALE * float(high[k]), int(wins[k]), int(draws[k]),
                      int(losses[k]), int(n[k]), eps[k], float(ssum[k] / n[k]))
               for k, name in enumerate(pairs.players)]
    if safety is not None:
        for r in ratings:
            r.safety = safety.columns(r.player)
    ratings.sort(key=lambda r: (-r.rating, r.player))
    return Leaderboard(method, by, bootstrap, seed, pairs.episodes, ratings,
                       head_to_head(pairs), dict(domains or {}), dict(skipped or {}))


def _episodes_per_player(pairs: Pairs) -> list[int]:
    p = len(pairs.players)
    seen = np.unique(np.r_[pairs.episode * p + pairs.i, pairs.episode * p + pairs.j])
    return np.bincount(seen % p, minlength=p).astype(int).tolist()


def head_to_head(pairs: Pairs) -> list[HeadToHead]:
    """Every ordered pair that met: matches, mean score of the first against the second
    (normalised surplus over BATNA in bargaining), its wins/draws/losses, agreement rate."""
    p = len(pairs.players)
    a = np.r_[pairs.i, pairs.j]
    b = np.r_[pairs.j, pairs.i]
    score = np.r_[pairs.score_i, pairs.score_j]
    res = np.r_[pairs.result, 1.0 - pairs.result]
    ag = np.r_[pairs.agreed, pairs.agreed]
    cell = a * p + b
    size = p * p
    n = np.bincount(cell, minlength=size)
    s = np.bincount(cell, score, size)
    w = np.bincount(cell, res == 1, size)
    d = np.bincount(cell, res == 0.5, size)
    known = ~np.isnan(ag)
    nag = np.bincount(cell[known], minlength=size)
    sag = np.bincount(cell[known], ag[known], size)
    out = []
    for c in np.flatnonzero(n):
        x, y = divmod(int(c), p)
        out.append(HeadToHead(pairs.players[x], pairs.players[y], int(n[c]),
                              float(s[c] / n[c]), int(w[c]), int(d[c]),
                              int(n[c] - w[c] - d[c]),
                              float(sag[c] / nag[c]) if nag[c] else None))
    return out


def _skip_text(skipped: Mapping[str, int] | None) -> str:
    return "; ".join(f"{n} x {why}" for why, n in (skipped or {}).items())
