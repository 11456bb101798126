"""The HTTP transports: httptools (accord's own client), aiohttp and httpx behave alike
over real HTTP."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from collections.abc import Callable

import anthropic
import openai
import pytest

from accord.llm import (
    EndpointUnreachableError,
    LLMRuntime,
    LLMTimeoutError,
    RateLimitedError,
    RetryPolicy,
)
from accord.llm.backends.transport import (
    SDK_MAX_CONNECTIONS,
    SDK_MAX_KEEPALIVE,
    direct_transport,
    http_client,
    httptools_available,
    pool_limits,
    resolve_transport,
)
from accord.testing.live import refused_port
from accord.testing.stub import FaultyPolicy, FixedLatencyPolicy, ScriptedPolicy, StubServer

MODEL = "openai-api/stub/test-model"
MESSAGES = [{"role": "system", "content": "You are a party."},
            {"role": "user", "content": "Make an offer."}]
#: every transport (httptools only where it is installed)
BOTH = pytest.mark.parametrize("transport", [
    pytest.param("httptools", marks=pytest.mark.skipif(not httptools_available(),
                                                       reason="httptools not installed")),
    "aiohttp", "httpx"])


def test_unknown_transport_is_refused_at_construction() -> None:
    with pytest.raises(ValueError, match=r"unknown LLM HTTP transport 'curl'.*"
                                         r"auto, httptools, aiohttp, httpx"):
        LLMRuntime(transport="curl")  # type: ignore[arg-type]


def test_auto_picks_aiohttp_under_the_sdks_when_installed() -> None:
    assert resolve_transport("auto") == "aiohttp"
    assert resolve_transport("httptools") == "aiohttp"  # what the SDK's calls go over
    assert resolve_transport("httpx") == "httpx"
    assert direct_transport("auto") == ("httptools" if httptools_available() else "aiohttp")
    assert direct_transport("aiohttp") == "aiohttp" and direct_transport("httpx") is None
    client = http_client(openai, "auto", 5.0, 8)
    assert type(client._transport).__name__ == "AiohttpTransport"
    assert isinstance(http_client(anthropic, "httpx", 5.0, 8), anthropic.DefaultAsyncHttpxClient)


def test_pool_holds_every_call_in_flight() -> None:
    small, large = pool_limits(openai, 16), pool_limits(anthropic, 256)
    assert (small.max_connections, small.max_keepalive_connections) == (
        SDK_MAX_CONNECTIONS, SDK_MAX_KEEPALIVE)
    # above the SDK default of 100 idle connections, all 256 stay open between calls
    assert (large.max_connections, large.max_keepalive_connections) == (SDK_MAX_CONNECTIONS, 256)
    assert pool_limits(openai, 5000).max_connections == 5000


@BOTH
async def test_same_answer_and_usage_over_both(transport: str,
                                               stub_env: Callable[..., None]) -> None:
    with StubServer(ScriptedPolicy(["first", "second"])) as stub:
        stub_env(stub)
        async with LLMRuntime(transport=transport) as rt:  # type: ignore[arg-type]
            client = rt.client(MODEL)
            a = await client.complete(MESSAGES)
    assert (a.text, a.usage.prompt_tokens, a.usage.completion_tokens) == ("first", 11, 1)
    assert a.finish_reason == "stop" and a.attempts == 1


@BOTH
async def test_anthropic_over_both(transport: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with StubServer(ScriptedPolicy(["hello there"])) as stub:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", stub.root_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-000111222333")
        async with LLMRuntime(transport=transport) as rt:  # type: ignore[arg-type]
            done = await rt.client("anthropic/claude-test").complete(MESSAGES)
    assert done.text == "hello there" and done.usage.completion_tokens == 2


@BOTH
async def test_refused_connection_is_unreachable_not_a_timeout(
        transport: str, monkeypatch: pytest.MonkeyPatch, fast_retry: RetryPolicy) -> None:
    with refused_port() as port:
        url = f"http://127.0.0.1:{port}/v1"
        monkeypatch.setenv("STUB_BASE_URL", url)
        monkeypatch.setenv("STUB_API_KEY", "sk-whatever-123456")
        async with LLMRuntime(retry=fast_retry, transport=transport) as rt:  # type: ignore[arg-type]
            with pytest.raises(EndpointUnreachableError) as info:
                await rt.client(MODEL).complete(MESSAGES)
        assert url in str(info.value) and info.value.attempts == fast_retry.max_attempts


@BOTH
async def test_slow_answer_is_a_timeout(transport: str, stub_env: Callable[..., None],
                                        fast_retry: RetryPolicy) -> None:
    with StubServer(FixedLatencyPolicy(latency=2.0)) as stub:
        stub_env(stub)
        async with LLMRuntime(retry=fast_retry, timeout=0.3,
                              transport=transport) as rt:  # type: ignore[arg-type]
            with pytest.raises(LLMTimeoutError):
                await rt.client(MODEL).complete(MESSAGES)


@BOTH
async def test_server_errors_are_retried_then_answered(
        transport: str, stub_env: Callable[..., None], fast_retry: RetryPolicy) -> None:
    with StubServer(FaultyPolicy(fault="server-error", times=2,
                                 inner=ScriptedPolicy(["fine"]))) as stub:
        stub_env(stub)
        async with LLMRuntime(retry=fast_retry, transport=transport) as rt:  # type: ignore[arg-type]
            done = await rt.client(MODEL).complete(MESSAGES)
    assert (done.text, done.attempts) == ("fine", 3)
    assert len(stub.completion_requests) == 3


@BOTH
async def test_rate_limit_retry_after_is_read(transport: str, stub_env: Callable[..., None],
                                              fast_retry: RetryPolicy) -> None:
    with StubServer(FaultyPolicy(fault="rate-limit", times=None, retry_after=0)) as stub:
        stub_env(stub)
        async with LLMRuntime(retry=fast_retry, transport=transport) as rt:  # type: ignore[arg-type]
            with pytest.raises(RateLimitedError) as info:
                await rt.client(MODEL).complete(MESSAGES)
    assert info.value.attempts == fast_retry.max_rate_limit_attempts
    assert len(stub.completion_requests) == fast_retry.max_rate_limit_attempts


@BOTH
async def test_no_pool_queueing_above_the_sdk_keepalive_default(
        transport: str, stub_env: Callable[..., None]) -> None:
    """120 calls in flight (the SDKs keep 100 idle connections by default) all overlap."""
    n = 120
    with StubServer(FixedLatencyPolicy(latency=0.5)) as stub:
        stub_env(stub)
        async with LLMRuntime(max_concurrency=n, transport=transport) as rt:  # type: ignore[arg-type]
            client = rt.client(MODEL)
            for _ in range(2):  # the second wave reuses the first wave's connections
                done = await asyncio.gather(*(client.complete(MESSAGES) for _ in range(n)))
                assert len(done) == n
    assert stub.max_in_flight == n


def test_connections_closed_when_the_loop_ends_without_aclose(stub_env: Callable[..., None]
                                                              ) -> None:
    """A runtime never closed (agents share one) still closes its sessions when
    ``asyncio.run`` ends: nothing is reported unclosed on stderr."""
    with StubServer(ScriptedPolicy(["a", "b"])) as stub:
        code = textwrap.dedent(f"""
            import asyncio, gc, os
            os.environ["STUB_BASE_URL"] = {stub.base_url!r}
            os.environ["STUB_API_KEY"] = "sk-stub-test-key-000111222"
            from accord.llm import LLMRuntime
            rt = LLMRuntime()
            held = []
            async def main():
                client = rt.client("openai-api/stub/m")
                held.append(rt.backend(client.endpoint))
                print((await client.complete([{{"role": "user", "content": "hi"}}])).text)
            asyncio.run(main())
            asyncio.run(main())  # a second loop gets its own connections, closed too
            gc.collect()
            # the SDK client exists only where a call needed it (the first backend reads
            # the SDK's headers from one); every one made is closed
            print(all(b._sdk is None or b._sdk.is_closed() for b in held), len(held))
        """)
        out = subprocess.run([sys.executable, "-W", "always", "-c", code], capture_output=True,
                             text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["a", "b", "True", "2"]
    assert "Unclosed" not in out.stderr and "Traceback" not in out.stderr, out.stderr
