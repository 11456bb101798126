"""The LLM timeout is a deadline per attempt, not per read (issue 24).

An endpoint that sends its headers and then one byte every few seconds never trips
the SDK's per-read timeout; these tests drive one over real HTTP on 127.0.0.1 (the
stub's ``drip`` policy). The dripped body would take well over 10 s to arrive, the
timeout is 0.5 s: the call must fail with a timeout (or succeed on a retry that does
not drip). ``asyncio.wait_for(..., 60)`` is only a hang guard, never the assertion.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from accord.llm import LLMRuntime, LLMTimeoutError, RetryPolicy
from accord.llm.backends.transport import Transport, aiohttp_available, httptools_available
from accord.testing.stub import DripPolicy, ScriptedPolicy, StubServer

MODEL = "openai-api/stub/test-model"
MESSAGES = [{"role": "system", "content": "You are a party."},
            {"role": "user", "content": "Make an offer."}]
GOOD = '<PROPOSAL>{"price": 20}</PROPOSAL>'
#: seconds between bytes: a ~300-byte body takes ~15 s, thirty times the timeout
INTERVAL = 0.05
HANG_GUARD = 60.0
#: every HTTP transport (aiohttp and httptools only where they are installed)
TRANSPORTS: list[Transport] = ["httpx", *(["aiohttp"] if aiohttp_available() else []),
                               *(["httptools"] if httptools_available() else [])]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_dripping_answer_times_out_every_attempt(stub_env: Callable[..., None],
                                                         transport: Transport) -> None:
    with StubServer(DripPolicy(INTERVAL, inner=ScriptedPolicy([GOOD], cycle=True))) as stub:
        stub_env(stub)
        async with LLMRuntime(retry=RetryPolicy(max_attempts=2, base_delay=0.01),
                              timeout=0.5, transport=transport) as rt:
            with pytest.raises(LLMTimeoutError, match="timed out 2 time") as info:
                await asyncio.wait_for(rt.client(MODEL).complete(MESSAGES), HANG_GUARD)
        assert info.value.attempts == 2
        # the retry policy applied: exactly two attempts reached the server, both dripped
        assert len(stub.completion_requests) == 2


async def test_a_retry_after_a_dripping_attempt_recovers(stub_env: Callable[..., None]) -> None:
    with StubServer(DripPolicy(INTERVAL, times=1,
                               inner=ScriptedPolicy([GOOD], cycle=True))) as stub:
        stub_env(stub)
        async with LLMRuntime(retry=RetryPolicy(max_attempts=3, base_delay=0.01),
                              timeout=0.5) as rt:
            done = await asyncio.wait_for(rt.client(MODEL).complete(MESSAGES), HANG_GUARD)
        assert done.text == GOOD and done.attempts == 2
        assert len(stub.completion_requests) == 2


async def test_the_deadline_holds_for_anthropic_too(monkeypatch: pytest.MonkeyPatch) -> None:
    with StubServer(DripPolicy(INTERVAL, inner=ScriptedPolicy([GOOD], cycle=True))) as stub:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", stub.root_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-000000000000")
        async with LLMRuntime(retry=RetryPolicy(max_attempts=1), timeout=0.5) as rt:
            with pytest.raises(LLMTimeoutError, match="timed out 1 time"):
                await asyncio.wait_for(rt.client("anthropic/claude-test").complete(MESSAGES),
                                       HANG_GUARD)
        assert len(stub.completion_requests) == 1


async def test_a_slow_but_steady_answer_within_the_deadline_arrives(
        stub_env: Callable[..., None]) -> None:
    # a dripped body that completes well inside the deadline is a normal answer
    with StubServer(DripPolicy(0.001, inner=ScriptedPolicy([GOOD], cycle=True))) as stub:
        stub_env(stub)
        async with LLMRuntime(retry=RetryPolicy(max_attempts=1), timeout=30) as rt:
            done = await asyncio.wait_for(rt.client(MODEL).complete(MESSAGES), HANG_GUARD)
        assert done.text == GOOD and done.attempts == 1
