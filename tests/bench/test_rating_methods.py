"""Glicko-2 and the TrueSkill-like method of ``accord leaderboard``: Glickman's worked
example, the vectorised replay equals openskill's own updates, and both methods recover a
known ground truth with bootstrap intervals (coverage, width, draws, a lone agent)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from accord.bench.glicko2 import SCALE, Glicko2State, rate_period
from accord.bench.leaderboard import ELO_BASE, ELO_SCALE, Match, Seat, collect, leaderboard
from accord.bench.ratings import Pairs
from accord.bench.sequential import glicko2, glicko2_periods, schedule
from accord.bench.skill import replay_levels
from accord.bench.store import Store
from accord.testing.ratings import synthetic_tournament

TRUTH = {"strong": 1.2, "good": 0.4, "fair": -0.3, "weak": -1.3}
METHODS = ("glicko2", "trueskill")
#: every method whose bootstrap replays store order (accord.bench.sequential)
SEQUENTIAL = ("elo", "glicko2", "trueskill")


def _matches(n: int, rng: np.random.Generator, draw: float = 0.0) -> list[Match]:
    names = list(TRUTH)
    out = []
    for _ in range(n):
        a, b = rng.choice(len(names), size=2, replace=False)
        if rng.random() < draw:
            out.append(Match((Seat(names[a], 0.0), Seat(names[b], 0.0)), False))
            continue
        p = 1 / (1 + math.exp(TRUTH[names[b]] - TRUTH[names[a]]))
        win = rng.random() < p
        out.append(Match((Seat(names[a], 0.6 if win else 0.2),
                          Seat(names[b], 0.2 if win else 0.6)), True))
    return out


def _truth() -> dict[str, float]:
    mean = sum(TRUTH.values()) / len(TRUTH)
    return {n: ELO_BASE + ELO_SCALE * (v - mean) for n, v in TRUTH.items()}


def test_glicko2_reproduces_glickmans_worked_example() -> None:
    """Glickman's note: 1500 / RD 200 / sigma 0.06 against 1400/30, 1550/100, 1700/300,
    winning the first game and losing the others -> 1464.06, RD 151.52, sigma 0.05999."""
    r = np.array([[1500.0, 1400.0, 1550.0, 1700.0]])
    rd = np.array([[200.0, 30.0, 100.0, 300.0]])
    state = Glicko2State((r - 1500.0) / SCALE, rd / SCALE, np.full((1, 4), 0.06))
    new = rate_period(state, np.array([[0, 0, 0]]), np.array([[1, 2, 3]]),
                      np.array([[1.0, 0.0, 0.0]]))
    # the note rounds mu' to -0.2069 before rescaling (1464.06); unrounded it is 1464.05
    assert 1500.0 + SCALE * new.mu[0, 0] == pytest.approx(1464.06, abs=0.02)
    assert SCALE * new.phi[0, 0] == pytest.approx(151.52, abs=0.01)
    assert new.sigma[0, 0] == pytest.approx(0.05999, abs=1e-5)


def test_glicko2_player_without_games_only_grows_its_deviation() -> None:
    state = Glicko2State.new(1, 3)
    new = rate_period(state, np.array([[0]]), np.array([[1]]), np.array([[1.0]]))
    assert new.mu[0, 2] == 0.0 and new.sigma[0, 2] == 0.06
    assert new.phi[0, 2] == pytest.approx(math.hypot(350 / SCALE, 0.06))
    assert new.mu[0, 0] > 0 > new.mu[0, 1]


def openskill_replay(i: np.ndarray, j: np.ndarray, result: np.ndarray, players: int
                     ) -> tuple[np.ndarray, np.ndarray]:
    """The reference: ``(mu, sigma)`` of every player after openskill itself rates the
    pairs in order (``i`` beat ``j`` when ``result`` is 1, lost at 0, drew at 0.5)."""
    from openskill.models import ThurstoneMostellerFull

    model = ThurstoneMostellerFull()
    ratings = [model.rating() for _ in range(players)]
    for a, b, r in zip(i.tolist(), j.tolist(), result.tolist(), strict=True):
        ranks = [0.0, 0.0] if r == 0.5 else [0.0, 1.0] if r == 1.0 else [1.0, 0.0]
        [[ra], [rb]] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
        ratings[a], ratings[b] = ra, rb
    return (np.asarray([x.mu for x in ratings]), np.asarray([x.sigma for x in ratings]))


def _random_pairs(rng: np.random.Generator, m: int, p: int):
    i = rng.integers(0, p, m)
    j = (i + rng.integers(1, p, m)) % p
    return i, j, rng.choice([0.0, 0.5, 1.0], m, p=[0.4, 0.2, 0.4])


def test_vectorised_replay_equals_openskills_own_updates() -> None:
    """Every replay of the numpy Thurstone–Mosteller replay (wins and draws, each pair
    counted 0-3 times) equals openskill rating that replay's sequence one match at a time."""
    rng = np.random.default_rng(7)
    m, p = 400, 5
    i, j, res = _random_pairs(rng, m, p)
    lost, draw = res == 0.0, res == 0.5
    winner, loser = np.where(lost, j, i), np.where(lost, i, j)
    mult = rng.integers(0, 4, size=(m, 4)).astype(np.uint8)
    mult[:, 0] = 1  # replay 0: the store order itself
    sched = schedule(winner, loser, draw.astype(np.int64))
    mu, sigma = replay_levels(sched, winner, loser, draw, mult, np.arange(m), p)
    for k in range(4):
        seq = np.repeat(np.arange(m), mult[:, k])  # each pair mult times in a row
        mu1, sigma1 = openskill_replay(i[seq], j[seq], res[seq], p)
        assert mu[k] == pytest.approx(mu1, abs=1e-9), k
        assert sigma[k] == pytest.approx(sigma1, abs=1e-9), k


def test_vectorised_replay_follows_openskills_guards_for_lopsided_matches() -> None:
    """Far-apart players (an upset and a draw of a 1-vs-100 record) reach openskill's
    tail guards; the replay still equals openskill."""
    i = np.array([0] * 60 + [1, 0, 1, 0], dtype=np.int64)
    j = np.array([1] * 60 + [0, 1, 0, 1], dtype=np.int64)
    res = np.array([1.0] * 60 + [1.0, 0.5, 0.5, 0.0])
    lost, draw = res == 0.0, res == 0.5
    winner, loser = np.where(lost, j, i), np.where(lost, i, j)
    mult = np.ones((len(i), 1), dtype=np.uint8)
    mu, sigma = replay_levels(schedule(winner, loser, draw.astype(np.int64)), winner, loser,
                              draw, mult, np.arange(len(i)), 2)
    mu1, sigma1 = openskill_replay(i, j, res, 2)
    assert mu[0] == pytest.approx(mu1, abs=1e-9)
    assert sigma[0] == pytest.approx(sigma1, abs=1e-9)


def test_replay_counting_every_pair_twice_equals_openskill_on_either_path() -> None:
    """Every pair counted twice by every replay takes the in-place path (the same count
    everywhere); beside a replay counting nothing it takes the selecting path. Both equal
    openskill rating each pair twice in a row, bit for bit alike, and the replay counting
    nothing keeps the initial ratings."""
    from accord.bench.skill import MU0, SIGMA0

    rng = np.random.default_rng(13)
    m, p = 300, 5
    i, j, res = _random_pairs(rng, m, p)
    lost, draw = res == 0.0, res == 0.5
    winner, loser = np.where(lost, j, i), np.where(lost, i, j)
    sched = schedule(winner, loser, draw.astype(np.int64))
    twice = np.full((m, 1), 2, dtype=np.uint8)
    mu, sigma = replay_levels(sched, winner, loser, draw, twice, np.arange(m), p)
    seq = np.repeat(np.arange(m), 2)
    mu1, sigma1 = openskill_replay(i[seq], j[seq], res[seq], p)
    assert mu[0] == pytest.approx(mu1, abs=1e-9)
    assert sigma[0] == pytest.approx(sigma1, abs=1e-9)
    mixed = np.zeros((m, 2), dtype=np.uint8)
    mixed[:, 1] = 2
    mu2, sigma2 = replay_levels(sched, winner, loser, draw, mixed, np.arange(m), p)
    np.testing.assert_array_equal(mu2[1], mu[0])
    np.testing.assert_array_equal(sigma2[1], sigma[0])
    assert (mu2[0] == MU0).all() and (sigma2[0] == SIGMA0).all()


@pytest.mark.parametrize("boot", [0, 25])
def test_trueskill_point_estimate_is_openskills_rating_of_the_store_order(boot: int) -> None:
    """The point estimate (numpy, replay 0 of the bootstrap's replay) equals openskill
    rating every pair once in store order, converted to the log-odds scale and centred;
    with or without resamples beside it."""
    from accord.bench.ratings import Pairs
    from accord.bench.sequential import trueskill
    from accord.bench.skill import TO_LOGIT

    rng = np.random.default_rng(11)
    m, p = 500, 6
    i, j, res = _random_pairs(rng, m, p)
    pairs = Pairs([f"p{k}" for k in range(p)], i, j, res, res, 1 - res,
                  np.full(m, np.nan), np.arange(m), m)
    point, boots = trueskill(pairs, boot, np.random.default_rng(0))
    mu, _ = openskill_replay(i, j, res, p)
    want = TO_LOGIT * mu
    assert point == pytest.approx(want - want.mean(), abs=1e-9)
    assert boots.shape == (boot, p)


def test_trueskill_rates_without_openskill_installed(monkeypatch: pytest.MonkeyPatch
                                                    ) -> None:
    """openskill is a test dependency only (the dev extra): rating must not import it."""
    import sys

    from accord.bench.leaderboard import leaderboard

    for name in ("openskill", "openskill.models"):
        monkeypatch.setitem(sys.modules, name, None)  # "import openskill" now fails
    with pytest.raises(ImportError):
        import openskill.models  # noqa: F401
    rng = np.random.default_rng(4)
    board = leaderboard(_matches_of(rng, 60), "trueskill", bootstrap=5, seed=1)
    assert len(board.ratings) == 4 and all(r.low <= r.high for r in board.ratings)


def _matches_of(rng: np.random.Generator, n: int) -> list:
    from accord.bench.ratings import Match, Seat

    names = ["a", "b", "c", "d"]
    out = []
    for _ in range(n):
        x, y = rng.choice(4, size=2, replace=False)
        sx, sy = rng.choice([0.2, 0.5, 0.8], size=2)
        out.append(Match((Seat(names[x], float(sx)), Seat(names[y], float(sy))), True))
    return out


def test_trueskill_bootstrap_is_the_same_with_its_point_estimate_beside_it() -> None:
    """Adding the point estimate as replay 0 leaves every resample as it was (the same
    draws, the same arithmetic per replay): replaying the resamples alone agrees."""
    from accord.bench.ratings import Pairs
    from accord.bench.sequential import double_or_nothing, trueskill
    from accord.bench.skill import TO_LOGIT

    rng = np.random.default_rng(5)
    m, p = 300, 4
    i, j, res = _random_pairs(rng, m, p)
    pairs = Pairs([f"p{k}" for k in range(p)], i, j, res, res, 1 - res,
                  np.full(m, np.nan), np.arange(m), m)
    _, boots = trueskill(pairs, 8, np.random.default_rng(3))
    mult = double_or_nothing(np.random.default_rng(3), m, 8)
    lost, draw = res == 0.0, res == 0.5
    winner, loser = np.where(lost, j, i), np.where(lost, i, j)
    mu, _ = replay_levels(schedule(winner, loser, draw.astype(np.int64)), winner, loser,
                          draw, mult, np.arange(m), p)
    alone = TO_LOGIT * mu
    np.testing.assert_array_equal(boots, alone - alone.mean(axis=1, keepdims=True))


@pytest.mark.parametrize("method", METHODS)
def test_ordering_recovered_from_a_synthetic_store(tmp_path, method: str) -> None:
    path = tmp_path / "t.db"
    synthetic_tournament(path, TRUTH, 600, seed=3)
    with Store.open_readonly(path) as st:
        matches, domains, _ = collect(st.iter_episodes())
    board = leaderboard(matches, method, bootstrap=30, seed=1, domains=domains)
    assert [r.player for r in board.ratings] == list(TRUTH)
    assert board.method == method and board.to_dict()["method"] == method
    truth = _truth()
    for r in board.ratings:
        assert r.low <= truth[r.player] <= r.high, (r.player, r.low, r.high)


@pytest.mark.parametrize("method", SEQUENTIAL)
def test_intervals_cover_the_truth_at_least_at_about_their_nominal_rate(method: str
                                                                        ) -> None:
    """Sequential methods: the bootstrap replays resampled matches in a new order, so the
    interval also carries the order noise of the point estimate; in this simulation it
    covers at or a little above the nominal 95% (documented in docs/leaderboard.md)."""
    rng = np.random.default_rng(2026)
    truth = _truth()
    hits = total = 0
    for rep in range(16):
        board = leaderboard(_matches(200, rng), method, bootstrap=100, seed=rep)
        for r in board.ratings:
            hits += r.low <= truth[r.player] <= r.high
            total += 1
    assert 0.85 <= hits / total <= 1.0, hits / total  # 64 intervals, nominal 0.95


@pytest.mark.parametrize("method", METHODS)
def test_more_episodes_give_narrower_intervals(method: str) -> None:
    rng = np.random.default_rng(5)
    small = leaderboard(_matches(60, rng), method, bootstrap=100, seed=0)
    large = leaderboard(_matches(960, rng), method, bootstrap=100, seed=0)
    w_small = {r.player: r.high - r.low for r in small.ratings}
    w_large = {r.player: r.high - r.low for r in large.ratings}
    for p in TRUTH:
        assert w_large[p] < 0.75 * w_small[p], (p, w_small[p], w_large[p])


@pytest.mark.parametrize("method", SEQUENTIAL)
def test_draws_and_an_all_draw_store(method: str) -> None:
    rng = np.random.default_rng(11)
    board = leaderboard(_matches(400, rng, draw=0.3), method, bootstrap=40, seed=0)
    assert [r.player for r in board.ratings] == list(TRUTH)
    assert sum(r.draws for r in board.ratings) > 150
    flat = leaderboard([Match((Seat("a", 0.0), Seat("b", 0.0)), False)] * 12, method,
                       bootstrap=20)
    assert [r.rating for r in flat.ratings] == pytest.approx([ELO_BASE, ELO_BASE])
    assert all(math.isfinite(x) for r in flat.ratings for x in (r.low, r.high))


@pytest.mark.parametrize("method", METHODS)
def test_an_agent_with_one_episode_gets_a_wide_interval(method: str) -> None:
    rng = np.random.default_rng(9)
    matches = [*_matches(400, rng), Match((Seat("lone", 0.9), Seat("weak", 0.1)), True)]
    board = leaderboard(matches, method, bootstrap=100, seed=0)
    d = {r.player: r for r in board.ratings}
    assert d["lone"].episodes == 1
    assert all(math.isfinite(x) for x in (d["lone"].rating, d["lone"].low, d["lone"].high))
    others = [r.high - r.low for r in board.ratings if r.player != "lone"]
    assert d["lone"].high - d["lone"].low > max(others)  # than any agent with ~200 episodes
    # half of the resamples drop its only episode and leave it unrated: the interval
    # reaches down to the prior (the scale's centre, up to the centring of the others)
    assert abs(d["lone"].low - ELO_BASE) < 30 < d["lone"].rating - ELO_BASE


def test_elo_forgets_so_its_interval_is_its_window_not_the_store_size() -> None:
    """Elo's constant K weighs recent matches most: 16x the episodes do not narrow its
    interval much (unlike Glicko-2 and TrueSkill early on, or Bradley–Terry), and an agent
    with one episode spans "unrated" (half the resamples drop it) to "won it twice"."""
    rng = np.random.default_rng(5)
    small = leaderboard(_matches(200, rng), "elo", bootstrap=100, seed=0)
    large = leaderboard(_matches(3200, rng), "elo", bootstrap=100, seed=0)
    w_small = {r.player: r.high - r.low for r in small.ratings}
    w_large = {r.player: r.high - r.low for r in large.ratings}
    for p in TRUTH:
        assert 0.5 * w_small[p] < w_large[p] < 2.0 * w_small[p], p
    matches = [*_matches(400, rng), Match((Seat("lone", 0.9), Seat("weak", 0.1)), True)]
    d = {r.player: r for r in leaderboard(matches, "elo", bootstrap=100, seed=0).ratings}
    lone = d["lone"]
    assert lone.episodes == 1 and lone.low < lone.rating < lone.high
    # unrated at the scale's centre; a win over a weaker agent gains under K / 2 = 16
    # points, so two are under 32
    assert abs(lone.low - ELO_BASE) < 2 and lone.high < ELO_BASE + 32


def test_glicko2_resamples_count_a_kept_episode_in_two_periods_never_twice_in_one() -> None:
    """The same game twice in one rating period is scatter Glicko-2's volatility step reads
    as an erratic player (over 10^5 episodes some resamples' volatilities overflowed): a
    kept episode counts once in its period and once in the next."""
    rng = np.random.default_rng(3)
    m, p, size = 103, 4, 20
    i, j, res = _random_pairs(rng, m, p)
    episode = np.arange(m) // 2  # two pairs per episode, resampled together
    pairs = Pairs([f"a{k}" for k in range(p)], i, j, res, res, res, res, episode, 52)
    keep = rng.integers(0, 2, size=(52, 6), dtype=np.uint8)
    seen = np.zeros((7, m), dtype=np.int64)
    periods = list(glicko2_periods(pairs, keep, size))
    for at, weight in periods:
        assert len(set(at.tolist())) == len(at) and weight.max() <= 1
        np.add.at(seen.T, at, weight.T)
    assert (seen[0] == 1).all()  # the point estimate: every pair once, in store order
    assert (seen[1:] == 2 * keep[episode].T).all()  # a resample: kept pairs twice
    assert [w[0].sum() for _, w in periods] == [20] * 5 + [3, 0]
    assert len(list(glicko2_periods(pairs, None, size))) == 6  # no extra period


def test_glicko2_bootstrap_is_finite_over_a_long_store() -> None:
    rng = np.random.default_rng(3)
    m, p = 20_000, 4
    i, j, res = _random_pairs(rng, m, p)
    pairs = Pairs([f"a{k}" for k in range(p)], i, j, res, res, res, res, np.arange(m), m)
    with np.errstate(over="raise", invalid="raise"):
        point, boots = glicko2(pairs, 20, np.random.default_rng(0))
    assert np.isfinite(boots).all()
    # equal players: every resample's ratings stay within a fraction of a log-odds unit
    assert np.abs(boots).max() < 1.0 and np.abs(point).max() < 1.0
