"""Fixtures for LLM-layer tests: the stub server wired through environment variables."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from accord.llm import RetryPolicy
from accord.testing.stub import StubServer

STUB_KEY = "sk-stub-test-key-000111222"


@pytest.fixture
def fast_retry() -> RetryPolicy:
    """Retries with millisecond backoff so failure paths stay fast."""
    return RetryPolicy(max_attempts=3, max_rate_limit_attempts=4, base_delay=0.01,
                       max_delay=0.05, max_retry_after=10.0)


@pytest.fixture
def stub_env(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """Point ``openai-api/stub/<model>`` at a running stub (STUB_BASE_URL, STUB_API_KEY)."""

    def use(server: StubServer, key: str = STUB_KEY) -> None:
        monkeypatch.setenv("STUB_BASE_URL", server.base_url)
        monkeypatch.setenv("STUB_API_KEY", key)

    return use
