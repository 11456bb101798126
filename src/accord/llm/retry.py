"""Retry policy: honour ``Retry-After`` on 429, back off with jitter on 5xx and timeouts.

The SDKs' own retries are off (``max_retries=0``); accord decides. A backend raises
:class:`Transient` for a failure worth retrying; :class:`RetryPolicy` says how long
to wait and when to give up. Waiting happens outside the per-endpoint concurrency
slot, so a backing-off call does not block others.
"""

from __future__ import annotations

import email.utils
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

import numpy as np

TransientKind = Literal["rate_limit", "server", "timeout", "connection"]
RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
"""HTTP statuses worth retrying (529: Anthropic 'overloaded')."""


class Transient(Exception):
    """A failure worth retrying, raised by backends and handled by the client."""

    def __init__(self, kind: TransientKind, detail: str, status: int | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.status = status
        self.retry_after = retry_after


def parse_retry_after(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date).

    Returns ``None`` when neither header is present or parseable; never negative.
    """
    lower = {k.lower(): v for k, v in headers.items()}
    ms = lower.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = lower.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    now = now or datetime.now(UTC)
    return max(0.0, (when - now).total_seconds())


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry.

    ``max_attempts`` bounds attempts (first try included) for 5xx answers, timeouts
    and connection failures; ``max_rate_limit_attempts`` bounds attempts answered by
    429. A 429 waits ``Retry-After`` (plus up to ``jitter`` x ``base_delay``) when the
    server sends it, else the exponential backoff; a ``Retry-After`` above
    ``max_retry_after`` gives up at once. Backoff for attempt ``n`` is
    ``min(max_delay, base_delay * 2**(n-1))`` scaled by a uniform factor in [0.5, 1].
    """

    max_attempts: int = 4
    max_rate_limit_attempts: int = 8
    base_delay: float = 0.5
    max_delay: float = 20.0
    max_retry_after: float = 120.0
    jitter: float = 0.1

    def __post_init__(self) -> None:
        if self.max_attempts < 1 or self.max_rate_limit_attempts < 1:
            raise ValueError("RetryPolicy attempts must be at least 1")
        if self.base_delay < 0 or self.max_delay < 0:
            raise ValueError("RetryPolicy delays must be non-negative")

    def backoff(self, attempt: int, rng: np.random.Generator) -> float:
        """Jittered exponential delay after failed attempt number ``attempt`` (from 1)."""
        cap = min(self.max_delay, self.base_delay * 2 ** max(0, attempt - 1))
        return float(cap * rng.uniform(0.5, 1.0))

    def delay_for(self, failure: Transient, attempt: int, rng: np.random.Generator
                  ) -> float | None:
        """Seconds to wait before the next attempt, or ``None`` to give up."""
        limit = self.max_rate_limit_attempts if failure.kind == "rate_limit" else self.max_attempts
        if attempt >= limit:
            return None
        if failure.retry_after is not None:
            if failure.retry_after > self.max_retry_after:
                return None
            return failure.retry_after + float(rng.uniform(0.0, self.jitter * self.base_delay))
        return self.backoff(attempt, rng)
