"""Retry-After parsing and the retry policy's bounds."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime

import numpy as np
import pytest

from accord.llm import RetryPolicy, parse_retry_after
from accord.llm.retry import Transient


def test_retry_after_forms() -> None:
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    assert parse_retry_after({"retry-after": "1.5"}) == 1.5
    assert parse_retry_after({"retry-after-ms": "250", "Retry-After": "9"}) == 0.25
    later = format_datetime(datetime(2025, 1, 1, 12, 0, 7, tzinfo=UTC), usegmt=True)
    assert parse_retry_after({"Retry-After": later}, now=now) == 7.0
    earlier = format_datetime(datetime(2025, 1, 1, 11, 0, 0, tzinfo=UTC), usegmt=True)
    assert parse_retry_after({"Retry-After": earlier}, now=now) == 0.0
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert parse_retry_after({}) is None
    assert parse_retry_after({"Retry-After": "-5"}) == 0.0


def test_policy_bounds_and_backoff() -> None:
    rng = np.random.default_rng(1)
    policy = RetryPolicy(max_attempts=3, max_rate_limit_attempts=5, base_delay=1.0,
                         max_delay=3.0, max_retry_after=60.0, jitter=0.0)
    server = Transient("server", "HTTP 500")
    delays = [policy.delay_for(server, n, rng) for n in (1, 2, 3)]
    assert delays[2] is None
    assert 0.5 <= delays[0] <= 1.0 and 1.0 <= delays[1] <= 2.0  # type: ignore[operator]
    assert all(0.5 * 3 <= policy.backoff(n, rng) <= 3.0 for n in range(3, 10))  # capped
    limited = Transient("rate_limit", "HTTP 429", 429, retry_after=4.0)
    assert policy.delay_for(limited, 4, rng) == 4.0  # honoured exactly with jitter 0
    assert policy.delay_for(limited, 5, rng) is None
    assert policy.delay_for(Transient("rate_limit", "x", 429, 61.0), 1, rng) is None
    with pytest.raises(ValueError):
        RetryPolicy(max_attempts=0)
