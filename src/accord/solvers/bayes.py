"""Bayesian beliefs over a partner's private valuation (seed 003, section 5.2).

A player who knows the item ``counts`` and its own per-unit values keeps a belief (a
probability mass function, Definition 10) over every integer valuation vector ``w >= 0``
of the partner with ``counts . w = total``. Everything here is exact: utilities are
integers, probabilities are :class:`fractions.Fraction`.

* :func:`p_ef` is equation (2): the probability, under the belief, that an allocation is
  envy-free for both sides, summed exactly over the belief's support.
* :func:`solve_proposal` is problem (1): the shares maximising own utility subject to
  ``P_EF > threshold`` (the paper uses ``threshold = 0``).
* :func:`rejection_likelihood` and :func:`update` are equation (3): after the partner
  rejects an allocation, ``B <- (1 - lam) B + lam P(v | R)`` with ``P(R | v)`` equal to 1
  when the partner envies the allocation (R1), ``gamma`` when it is envy-free for them but
  some other allocation envy-free for both gives them strictly more (R2), and 0 otherwise
  (a rational partner with that valuation would have accepted; the paper writes this case
  as ``-inf``, i.e. impossible).

Whose ``P_EF`` decides R2 is ambiguous in the paper; :func:`rejection_likelihood` takes
the partner's (default) or the exact reading, see there. With ``lam < 1`` the support
never shrinks, so problem (1) with ``threshold = 0`` sees no change; pass a
positive threshold to make ``lam`` bite. Shares are always the *proposer's own* share.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Literal

import numpy as np

Vector = tuple[int, ...]

#: most cells (own shares x partner valuations) a belief model may hold: ~8 arrays of
#: that many 8-byte entries, so ~64 MB at the cap. Callers with data from files check a
#: tighter budget first (:mod:`accord.domains.deal_or_no_deal.budget`).
MAX_MODEL_CELLS = 1_000_000


class BeliefSpaceTooLarge(ValueError):
    """The shares or valuations to enumerate exceed :data:`MAX_MODEL_CELLS`."""


def check_model_size(counts: Sequence[int], total: int) -> None:
    """:class:`BeliefSpaceTooLarge` before enumerating a space past :data:`MAX_MODEL_CELLS`.

    The valuation enumeration walks the product of ``total // count + 1`` over every item
    but the last; the shares are the product of ``count + 1``.
    """
    if any(c <= 0 for c in counts):
        raise ValueError(f"item counts must be positive, got {tuple(counts)}")
    shares = math.prod(int(c) + 1 for c in counts)
    steps = math.prod(max(0, total) // int(c) + 1 for c in counts[:-1])
    if shares * steps > MAX_MODEL_CELLS:
        raise BeliefSpaceTooLarge(
            f"counts {tuple(counts)} with total {total} need {shares:.3g} shares x "
            f"{steps:.3g} valuation steps; a belief model holds at most {MAX_MODEL_CELLS:,}")


def as_fraction(x: float | int | str | Fraction) -> Fraction:
    """An exact fraction for a hyperparameter (``0.1`` becomes ``1/10``, not a binary float)."""
    if isinstance(x, Fraction):
        return x
    return Fraction(str(x)) if isinstance(x, float) else Fraction(x)


def valuation_space(counts: Sequence[int], total: int) -> tuple[Vector, ...]:
    """Omega of Definition 10 on the integer lattice: all ``w >= 0`` with ``counts . w = total``."""
    if any(c <= 0 for c in counts):
        raise ValueError(f"item counts must be positive, got {tuple(counts)}")
    steps = math.prod(max(0, total) // int(c) + 1 for c in counts[:-1])
    if steps > MAX_MODEL_CELLS:
        raise BeliefSpaceTooLarge(f"counts {tuple(counts)} with total {total} need {steps:.3g} "
                                  f"valuation steps; at most {MAX_MODEL_CELLS:,}")
    out: list[Vector] = []
    ranges = [range(total // c + 1) for c in counts[:-1]]
    for head in itertools.product(*ranges):
        rest = total - sum(c * w for c, w in zip(counts, head, strict=False))
        if rest >= 0 and rest % counts[-1] == 0:
            out.append((*head, rest // counts[-1]))
    return tuple(out)


@dataclass(frozen=True, eq=False)
class BeliefModel:
    """Exact tables for one player: its shares, the partner's valuation space and EF masks.

    Rows index valuations ``w`` of the partner, columns index the player's own shares.
    ``accepts[w, a]`` is true when a partner with valuation ``w`` who knew the player's
    values would accept ``a`` (envy-free for both, the partner's best such utility).
    ``plausible[a]`` is true when some valuation of the player makes ``a`` envy-free for
    it - the most the partner can tell before learning anything - and
    ``partner_best_plausible[w]`` is the partner's best utility over allocations it does not
    envy and that are plausibly fair to the player.
    """

    counts: Vector
    own: Vector
    total: int
    shares: np.ndarray
    valuations: np.ndarray
    own_utility: np.ndarray
    own_ok: np.ndarray
    partner_utility: np.ndarray
    partner_ok: np.ndarray
    ef: np.ndarray
    partner_best_ef: np.ndarray
    accepts: np.ndarray
    plausible: np.ndarray
    partner_best_plausible: np.ndarray

    @property
    def n_valuations(self) -> int:
        """Size of the valuation space (the prior support)."""
        return int(self.valuations.shape[0])

    def share_index(self, share: Sequence[int]) -> int:
        """Column of ``share``; ``ValueError`` when it is not a valid share."""
        idx = 0
        for c, s in zip(self.counts, share, strict=True):
            if not 0 <= int(s) <= c:
                raise ValueError(f"share {tuple(share)} is not within counts {self.counts}")
            idx = idx * (c + 1) + int(s)
        return idx

    def share(self, index: int) -> Vector:
        """The share in column ``index``."""
        return tuple(int(x) for x in self.shares[index])

    def valuation_index(self, w: Sequence[int]) -> int | None:
        """Row of valuation ``w``, or ``None`` when it is outside the space."""
        hits = np.flatnonzero((self.valuations == np.asarray(w)).all(axis=1))
        return int(hits[0]) if hits.size else None


@lru_cache(maxsize=1024)
def belief_model(counts: Vector, own: Vector, total: int | None = None) -> BeliefModel:
    """Build (and cache) the tables for ``counts`` and own values; ``total`` defaults to own."""
    counts, own = tuple(int(c) for c in counts), tuple(int(v) for v in own)
    if total is None:
        total = sum(c * v for c, v in zip(counts, own, strict=True))
    check_model_size(counts, total)
    shares = np.array(list(itertools.product(*(range(c + 1) for c in counts))), dtype=np.int64)
    vals = np.array(valuation_space(counts, total), dtype=np.int64).reshape(-1, len(counts))
    cvec = np.asarray(counts, dtype=np.int64)
    own_u = shares @ np.asarray(own, dtype=np.int64)
    own_ok = own_u >= (cvec - shares) @ np.asarray(own, dtype=np.int64)
    p_util = vals @ (cvec - shares).T  # partner's utility for what it gets
    p_other = vals @ shares.T  # partner's utility for the player's share
    p_ok = p_util >= p_other
    ef = p_ok & own_ok[None, :]
    best = np.where(ef, p_util, -1).max(axis=1)
    accepts = ef & (p_util == best[:, None])
    # the partner's own view: it cannot know our values, so a share is plausibly fair to us
    # when some valuation of ours (on the same lattice) makes us not envy the partner
    mine = np.array(valuation_space(counts, total), dtype=np.int64).reshape(-1, len(counts))
    plausible = np.asarray(((mine @ shares.T) >= (mine @ (cvec - shares).T)).any(axis=0),
                           dtype=bool)
    best_plausible = np.where(p_ok & plausible[None, :], p_util, -1).max(axis=1)
    return BeliefModel(counts, own, total, shares, vals, own_u, own_ok, p_util, p_ok, ef,
                       best, accepts, plausible, best_plausible)


class Indicator(tuple[Fraction, ...]):
    """A likelihood whose every value is 0 or 1, with that as a boolean mask (``ones``)."""

    ones: np.ndarray

    def __new__(cls, ones: np.ndarray) -> Indicator:
        self = super().__new__(cls, (_ONE if v else _ZERO for v in ones.tolist()))
        self.ones = np.asarray(ones, dtype=bool)
        return self


_ZERO, _ONE = Fraction(0), Fraction(1)


def _uniform_probs(support: np.ndarray) -> tuple[Fraction, ...]:
    p = Fraction(1, int(support.sum()))
    return tuple(p if s else _ZERO for s in support.tolist())


@dataclass(frozen=True, eq=False)
class Belief:
    """A probability mass function over the model's valuation space (exact fractions).

    ``uniform_on`` is set when the belief is uniform over its support (the prior, and
    every posterior of 0/1 evidence at ``lam = 1``, the default workflow): the exact
    quantities below are then counts over that boolean mask instead of Fraction sums.
    """

    model: BeliefModel
    probs: tuple[Fraction, ...]
    uniform_on: np.ndarray | None = field(default=None, repr=False)

    @classmethod
    def uniform(cls, model: BeliefModel) -> Belief:
        """The uniform prior of Definition 10."""
        n = model.n_valuations
        if n == 0:
            raise ValueError(f"no valuation of counts {model.counts} sums to {model.total}")
        p = Fraction(1, n)
        return cls(model, (p,) * n, np.ones(n, dtype=bool))

    def mask(self) -> np.ndarray:
        """Boolean mask of the support (valuations with positive mass)."""
        if self.uniform_on is not None:
            return self.uniform_on.copy()
        return np.fromiter((p > 0 for p in self.probs), dtype=bool, count=len(self.probs))

    def support(self) -> list[Vector]:
        """The valuations with positive mass (V_est of section 5.5.2)."""
        return [tuple(int(x) for x in self.model.valuations[i])
                for i, p in enumerate(self.probs) if p > 0]

    def prob(self, w: Sequence[int]) -> Fraction:
        """Mass of valuation ``w`` (0 outside the space)."""
        i = self.model.valuation_index(w)
        return Fraction(0) if i is None else self.probs[i]


def p_ef(belief: Belief, share_index: int) -> Fraction:
    """Equation (2): probability that the allocation is envy-free for both, exactly."""
    m = belief.model
    if not m.own_ok[share_index]:
        return Fraction(0)
    col = m.partner_ok[:, share_index]
    if belief.uniform_on is not None:  # every p is 1/|support|: count the support
        on = belief.uniform_on
        return Fraction(int(np.count_nonzero(col & on)), int(np.count_nonzero(on)))
    return sum((p for p, ok in zip(belief.probs, col, strict=True) if ok and p), Fraction(0))


def expected_partner_utility(belief: Belief, share_index: int) -> Fraction:
    """The partner's expected utility, under the belief, when the player takes the share."""
    col = belief.model.partner_utility[:, share_index]
    if belief.uniform_on is not None:
        on = belief.uniform_on
        return Fraction(int(col[on].sum()), int(np.count_nonzero(on)))
    return sum((p * int(u) for p, u in zip(belief.probs, col, strict=True) if p), Fraction(0))


def possibly_envy_free(belief: Belief) -> np.ndarray:
    """Per share: ``P_EF > 0`` (some valuation in the support makes it envy-free for both)."""
    return np.asarray(belief.model.ef[belief.mask()].any(axis=0), dtype=bool)


def solve_proposal(belief: Belief, threshold: float | Fraction = 0,
                   exclude: frozenset[int] | set[int] = frozenset()) -> list[int]:
    """Problem (1): the shares with maximal own utility among ``P_EF > threshold``.

    Shares in ``exclude`` are skipped. Returns every maximiser (for the caller's tie-break),
    or an empty list when no share qualifies.
    """
    m = belief.model
    thr = as_fraction(threshold)
    cand = possibly_envy_free(belief)
    if exclude:
        cand[list(exclude)] = False
    order = np.flatnonzero(cand)
    order = order[np.argsort(-m.own_utility[order], kind="stable")]
    best: list[int] = []
    for idx in order:
        if best and m.own_utility[idx] < m.own_utility[best[0]]:
            break
        if thr == 0 or p_ef(belief, int(idx)) > thr:
            best.append(int(idx))
    return best


RejectionView = Literal["partner", "exact"]


def rejection_likelihood(model: BeliefModel, share_index: int, gamma: float | Fraction = 1,
                         view: RejectionView = "partner") -> tuple[Fraction, ...]:
    """``P(R | w)`` for every valuation: 1 (R1), ``gamma`` (R2) or 0 (would have accepted).

    R2 needs a better allocation ``L'`` for the partner with ``P_EF(L') > 0``. With
    ``view="partner"`` (default) that probability is the partner's: ``L'`` must be
    envy-free for the partner under ``w`` and plausibly fair to the player under the
    partner's uninformed prior over the player's values - a rational partner rejects a
    fair offer when it can hope for more. With ``view="exact"`` ``L'`` must be envy-free for
    both under the player's true values and ``w``; that reading removes valuations whose
    owner could not have known the better offer was unavailable, so it can drop the
    partner's true valuation.
    """
    if view not in ("partner", "exact"):
        raise ValueError(f"view must be 'partner' or 'exact', got {view!r}")
    g = as_fraction(gamma)
    ok = model.partner_ok[:, share_index]
    best = model.partner_best_plausible if view == "partner" else model.partner_best_ef
    better = best > model.partner_utility[:, share_index]
    if g in (0, 1):
        return Indicator(~ok | (ok & better) if g == 1 else ~ok)
    out: list[Fraction] = []
    for no_envy, r2 in zip(ok, ok & better, strict=True):
        if not no_envy:
            out.append(Fraction(1))  # R1: the partner envies the allocation
        else:
            out.append(g if r2 else Fraction(0))
    return tuple(out)


def offer_likelihood(model: BeliefModel, share_index: int) -> tuple[Fraction, ...]:
    """``P(offer | w)`` when the partner proposes that the player gets ``share_index``.

    A partner satisfying Assumption 1 only proposes allocations it finds envy-free, so the
    likelihood is 1 where the partner does not envy the player's share and 0 elsewhere.
    This is accord's addition to Algorithm 1 (which learns from rejections only).
    """
    return Indicator(model.partner_ok[:, share_index])


def update(belief: Belief, likelihood: Sequence[Fraction], lam: float | Fraction = 1
           ) -> tuple[Belief, bool]:
    """Equation (3): mix the prior with the Bayes posterior at step ``lam``.

    Returns ``(new belief, consistent)``. When the evidence has zero probability under the
    whole support (the partner behaved outside the rationality model), the belief is
    returned unchanged with ``consistent = False``.
    """
    step = as_fraction(lam)
    if not 0 <= step <= 1:
        raise ValueError(f"lambda must lie in [0, 1], got {lam}")
    if step == 1 and belief.uniform_on is not None and isinstance(likelihood, Indicator):
        # uniform prior, 0/1 evidence, full step: the posterior is uniform on the overlap
        on = belief.uniform_on & likelihood.ones
        if not on.any():
            return belief, False
        return Belief(belief.model, _uniform_probs(on), on), True
    joint = [lk * p for lk, p in zip(likelihood, belief.probs, strict=True)]
    z = sum(joint, Fraction(0))
    if z == 0:
        return belief, False
    probs = tuple((1 - step) * p + step * j / z for p, j in zip(belief.probs, joint, strict=True))
    return Belief(belief.model, probs), True
