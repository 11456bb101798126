"""The store-order bootstrap of the sequential rating methods (accord.bench.sequential):
levels of independent pairs, double-or-nothing multiplicities, Elo's vectorised replay."""

from __future__ import annotations

import numpy as np
import pytest

from accord.bench.ratings import ELO_K, ELO_SCALE, Pairs
from accord.bench.sequential import (
    double_or_nothing,
    elo,
    elo_point,
    elo_replay,
    schedule,
    trueskill,
)


def _random_pairs(rng: np.random.Generator, m: int, p: int):
    i = rng.integers(0, p, m)
    j = (i + rng.integers(1, p, m)) % p
    return i, j, rng.choice([0.0, 0.5, 1.0], m, p=[0.4, 0.2, 0.4])


def test_levels_share_no_player_and_keep_each_players_order() -> None:
    rng = np.random.default_rng(0)
    i, j, _ = _random_pairs(rng, 500, 6)
    key = (rng.random(500) < 0.3).astype(np.int64)
    sched = schedule(i, j, key)
    assert sorted(sched.order.tolist()) == list(range(500))
    position = np.empty(500, dtype=np.int64)
    position[sched.order] = np.arange(500)
    levels = list(sched.levels())
    assert 500 / 3 <= len(levels) < 500  # 6 players: at most 3 pairs a level
    for lv in levels:
        players = np.r_[i[lv], j[lv]]
        assert len(set(players.tolist())) == len(players)
        assert (np.diff(key[lv]) >= 0).all()  # sorted by key within a level
    for who in range(6):  # each player's pairs are rated in store order
        mine = np.flatnonzero((i == who) | (j == who))
        assert (np.diff(position[mine]) > 0).all()


def test_an_empty_sequence_has_no_levels() -> None:
    sched = schedule(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    assert list(sched.levels()) == []


def test_double_or_nothing_counts_are_zero_or_two_with_mean_and_variance_one() -> None:
    mult = double_or_nothing(np.random.default_rng(1), 20_000, 50)
    assert mult.dtype == np.uint8 and mult.shape == (20_000, 50)
    assert set(np.unique(mult).tolist()) == {0, 2}
    assert mult.mean() == pytest.approx(1.0, abs=0.01)
    assert mult.astype(float).var() == pytest.approx(1.0, abs=0.01)
    again = double_or_nothing(np.random.default_rng(1), 20_000, 50)
    assert (again == mult).all()  # seeded


def test_elo_replay_equals_elo_on_each_replays_own_sequence() -> None:
    rng = np.random.default_rng(2)
    m, p = 300, 5
    i, j, res = _random_pairs(rng, m, p)
    episode = np.arange(m) // 3  # three pairs per episode share its multiplicity
    mult = rng.integers(0, 4, size=(100, 4)).astype(np.uint8)
    mult[:, 0] = 1
    th = elo_replay(schedule(i, j), i, j, res, mult, episode, p, 0.2)
    for k in range(4):
        seq = np.repeat(np.arange(m), mult[episode, k])
        assert th[k] == pytest.approx(elo_point(i[seq], j[seq], res[seq], p, 0.2),
                                      abs=1e-12), k


@pytest.mark.parametrize("method", [elo, trueskill])
def test_a_resample_is_the_kept_episodes_rated_twice_in_a_row(method) -> None:
    """Each bootstrap row equals the method's point estimate on that resample's sequence:
    the kept episodes in store order, each rated twice."""
    rng = np.random.default_rng(4)
    m, p = 120, 4
    i, j, res = _random_pairs(rng, m, p)
    names = [f"a{k}" for k in range(p)]
    pairs = Pairs(names, i, j, res, res, res, res, np.arange(m), m)
    point, boots = method(pairs, 3, np.random.default_rng(9))
    mult = double_or_nothing(np.random.default_rng(9), m, 3)
    for k in range(3):
        seq = np.repeat(np.arange(m), mult[:, k])
        alone = Pairs(names, i[seq], j[seq], res[seq], res[seq], res[seq], res[seq],
                      np.arange(len(seq)), len(seq))
        expect, _ = method(alone, 0, np.random.default_rng(0))
        assert boots[k] == pytest.approx(expect, abs=1e-9), k
    assert point == pytest.approx(method(pairs, 0, np.random.default_rng(0))[0])


def test_elo_scale_is_k_over_the_points_per_log_odds_unit() -> None:
    # one win from level: the winner gains K / 2 Elo points
    pairs = Pairs(["a", "b"], np.array([0]), np.array([1]), np.array([1.0]), np.ones(1),
                  np.zeros(1), np.ones(1), np.zeros(1, dtype=np.int64), 1)
    point, _ = elo(pairs, 0, np.random.default_rng(0))
    assert ELO_SCALE * (point[0] - point[1]) == pytest.approx(ELO_K)
