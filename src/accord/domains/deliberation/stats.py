"""Small statistics for the deliberation study's analyses (seed 001, Tables 2, 3, 7, B.2.2).

Pure functions over plain number sequences, returning JSON-ready dicts (no NaN or
infinity: an undefined value is ``None`` and a ``note`` says why). The regression and the
correlation tests are scipy's (:func:`scipy.stats.linregress`, :func:`~scipy.stats.pearsonr`,
:func:`~scipy.stats.spearmanr`), so accord does not re-derive textbook formulas.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

MIN_PAIRS = 3
"""Fewest pairs a regression or correlation is reported for (n - 2 degrees of freedom)."""
REL_TOL = 1e-9
"""Values closer than this (relative to their magnitude, at least 1) count as equal: NR is
computed in floating point, so an "all 100" column can hold 100.00000000000001."""


def _finite(value: Any) -> float | None:
    """``value`` as a float, or None when it is NaN or infinite."""
    x = float(value)
    return x if math.isfinite(x) else None


def summary(values: Sequence[float]) -> dict[str, Any]:
    """n, mean, sample SD (n - 1) and SE = SD / sqrt(n) of ``values`` (None when undefined)."""
    n = len(values)
    if n == 0:
        return {"n": 0, "mean": None, "sd": None, "se": None}
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else None
    return {"n": n, "mean": mean, "sd": sd, "se": None if sd is None else sd / math.sqrt(n)}


def _constant(values: Sequence[float]) -> bool:
    """Whether every value is the same up to :data:`REL_TOL` (rounding noise)."""
    hi, lo = max(values), min(values)
    return hi - lo <= REL_TOL * max(1.0, abs(hi), abs(lo))


def ols(x: Sequence[float], y: Sequence[float], *, x_name: str = "x",
        y_name: str = "y") -> dict[str, Any]:
    """Ordinary least squares ``y = intercept + beta * x`` with standard errors.

    Returns ``n``, ``beta``, ``beta_se``, ``intercept``, ``intercept_se``, ``t`` (beta /
    its SE), ``p`` (two-sided test of beta = 0, the same as the Pearson correlation test),
    ``r2`` and ``note`` (None, or why a value is undefined: fewer than :data:`MIN_PAIRS`
    pairs, a constant ``x`` (no slope), a constant ``y`` (slope 0, no R², t or p), a
    perfect fit (no t)).
    """
    if len(x) != len(y):
        raise ValueError(f"x and y differ in length ({len(x)} != {len(y)})")
    out: dict[str, Any] = {"n": len(x), "beta": None, "beta_se": None, "intercept": None,
                           "intercept_se": None, "t": None, "p": None, "r2": None,
                           "note": None}
    if len(x) < MIN_PAIRS:
        out["note"] = f"needs at least {MIN_PAIRS} pairs, got {len(x)}"
        return out
    if _constant(x):
        out["note"] = f"{x_name} is constant ({x[0]:g}); the slope is undefined"
        return out
    if _constant(y):
        out.update(beta=0.0, intercept=math.fsum(y) / len(y),
                   note=f"{y_name} is constant ({y[0]:g}); R², t and p are undefined")
        return out
    from scipy.stats import linregress

    fit = linregress(x, y)
    out.update(beta=_finite(fit.slope), beta_se=_finite(fit.stderr),
               intercept=_finite(fit.intercept), intercept_se=_finite(fit.intercept_stderr),
               r2=_finite(fit.rvalue ** 2), p=_finite(fit.pvalue))
    if out["beta_se"]:
        out["t"] = out["beta"] / out["beta_se"]
    else:
        out["note"] = "perfect fit; t is unbounded"
    return out


def correlations(x: Sequence[float], y: Sequence[float], *, x_name: str = "x",
                 y_name: str = "y") -> dict[str, Any]:
    """Pearson r and Spearman rho between ``x`` and ``y``, each with its two-sided p-value.

    Returns ``n``, ``pearson`` ``{"r", "p"}``, ``spearman`` ``{"rho", "p"}`` and ``note``
    (None, or why the coefficients are undefined: too few pairs or a constant variable).
    """
    if len(x) != len(y):
        raise ValueError(f"x and y differ in length ({len(x)} != {len(y)})")
    out: dict[str, Any] = {"n": len(x), "pearson": {"r": None, "p": None},
                           "spearman": {"rho": None, "p": None}, "note": None}
    if len(x) < MIN_PAIRS:
        out["note"] = f"needs at least {MIN_PAIRS} pairs, got {len(x)}"
        return out
    constant = [f"{name} is constant ({v[0]:g})" for name, v in ((x_name, x), (y_name, y))
                if _constant(v)]
    if constant:
        out["note"] = "; ".join(constant) + "; the correlation is undefined"
        return out
    from scipy.stats import pearsonr, spearmanr

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pr = pearsonr(x, y)
        sr = spearmanr(x, y)
    if any("constant" in str(w.message) for w in caught):
        out["note"] = "an input is nearly constant; the coefficients may be inaccurate"
    out["pearson"] = {"r": _finite(pr.statistic), "p": _finite(pr.pvalue)}
    out["spearman"] = {"rho": _finite(sr.statistic), "p": _finite(sr.pvalue)}
    return out


__all__ = ["MIN_PAIRS", "REL_TOL", "correlations", "ols", "summary"]
