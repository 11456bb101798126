"""The uniform-support fast path of the belief update equals exact Fraction arithmetic."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.solvers.bayes import (
    Belief,
    Indicator,
    belief_model,
    expected_partner_utility,
    offer_likelihood,
    p_ef,
    possibly_envy_free,
    rejection_likelihood,
    solve_proposal,
    update,
)


def _slow(b: Belief) -> Belief:
    return replace(b, uniform_on=None)  # same probabilities, exact path everywhere


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([(1, 1, 3), (2, 2, 1), (1, 4, 1), (3, 1, 2)]),
       st.integers(0, 2**32 - 1), st.sampled_from([1, Fraction(1, 2), 0]),
       st.sampled_from(["partner", "exact"]))
def test_fast_updates_match_exact_updates(counts: tuple[int, ...], seed: int,
                                          gamma: Fraction, view: str) -> None:
    rng = np.random.default_rng(seed)
    own = tuple(int(v) for v in rng.integers(0, 4, len(counts)))
    if sum(c * v for c, v in zip(counts, own, strict=True)) == 0:
        own = (1,) * len(counts)
    model = belief_model(counts, own)
    fast = Belief.uniform(model)
    slow = _slow(fast)
    for _ in range(4):
        share = int(rng.integers(len(model.shares)))
        if rng.random() < 0.5:
            lik = rejection_likelihood(model, share, gamma, view)  # type: ignore[arg-type]
        else:
            lik = offer_likelihood(model, share)
        fast, ok_f = update(fast, lik, 1)
        slow, ok_s = update(slow, tuple(lik), 1)  # a plain tuple: the exact path
        assert ok_f == ok_s
        assert fast.probs == slow.probs
        assert sum(fast.probs) == 1
        assert np.array_equal(fast.mask(), slow.mask())
        for s in range(len(model.shares)):
            assert p_ef(fast, s) == p_ef(slow, s)
            assert expected_partner_utility(fast, s) == expected_partner_utility(slow, s)
        assert np.array_equal(possibly_envy_free(fast), possibly_envy_free(slow))
        assert solve_proposal(fast, Fraction(1, 3)) == solve_proposal(slow, Fraction(1, 3))


def test_fast_path_only_for_uniform_zero_one_evidence_at_full_step() -> None:
    model = belief_model((1, 2, 3), (2, 1, 1))
    prior = Belief.uniform(model)
    lik = offer_likelihood(model, 3)
    assert isinstance(lik, Indicator) and all(v in (0, 1) for v in lik)
    assert update(prior, lik, 1)[0].uniform_on is not None
    half = update(prior, lik, Fraction(1, 2))[0]  # a mixture: not uniform any more
    assert half.uniform_on is None
    assert half.probs == _slow_update(prior, lik, Fraction(1, 2))
    graded = rejection_likelihood(model, 3, Fraction(1, 2))
    assert not isinstance(graded, Indicator)


def _slow_update(b: Belief, lik: tuple[Fraction, ...], lam: Fraction) -> tuple[Fraction, ...]:
    joint = [lk * p for lk, p in zip(lik, b.probs, strict=True)]
    z = sum(joint, Fraction(0))
    return tuple((1 - lam) * p + lam * j / z for p, j in zip(b.probs, joint, strict=True))
