"""Ratings of agents (accord.bench.leaderboard): scores per domain, Bradley–Terry and Elo
recover a known ground truth, bootstrap intervals cover it, draws and lone agents."""

from __future__ import annotations

import math

import numpy as np
import pytest

from accord.bench.leaderboard import (
    ELO_BASE,
    ELO_SCALE,
    LeaderboardError,
    Match,
    Seat,
    bt_fit,
    bt_fit_many,
    collect,
    episode_match,
    leaderboard,
)
from accord.bench.store import EpisodeRow, Store
from accord.testing.ratings import synthetic_tournament

TRUTH = {"strong": 1.2, "good": 0.4, "fair": -0.3, "weak": -1.3}


def _row(domain: str, agents: list[str], metrics: dict, outcome: str = "agreement",
         summary: dict | None = None, status: str = "done") -> EpisodeRow:
    return EpisodeRow("r", "id", 0, {"domain": domain, "agents": agents}, {"agents": agents},
                      status, outcome, summary, metrics, None, None, None, 1, None)


def _board(path, **kw):
    with Store.open_readonly(path) as st:
        matches, domains, skipped = collect(st.iter_episodes(), kw.pop("by", "agent"))
    return leaderboard(matches, domains=domains, skipped=skipped, **kw)


def _truth_elo(names: list[str]) -> dict[str, float]:
    mean = sum(TRUTH.values()) / len(TRUTH)
    return {n: ELO_BASE + ELO_SCALE * (TRUTH[n] - mean) for n in names}


def _matches(n: int, rng: np.random.Generator, strengths=TRUTH) -> list[Match]:
    """Random pairings with win probabilities set by ``strengths`` (no draws)."""
    names = list(strengths)
    out = []
    for _ in range(n):
        a, b = rng.choice(len(names), size=2, replace=False)
        p = 1 / (1 + math.exp(strengths[names[b]] - strengths[names[a]]))
        win = rng.random() < p
        out.append(Match((Seat(names[a], 0.6 if win else 0.2),
                          Seat(names[b], 0.2 if win else 0.6)), True))
    return out


def test_bargaining_score_is_surplus_over_batna_normalised() -> None:
    row = _row("bargaining", ["x", "y"], {"u_buyer": 0.7, "gain_buyer": 0.3,
                                          "u_seller": 0.5, "gain_seller": 0.0})
    m, why = episode_match(row)
    assert why is None and m is not None
    assert [s.score for s in m.seats] == pytest.approx([0.5, 0.0])  # (0.7-0.4)/(1-0.4)
    assert m.agreed is True
    nodeal = _row("bargaining", ["x", "y"], {"u_buyer": 0.4, "gain_buyer": 0.0,
                                             "u_seller": 0.5, "gain_seller": 0.0},
                  outcome="no_deal")
    m, _ = episode_match(nodeal)
    assert m is not None and [s.score for s in m.seats] == [0.0, 0.0] and m.agreed is False


def test_party_order_comes_from_the_record_when_stored() -> None:
    met = {"u_seller": 0.9, "gain_seller": 0.4, "u_buyer": 0.4, "gain_buyer": 0.0}
    row = _row("bargaining", ["x", "y"], met,
               summary={"record": {"parties": ["buyer", "seller"]}})
    m, _ = episode_match(row)
    assert m is not None and m.seats[0].score == 0.0 and m.seats[1].score == pytest.approx(0.8)


def test_dond_is_rated_under_the_name_its_episodes_are_stored_with() -> None:
    """Regression: a Deal-or-No-Deal run stores its domain as ``deal-or-no-deal`` (the
    registry's name), which the leaderboard skipped as "no per-party score defined"."""
    from accord.domains import get_domain

    name = get_domain("deal-or-no-deal").name
    m, why = episode_match(_row(name, ["a", "b"], {"agreement": True, "alice": 4, "bob": 6}))
    assert why is None and m is not None
    assert [s.score for s in m.seats] == [4.0, 6.0] and m.agreed is True
    m, _ = episode_match(_row(name, ["a", "b"], {"agreement": False, "alice": 0, "bob": 0},
                              outcome="no_deal"))
    assert m is not None and m.agreed is False


def test_games_dond_and_task_exchange_scores_and_deliberation_is_skipped() -> None:
    m, _ = episode_match(_row("games", ["a", "b"], {"payoff_1": 3, "payoff_2": 1},
                              outcome="completed"))
    assert m is not None and [s.score for s in m.seats] == [3.0, 1.0] and m.agreed is None
    m, _ = episode_match(_row("deal_or_no_deal", ["a", "b"],
                              {"agreement": True, "alice": 4, "bob": 6}))
    assert m is not None and [s.score for s in m.seats] == [4.0, 6.0] and m.agreed is True
    m, _ = episode_match(_row("task_exchange", ["a", "b"],
                              {"agreed": True, "utility_A": 2.0, "utility_B": 1.0,
                               "initial_utility_A": 0.0}, outcome="agreed"))
    assert m is not None and [s.score for s in m.seats] == [2.0, 1.0]
    m, why = episode_match(_row("deliberation", ["a", "b"], {"reward": 1.0}))
    assert m is None and why is not None and "shared" in why
    m, why = episode_match(_row("bargaining", ["a", "a"], {"u_buyer": 0.5, "gain_buyer": 0.1,
                                                           "u_seller": 0.5, "gain_seller": 0.1}))
    assert m is None and "self-play" in str(why)
    m, why = episode_match(_row("bargaining", ["a", "b"], {}, outcome="error"))
    assert m is None and "error" in str(why)


def test_by_model_rates_the_model_inside_an_llm_spec() -> None:
    met = {"u_buyer": 0.7, "gain_buyer": 0.3, "u_seller": 0.5, "gain_seller": 0.0}
    row = _row("bargaining", ["llm:openai/gpt-4o?temperature=0", "boulware"], met)
    m, _ = episode_match(row, by="model")
    assert m is not None and [s.label for s in m.seats] == ["openai/gpt-4o", "boulware"]
    m, _ = episode_match(row, by="agent0")
    assert m is not None and m.seats[1].label == "boulware [seat 1]"


def test_ordering_recovered_from_a_synthetic_store(tmp_path) -> None:
    path = tmp_path / "t.db"
    synthetic_tournament(path, TRUTH, 1000, seed=3)
    for method in ("bt", "elo"):
        board = _board(path, method=method, bootstrap=20, seed=1)
        assert [r.player for r in board.ratings] == list(TRUTH), method
    board = _board(path, bootstrap=100, seed=1)
    truth = _truth_elo(list(TRUTH))
    for r in board.ratings:
        assert r.low <= truth[r.player] <= r.high
        assert r.wins + r.draws + r.losses == r.matches == r.episodes
    assert sum(r.episodes for r in board.ratings) == 2 * 1000
    assert board.domains == {"bargaining": 1000}


def test_intervals_cover_the_truth_at_about_their_nominal_rate() -> None:
    rng = np.random.default_rng(2026)
    truth = _truth_elo(list(TRUTH))
    hits = total = 0
    for rep in range(40):
        board = leaderboard(_matches(300, rng), bootstrap=200, seed=rep)
        for r in board.ratings:
            hits += r.low <= truth[r.player] <= r.high
            total += 1
    rate = hits / total
    assert 0.85 <= rate <= 1.0, rate  # nominal 0.95 over 160 intervals


def test_more_episodes_give_narrower_intervals() -> None:
    rng = np.random.default_rng(5)
    small = leaderboard(_matches(120, rng), bootstrap=200, seed=0)
    large = leaderboard(_matches(1920, rng), bootstrap=200, seed=0)
    w_small = {r.player: r.high - r.low for r in small.ratings}
    w_large = {r.player: r.high - r.low for r in large.ratings}
    for p in TRUTH:
        assert w_large[p] < 0.5 * w_small[p], p  # 16x the data: about 1/4 the width


def test_draws_count_as_half_wins_and_equal_agents_rate_equal(tmp_path) -> None:
    path = tmp_path / "d.db"
    synthetic_tournament(path, {"p": 0.0, "q": 0.0}, 400, seed=4, draw=0.5)
    board = _board(path, bootstrap=50)
    d = {r.player: r for r in board.ratings}
    assert d["p"].draws == d["q"].draws > 100
    assert d["p"].wins == d["q"].losses and d["p"].losses == d["q"].wins
    assert abs(d["p"].rating - d["q"].rating) < 60
    h2h = {(h.player, h.opponent): h for h in board.head_to_head}
    pq = h2h[("p", "q")]
    assert pq.matches == 400 and pq.draws == d["p"].draws
    assert 0.4 < pq.agreement_rate < 0.6  # no deal is the draw
    # every match a draw: ratings level, nothing diverges
    board = leaderboard([Match((Seat("a", 0.0), Seat("b", 0.0)), False)] * 10, bootstrap=20)
    assert [r.rating for r in board.ratings] == pytest.approx([ELO_BASE, ELO_BASE])


def test_an_agent_with_one_episode_gets_a_wide_interval() -> None:
    rng = np.random.default_rng(9)
    matches = [*_matches(600, rng), Match((Seat("lone", 0.9), Seat("weak", 0.1)), True)]
    board = leaderboard(matches, bootstrap=200, seed=0)
    d = {r.player: r for r in board.ratings}
    assert d["lone"].episodes == 1 and d["lone"].wins == 1
    assert all(math.isfinite(x) for x in (d["lone"].rating, d["lone"].low, d["lone"].high))
    others = [r.high - r.low for r in board.ratings if r.player != "lone"]
    assert d["lone"].high - d["lone"].low > 1.5 * max(others)  # prior-bound, see the docs


def test_head_to_head_is_the_mean_score_and_agreement_per_ordered_pair() -> None:
    matches = [Match((Seat("a", 0.5), Seat("b", 0.1)), True),
               Match((Seat("b", 0.3), Seat("a", 0.2)), True),
               Match((Seat("a", 0.0), Seat("b", 0.0)), False)]
    board = leaderboard(matches, bootstrap=0)
    h = {(x.player, x.opponent): x for x in board.head_to_head}
    assert h[("a", "b")].mean_score == pytest.approx(0.7 / 3)
    assert h[("b", "a")].mean_score == pytest.approx(0.4 / 3)
    assert (h[("a", "b")].wins, h[("a", "b")].draws, h[("a", "b")].losses) == (1, 1, 1)
    assert h[("a", "b")].agreement_rate == pytest.approx(2 / 3)
    assert math.isnan(board.ratings[0].low)  # no bootstrap, no interval


def test_batched_newton_matches_the_scipy_fit() -> None:
    rng = np.random.default_rng(0)
    wins = rng.integers(0, 30, size=(6, 5, 5)).astype(float)
    wins[:, np.arange(5), np.arange(5)] = 0
    wins[0, 0, :] = 0  # an agent that never won
    many = bt_fit_many(wins)
    for k in range(6):
        assert many[k] == pytest.approx(bt_fit(wins[k]), abs=1e-5)


def test_bad_input_gets_a_specific_error() -> None:
    one = [Match((Seat("a", 1.0), Seat("b", 0.0)), True)]
    with pytest.raises(LeaderboardError, match="unknown rating method 'glicko'"):
        leaderboard(one, method="glicko")
    with pytest.raises(LeaderboardError, match="nothing to rate"):
        leaderboard([])
    with pytest.raises(LeaderboardError, match="--by must be one of"):
        collect([], by="seat")


def test_three_seat_episodes_are_every_pair_and_resampled_whole() -> None:
    m = Match((Seat("a", 0.9), Seat("b", 0.5), Seat("c", 0.1)), True)
    board = leaderboard([m] * 30 + [Match((Seat("c", 0.6), Seat("a", 0.2)), True)] * 5,
                        bootstrap=100, seed=3)
    d = {r.player: r for r in board.ratings}
    assert [r.player for r in board.ratings] == ["a", "b", "c"]
    assert (d["a"].wins, d["a"].losses, d["a"].matches, d["a"].episodes) == (60, 5, 65, 35)
    assert d["b"].matches == 60 and d["b"].episodes == 30
    # b sits between a and c in every resample: the same rating, up to rounding
    assert all(r.low - 1e-6 <= r.rating <= r.high + 1e-6 for r in board.ratings)
    assert d["b"].high - d["b"].low < 1e-6 < d["a"].high - d["a"].low
    assert board.episodes == 35
