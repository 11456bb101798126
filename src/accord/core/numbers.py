"""Numbers as a person reads them, one rule per kind of number (``--json`` keeps them whole).

- **Scores and utilities** (normalised to [0, 1]): two decimals, ``0.70``. A utility scale
  has no meaning finer than a hundredth, and two decimals line columns up.
- **Rates** (a share of episodes: agreement rate, win rate): a whole percentage, ``67%``;
  "two in three runs agreed" is read as a percentage, not as ``0.667``.
- **Other figures** (rounds, rewards, welfare, distances, figures on their own scale): two
  fixed decimals, ``159.70`` beside ``203.79``, so a column lines up; from 1,000 on,
  whole with thousands separated (``12,345``). Three significant figures (``:.3g``) would
  turn ``1234.5`` into ``1.23e+03``, four (``:.4g``) show ``0.6955`` beside ``0.7``.
"""

from __future__ import annotations

import math
from typing import Any

#: what a missing number reads as
MISSING = "–"


def _finite(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def score(value: Any) -> str:
    """A score or utility in [0, 1] for a person: two decimals (``0.6955`` -> ``0.70``)."""
    x = _finite(value)
    return MISSING if x is None else f"{x:.2f}"


def rate(value: Any) -> str:
    """A share in [0, 1] (agreement rate, win rate) as a whole percentage (``67%``): a
    tenth of a percent is noise at the sizes of most runs (``--json`` keeps it)."""
    x = _finite(value)
    return MISSING if x is None else f"{x * 100:.0f}%"


def value_text(value: Any) -> str:
    """A table cell of any stored value: whole numbers as they are (a payoff of 3), other
    numbers as :func:`figure` (a utility of ``0.6925`` as ``0.69``), anything else as text."""
    if isinstance(value, float) and not value.is_integer():
        return figure(value)
    if isinstance(value, float):
        return f"{value:.0f}"
    return str(value)


def figure(value: Any, places: int = 2) -> str:
    """Any other figure (rounds, reward, welfare): ``places`` fixed decimals, so one
    column reads ``159.70`` beside ``203.79``; 1,000 and more whole (``12,345``)."""
    x = _finite(value)
    if x is None:
        return MISSING
    text = f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.{places}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.,") else text  # no "-0.00"
