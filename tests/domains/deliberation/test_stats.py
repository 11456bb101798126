"""Known values for the deliberation analyses' statistics (OLS, Pearson, Spearman)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from accord.domains.deliberation.stats import correlations, ols, summary


def test_summary_known_values() -> None:
    s = summary([1.0, 2.0, 3.0, 4.0])
    assert s["n"] == 4 and s["mean"] == 2.5
    assert s["sd"] == pytest.approx(math.sqrt(5 / 3))
    assert s["se"] == pytest.approx(math.sqrt(5 / 3) / 2)
    assert summary([7.0]) == {"n": 1, "mean": 7.0, "sd": None, "se": None}
    assert summary([])["mean"] is None


def test_ols_by_hand() -> None:
    # x̄ = 1.5, ȳ = 2.75, Sxy = 5.5, Sxx = 5 -> β = 1.1, α = 1.1; residuals -0.1, 0.8,
    # -1.3, 0.6 -> SSE = 2.7, s² = 1.35, SE(β) = √(1.35 / 5), SE(α) = √(1.35 (1/4 + 1.5²/5));
    # SST = 8.75 -> R² = 1 - 2.7 / 8.75
    fit = ols([0, 1, 2, 3], [1, 3, 2, 5])
    assert fit["n"] == 4 and fit["note"] is None
    assert fit["beta"] == pytest.approx(1.1) and fit["intercept"] == pytest.approx(1.1)
    assert fit["beta_se"] == pytest.approx(math.sqrt(0.27))
    assert fit["intercept_se"] == pytest.approx(math.sqrt(1.35 * 0.7))
    assert fit["r2"] == pytest.approx(1 - 2.7 / 8.75)
    t = 1.1 / math.sqrt(0.27)
    assert fit["t"] == pytest.approx(t)
    assert fit["p"] == pytest.approx(2 * sps.t.sf(t, df=2))


def test_ols_matches_the_normal_equations() -> None:
    rng = np.random.default_rng(7)
    x = rng.uniform(0, 1, 50)
    y = 3.0 + 40.0 * x + rng.normal(0, 5, 50)
    fit = ols(list(x), list(y))
    design = np.column_stack([np.ones_like(x), x])
    coef, sse, *_ = np.linalg.lstsq(design, y, rcond=None)
    cov = sse[0] / (len(x) - 2) * np.linalg.inv(design.T @ design)
    assert fit["intercept"] == pytest.approx(coef[0]) and fit["beta"] == pytest.approx(coef[1])
    assert fit["intercept_se"] == pytest.approx(math.sqrt(cov[0, 0]))
    assert fit["beta_se"] == pytest.approx(math.sqrt(cov[1, 1]))
    assert fit["r2"] == pytest.approx(1 - sse[0] / np.sum((y - y.mean()) ** 2))
    # the slope test is the correlation test (Table 7's "p-value for the correlation test")
    assert fit["p"] == pytest.approx(correlations(list(x), list(y))["pearson"]["p"])


@pytest.mark.parametrize(("x", "y", "words"), [
    ([0.1, 0.2], [1.0, 2.0], "at least 3"),
    ([0.0, 0.0, 0.0], [1.0, 5.0, 2.0], "HR is constant"),
    ([0.0, 1.0, 2.0], [4.0, 4.0, 4.0 + 1e-14], "gap is constant"),
])
def test_ols_undefined_cases_say_why(x: list[float], y: list[float], words: str) -> None:
    fit = ols(x, y, x_name="HR", y_name="gap")
    assert words in fit["note"]
    assert fit["t"] is None and fit["r2"] is None


def test_ols_perfect_fit_has_no_t() -> None:
    fit = ols([0, 1, 2], [1, 3, 5])
    assert fit["beta"] == pytest.approx(2) and fit["r2"] == pytest.approx(1)
    assert fit["t"] is None and "perfect fit" in fit["note"]


def test_correlations_known_values() -> None:
    x = [0.1, 0.4, 0.2, 0.9, 0.5]
    y = [90.0, 60.0, 80.0, 10.0, 70.0]
    res = correlations(x, y)
    r = float(np.corrcoef(x, y)[0, 1])
    assert res["pearson"]["r"] == pytest.approx(r)
    t = r * math.sqrt(3) / math.sqrt(1 - r * r)
    assert res["pearson"]["p"] == pytest.approx(2 * sps.t.sf(abs(t), df=3))
    # no ties: ranks x 1 3 2 5 4, y 5 2 4 1 3 -> Σd² = 38, ρ = 1 - 6·38 / (5·24) = -0.9
    assert res["spearman"]["rho"] == pytest.approx(-0.9)
    assert res["n"] == 5 and res["note"] is None


def test_correlations_undefined_cases_say_why() -> None:
    res = correlations([0.2, 0.2, 0.2], [1.0, 2.0, 3.0], x_name="NMAE_pub", y_name="NR")
    assert "NMAE_pub is constant" in res["note"] and res["pearson"]["r"] is None
    assert "at least 3" in correlations([1.0], [2.0])["note"]
    with pytest.raises(ValueError, match="length"):
        correlations([1.0, 2.0], [1.0])


def test_rounding_noise_counts_as_constant() -> None:
    # NR is computed in floating point: 100 * value / max can be 100.00000000000001
    res = correlations([0.1, 0.3, 0.2, 0.4], [100.0, 100.00000000000001, 100.0, 100.0],
                       x_name="NMAE_pub", y_name="NR")
    assert "NR is constant" in res["note"] and res["pearson"]["r"] is None
    assert "HR is constant" in ols([0.0, 1e-15, 0.0], [1.0, 2.0, 3.0], x_name="HR")["note"]
