"""Time-discounted utilities as Genius defines them: ``u * delta ** t``.

``t`` is the relative time of the negotiation in [0, 1]. For a deadline of ``R`` rounds,
Genius's ``DiscreteTimeline`` (``new DiscreteTimeline(R)`` sets ``totalRounds = R + 1``;
``getTime() = cRound / totalRounds`` with ``cRound`` counting from 1) puts round ``r`` at
``t = r / (R + 1)`` and the deadline, the round after the last, at ``t = 1``. Genius's
``AdditiveUtilitySpace.discount`` returns ``u * delta ** t`` for ``0 < delta < 1`` (and
``u`` unchanged otherwise), and ``getReservationValueWithDiscount(t)`` discounts the
reservation value the same way: walking away later is worth less too.

Because a party's utility and its BATNA are discounted by the same factor at the same
time, "at least my BATNA" means the same thing at every time; what changes is the value
of waiting: an agreement one round later is worth ``delta ** (1 / (R + 1))`` times less.

NegMAS reads a Genius profile's ``discount_factor`` as a discount *per round*
(``make_discounted_ufun(discount_per_round=...)``, exponent = the step); accord follows
Genius, whose files these are.
"""

from __future__ import annotations

import math

import numpy as np


def check_discount(discount: float) -> float:
    """``discount`` as a float; :class:`ValueError` unless ``0 < discount <= 1``."""
    if isinstance(discount, bool) or not isinstance(discount, (int, float)):
        raise ValueError(f"a discount factor must be a number, got {discount!r}")
    value = float(discount)
    if not math.isfinite(value) or not 0.0 < value <= 1.0:
        raise ValueError(f"a discount factor must be in (0, 1] (1 = no discount), got {value!r}")
    return value


def relative_time(round: int, max_rounds: int) -> float:
    """Genius's relative time of round ``round`` (from 1) under a deadline of
    ``max_rounds`` rounds: ``round / (max_rounds + 1)``, clamped to [0, 1]."""
    if max_rounds < 1:
        return 1.0
    t = round / (max_rounds + 1)
    return 0.0 if t < 0.0 else 1.0 if t > 1.0 else t


def discount_multiplier(discount: float, t: float) -> float:
    """``discount ** t`` for ``t`` clamped to [0, 1] (1.0 when there is no discount)."""
    if discount >= 1.0:
        return 1.0
    t = 0.0 if t < 0.0 else 1.0 if t > 1.0 else t
    return float(discount ** t)


def discounted(utility: float, discount: float, t: float) -> float:
    """A utility (or reservation value) at relative time ``t``: ``u * discount ** t``."""
    return float(utility) * discount_multiplier(discount, t)


def multipliers(discounts: np.ndarray | list[float], t: float) -> np.ndarray:
    """``discount ** t`` per party (a row to scale a ``(outcomes, parties)`` matrix)."""
    d = np.asarray(discounts, dtype=np.float64)
    t = 0.0 if t < 0.0 else 1.0 if t > 1.0 else t
    return np.where(d >= 1.0, 1.0, d ** t)


__all__ = ["check_discount", "discount_multiplier", "discounted", "multipliers",
           "relative_time"]
