"""An issue with many values (a NegotiationArena price 0..B, a Genius integer issue up to
10,000 values) parses in linear time: the loader once rebuilt the set of the issue's value
names for every score it checked (quadratic; 20,000 values took minutes per party).

Guarded by a hang alarm, as the fuzz tests are (not a timing assertion: the fixed loader
needs a fraction of a second, the quadratic one several minutes)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from accord.domains.bargaining.load import parse_scenario

HANG_SECONDS = 60


@contextmanager
def _hang_guard(seconds: int) -> Iterator[None]:
    def ring(*_: object) -> None:
        raise TimeoutError(f"still parsing after {seconds} s: quadratic in the values?")

    old = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="needs SIGALRM")
def test_an_issue_of_20000_values_parses() -> None:
    n = 20_000
    values = list(range(n))
    data = {"name": "wide", "issues": {"price": values}, "parties": {
        p: {"batna": 0.0, "utility": {"type": "linear_additive", "weights": {"price": 1},
                                      "values": {"price": {v: v / n for v in values}}}}
        for p in ("seller", "buyer")}}
    with _hang_guard(HANG_SECONDS):
        sc = parse_scenario(data, "wide")
    assert sc.space.size == n
    assert sc.parties[0].utility({"price": n - 1}) == pytest.approx((n - 1) / n)
