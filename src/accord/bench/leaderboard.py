"""Ratings of agents from stored episodes: matches, scores, a rating method, a seeded
bootstrap interval per rating, win/draw/loss counts and a head-to-head matrix.

A stored episode becomes a *match* between its seats (every pair of seats whose labels
differ; self-play pairs carry no information about who is better and are left out of the
ratings). Each seat gets a *score* (see :func:`episode_scores`, documented per domain in
docs/leaderboard.md); in each pair the higher score wins, equal scores are a draw.

Rating methods sit behind one small interface (:class:`~accord.bench.ratings.RatingMethod`,
a function from pair outcomes to log-strengths and bootstrap resamples), named in
:data:`METHODS`: Bradley–Terry (``bt``, :mod:`accord.bench.bradley_terry`), and the
sequential methods of :mod:`accord.bench.sequential`: Elo (``elo``), Glicko-2 (``glicko2``,
:mod:`accord.bench.glicko2`) and openskill's TrueSkill-like Thurstone–Mosteller model
(``trueskill``, :mod:`accord.bench.skill`: a numpy replay checked against openskill).
With a :class:`~accord.bench.safety.SafetyTally` handed to :func:`collect` and
:func:`leaderboard`, each rating also carries its safety and optimality columns (leak,
below-BATNA, invalid-move and error rates, value left on the table).
Pure functions over :class:`~accord.bench.store.EpisodeRow` values (the scores also over
bare metrics, :data:`SCORES`, which :mod:`accord.bench.leaderboard_scan` reads from a
store's columns): no I/O here.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from accord.bench.bradley_terry import bradley_terry as bradley_terry  # re-exported
from accord.bench.bradley_terry import bt_fit as bt_fit
from accord.bench.bradley_terry import bt_fit_many as bt_fit_many
from accord.bench.ratings import ELO_BASE as ELO_BASE
from accord.bench.ratings import ELO_K as ELO_K
from accord.bench.ratings import ELO_SCALE as ELO_SCALE
from accord.bench.ratings import Match as Match
from accord.bench.ratings import Pairs as Pairs
from accord.bench.ratings import RatingMethod as RatingMethod
from accord.bench.ratings import Seat as Seat
from accord.bench.ratings import pair_outcomes as pair_outcomes
from accord.bench.ratings import win_matrix as win_matrix
from accord.bench.safety import SAFETY_COLUMNS as SAFETY_COLUMNS  # re-exported
from accord.bench.safety import SafetyTally
from accord.bench.sequential import elo as elo
from accord.bench.sequential import glicko2 as glicko2
from accord.bench.sequential import trueskill as trueskill
from accord.bench.store import EpisodeRow

BY_CHOICES = ("agent", "model", "agent0")
#: domains whose episodes have no per-party score (a shared reward): skipped with a note
NO_PARTY_SCORE = {"deliberation": "deliberation's reward is shared by every agent (a "
                                  "cooperative task): there is no per-party score to rank"}


class LeaderboardError(ValueError):
    """Bad leaderboard input (unknown method or grouping, nothing to rate)."""


# --- scores per domain --------------------------------------------------------------------
@functools.lru_cache(maxsize=256)
def _party_keys(parties: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """The ``(u_<party>, gain_<party>)`` metric names of each party (cached: 10^5
    episodes share a handful of party lists)."""
    return tuple((f"u_{p}", f"gain_{p}") for p in parties)


@functools.lru_cache(maxsize=256)
def _metric_party_keys(keys: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """:func:`_party_keys` of the parties of a bargaining metrics dict, in scenario order
    (its ``u_<party>`` keys; cached by key tuple)."""
    return _party_keys(tuple(k[2:] for k in keys if k.startswith("u_")))


def bargaining_scores(met: Mapping[str, Any], outcome: str | None,
                      parties: Sequence[str] | None = None) -> list[float] | None:
    """Each party's normalised surplus over its BATNA (0 without an agreement), parties in
    ``parties`` order (the record's), else in the order of the ``u_<party>`` metrics."""
    keys = (_party_keys(tuple(map(str, parties))) if parties
            else _metric_party_keys(tuple(met)))
    if not keys:
        return None
    if not (outcome == "agreement" or bool(met.get("agreement"))):
        return [0.0] * len(keys)
    out: list[float] = []
    get = met.get
    for uk, gk in keys:
        u, gain = get(uk), get(gk)
        if u is None or gain is None:
            out.append(0.0)
            continue
        batna = float(u) - float(gain)
        out.append(float(gain) / (1.0 - batna) if batna < 1.0 else 0.0)
    return out


def games_scores(met: Mapping[str, Any], outcome: str | None = None,
                 parties: Sequence[str] | None = None) -> list[float] | None:
    """The players' payoffs (``payoff_1``, ``payoff_2``, ...)."""
    pays = []
    i = 1
    while f"payoff_{i}" in met:
        pays.append(met[f"payoff_{i}"])
        i += 1
    if not pays or any(p is None for p in pays):
        return None
    return [float(p) for p in pays]


def dond_scores(met: Mapping[str, Any], outcome: str | None = None,
                parties: Sequence[str] | None = None) -> list[float] | None:
    """Alice's and Bob's points."""
    a, b = met.get("alice"), met.get("bob")
    return None if a is None or b is None else [float(a), float(b)]


def task_exchange_scores(met: Mapping[str, Any], outcome: str | None = None,
                         parties: Sequence[str] | None = None) -> list[float] | None:
    """Each agent's utility (the ``utility_<agent>`` metrics, in stored order)."""
    vals = [v for k, v in met.items() if k.startswith("utility_")]
    if not vals or any(v is None for v in vals):
        return None
    return [float(v) for v in vals]


#: a domain's per-seat scores from an episode's metrics, outcome and (bargaining) the
#: record's parties; None: not a usable match
Scorer = Callable[[Mapping[str, Any], "str | None", "Sequence[str] | None"],
                  "list[float] | None"]
#: domain -> the scores of one finished episode from its metrics (see :data:`SCORERS`)
SCORES: dict[str, Scorer] = {
    "bargaining": bargaining_scores, "games": games_scores, "deal-or-no-deal": dond_scores,
    "deal_or_no_deal": dond_scores, "dond": dond_scores, "task_exchange": task_exchange_scores,
    "task-exchange": task_exchange_scores,
}


def record_parties(row: EpisodeRow) -> list[str] | None:
    """The parties named by the episode's record (None when its summary was not read)."""
    return ((row.summary or {}).get("record") or {}).get("parties")


def _row_scorer(score: Scorer) -> Callable[[EpisodeRow], list[float] | None]:
    def scores(row: EpisodeRow) -> list[float] | None:
        return score(row.metrics or {}, row.outcome, record_parties(row))

    scores.__doc__ = score.__doc__
    return scores


#: domain -> the per-seat scores of one finished episode (None: not a usable match)
SCORERS: dict[str, Callable[[EpisodeRow], list[float] | None]] = {
    d: _row_scorer(f) for d, f in SCORES.items()}


def agreed_of(domain: str, met: Mapping[str, Any], outcome: str | None) -> bool | None:
    """Whether the episode ended in an agreement (None: the domain has none)."""
    if domain == "bargaining":
        return outcome == "agreement"
    if domain in ("deal-or-no-deal", "deal_or_no_deal", "dond"):
        return bool(met.get("agreement"))
    if domain in ("task_exchange", "task-exchange"):
        return None if met.get("agreed") is None else bool(met.get("agreed"))
    return None


def _agreed(domain: str, row: EpisodeRow) -> bool | None:
    return agreed_of(domain, row.metrics or {}, row.outcome)


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


# --- rating methods: one function each behind accord.bench.ratings.RatingMethod ----------
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
