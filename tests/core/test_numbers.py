"""The person-facing rounding rules of :mod:`accord.core.numbers`."""

from __future__ import annotations

from accord.core.numbers import figure, rate, score, value_text


def test_number_rules() -> None:
    assert score(0.6955) == "0.70" and score(0.8325) == "0.83" and score(None) == "–"
    assert rate(2 / 3) == "67%" and rate(1.0) == "100%" and rate(float("nan")) == "–"
    assert figure(159.7) == "159.70" and figure(203.79) == "203.79"
    assert figure(12345.6) == "12,346" and figure(True) == "–"
    assert value_text(3) == "3" and value_text(3.0) == "3" and value_text(0.6925) == "0.69"
    assert value_text("opera") == "opera"
