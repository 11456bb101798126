"""Exact Bayesian belief model: Omega, P_EF of eq. (2), problem (1), update of eq. (3)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from accord.solvers.bayes import (
    Belief,
    belief_model,
    expected_partner_utility,
    offer_likelihood,
    p_ef,
    possibly_envy_free,
    rejection_likelihood,
    solve_proposal,
    update,
    valuation_space,
)

Vec = tuple[int, ...]


def brute_space(counts: tuple[int, ...], total: int) -> set[tuple[int, ...]]:
    return {w for w in itertools.product(range(total + 1), repeat=len(counts))
            if sum(c * x for c, x in zip(counts, w, strict=True)) == total}


@pytest.mark.parametrize("counts", [(1, 1, 1), (1, 2, 3), (3, 1, 1), (2, 2, 2), (4, 1, 2)])
def test_valuation_space_matches_brute_force(counts: tuple[int, ...]) -> None:
    got = valuation_space(counts, 10)
    assert set(got) == brute_space(counts, 10) and len(got) == len(set(got))


def test_valuation_space_size_for_single_units() -> None:
    assert len(valuation_space((1, 1, 1), 10)) == 66  # C(12, 2)


def dot(a: Vec, b: Vec) -> int:
    return sum(x * y for x, y in zip(a, b, strict=True))


def ef_both(counts: Vec, own: Vec, w: Vec, share: Vec) -> bool:
    other = tuple(c - s for c, s in zip(counts, share, strict=True))
    return dot(own, share) >= dot(own, other) and dot(w, other) >= dot(w, share)


@pytest.mark.parametrize("counts,own", [((1, 2, 3), (4, 0, 2)), ((2, 2, 1), (1, 2, 4))])
def test_p_ef_uniform_is_exact_fraction_of_support(counts: Vec, own: Vec) -> None:
    m = belief_model(counts, own)
    b = Belief.uniform(m)
    space = valuation_space(counts, 10)
    for idx in range(len(m.shares)):
        share = m.share(idx)
        want = Fraction(sum(ef_both(counts, own, w, share) for w in space), len(space))
        assert p_ef(b, idx) == want
        assert bool(possibly_envy_free(b)[idx]) == (want > 0)


def test_problem_1_matches_brute_force() -> None:
    counts, own = (1, 2, 3), (4, 0, 2)
    m = belief_model(counts, own)
    b = Belief.uniform(m)
    space = valuation_space(counts, 10)
    feas = [s for s in itertools.product(range(2), range(3), range(4))
            if any(ef_both(counts, own, w, s) for w in space)]
    top = max(sum(v * x for v, x in zip(own, s, strict=True)) for s in feas)
    want = {s for s in feas if sum(v * x for v, x in zip(own, s, strict=True)) == top}
    assert {m.share(i) for i in solve_proposal(b)} == want
    # the exclusion list skips shares
    first = solve_proposal(b)
    assert not set(first) & set(solve_proposal(b, exclude=set(first)))


def test_threshold_restricts_candidates() -> None:
    m = belief_model((1, 2, 3), (4, 0, 2))
    b = Belief.uniform(m)
    loose = solve_proposal(b, 0)
    strict = solve_proposal(b, Fraction(1, 2))
    assert all(p_ef(b, i) > Fraction(1, 2) for i in strict)
    assert m.own_utility[strict[0]] <= m.own_utility[loose[0]]


def test_rejection_likelihood_hand_computed() -> None:
    # one book, one hat, one ball; I value only the book
    counts, own = (1, 1, 1), (10, 0, 0)
    m = belief_model(counts, own)
    take_book = m.share_index((1, 0, 0))
    rows = [tuple(w) for w in m.valuations.tolist()]
    lik = dict(zip(rows, rejection_likelihood(m, take_book, 1), strict=True))
    # partner valuing the book most envies my share: R1
    assert lik[(10, 0, 0)] == 1 and lik[(6, 2, 2)] == 1
    # book worth 5 to the partner: no envy (5 >= 5), but from its side book and hat for it,
    # the ball for me, is plausibly fair to me and worth 10 to it: R2 -> gamma
    assert lik[(5, 5, 0)] == 1
    exact = dict(zip(rows, rejection_likelihood(m, take_book, 1, "exact"), strict=True))
    assert exact[(5, 5, 0)] == 0  # knowing I need the book, it would have accepted
    # partner valuing the book 0: my share is fine for it and it already holds everything
    # else, which is the most it can get while leaving me a plausibly fair share -> accept
    assert lik[(0, 5, 5)] == 0
    lik_g = rejection_likelihood(m, m.share_index((1, 1, 0)), Fraction(1, 3))
    vals = {tuple(w): p for w, p in zip(m.valuations.tolist(), lik_g, strict=True)}
    # partner (0,0,10) gets the ball (10): EF for it; it could not get more -> 0;
    # partner (0,5,5) gets 5 vs 5: EF, but could get hat and ball (10) -> R2 -> gamma
    assert vals[(0, 0, 10)] == 0 and vals[(0, 5, 5)] == Fraction(1, 3)


def test_exact_view_can_drop_the_truth_partner_view_keeps_it() -> None:
    # test/53: I value only the ball; the partner's true values are (2, 1, 5)
    counts, own, truth = (1, 3, 1), (0, 0, 10), (2, 1, 5)
    m = belief_model(counts, own)
    ball = m.share_index((0, 0, 1))
    row = m.valuation_index(truth)
    assert row is not None
    assert rejection_likelihood(m, ball, 1, "exact")[row] == 0
    assert rejection_likelihood(m, ball, 1, "partner")[row] == 1
    with pytest.raises(ValueError, match="view"):
        rejection_likelihood(m, ball, 1, "mine")  # type: ignore[arg-type]


def test_update_lambda_one_is_bayes_and_lambda_half_mixes() -> None:
    m = belief_model((1, 1, 1), (10, 0, 0))
    b = Belief.uniform(m)
    n = m.n_valuations
    lik = rejection_likelihood(m, m.share_index((1, 0, 0)), Fraction(1, 2))
    z = sum(lik) / n
    full, ok = update(b, lik, 1)
    assert ok and sum(full.probs) == 1
    for p, lk in zip(full.probs, lik, strict=True):
        assert p == lk / n / z
    half, _ = update(b, lik, Fraction(1, 2))
    for p, lk in zip(half.probs, lik, strict=True):
        assert p == Fraction(1, 2) / n + Fraction(1, 2) * lk / n / z
    assert len(half.support()) == n  # lam < 1 never shrinks the support
    assert len(full.support()) == sum(1 for lk in lik if lk)


def test_update_with_impossible_evidence_keeps_belief() -> None:
    m = belief_model((1, 1, 1), (10, 0, 0))
    b = Belief.uniform(m)
    same, ok = update(b, (Fraction(0),) * m.n_valuations, 1)
    assert not ok and same is b
    with pytest.raises(ValueError, match="lambda"):
        update(b, (Fraction(1),) * m.n_valuations, 2)


def test_offer_likelihood_drops_valuations_that_envy() -> None:
    m = belief_model((1, 1, 1), (10, 0, 0))
    # the partner proposes I take the ball only (it takes book and hat)
    lik = offer_likelihood(m, m.share_index((0, 0, 1)))
    for w, lk in zip(m.valuations.tolist(), lik, strict=True):
        assert lk == (1 if w[0] + w[1] >= w[2] else 0)


def test_expected_partner_utility_uniform() -> None:
    m = belief_model((1, 1, 1), (10, 0, 0))
    b = Belief.uniform(m)
    # giving everything away: the partner expects its full total
    assert expected_partner_utility(b, m.share_index((0, 0, 0))) == 10
    assert expected_partner_utility(b, m.share_index((1, 1, 1))) == 0


def test_spaces_past_the_cap_are_refused_before_enumerating() -> None:
    # sizes just past the cap (the old code enumerated them in a second or two and the
    # issue's counts of 100,000 until the kernel killed it)
    from accord.solvers.bayes import MAX_MODEL_CELLS, BeliefSpaceTooLarge, belief_model

    with pytest.raises(BeliefSpaceTooLarge, match="a belief model holds at most"):
        belief_model((1, 1, 1), (400, 0, 0))  # 8 shares x 401^2 valuation steps
    with pytest.raises(BeliefSpaceTooLarge, match=f"at most {MAX_MODEL_CELLS:,}"):
        valuation_space((1, 1, 1), 1_100)  # 1,101^2 steps
    with pytest.raises(BeliefSpaceTooLarge):
        belief_model((100_000, 100_000, 100_000), (1, 0, 0))
    assert belief_model((4, 4, 4), (1, 1, 1)).n_valuations > 0  # within the cap
