"""End to end over real HTTP: accord's client -> openai SDK -> the stub server."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable

import pytest

from accord.llm import (
    CallScope,
    EndpointUnreachableError,
    GenerationConfig,
    LLMClient,
    LLMRuntime,
    LLMTimeoutError,
    MissingAPIKeyError,
    RateLimitedError,
    RequestError,
    RetryPolicy,
    ServerError,
    UnknownProviderError,
)
from accord.testing.live import refused_port
from accord.testing.stub import FaultyPolicy, FixedLatencyPolicy, ScriptedPolicy, StubServer

MODEL = "openai-api/stub/test-model"
MESSAGES = [{"role": "system", "content": "You are a party."},
            {"role": "user", "content": "Make an offer."}]
GOOD = '<CONSIDER>fine</CONSIDER>\n<PROPOSAL>{"price": 20, "delivery": "fast"}</PROPOSAL>'


async def test_scripted_replies_in_order_with_usage_and_metadata(stub_env: Callable[..., None]
                                                                 ) -> None:
    with StubServer(ScriptedPolicy(["first answer", "second answer"])) as stub:
        stub_env(stub)
        async with LLMRuntime() as rt:
            client = rt.client(MODEL)
            a = await client.complete(MESSAGES, scope=CallScope("ep1", "buyer", 1))
            b = await client.complete([*MESSAGES, {"role": "assistant", "content": a.text},
                                       {"role": "user", "content": "Again."}],
                                      scope=CallScope("ep1", "buyer", 2))
            with pytest.raises(RequestError, match="exhausted"):
                await client.complete(MESSAGES)
    assert (a.text, b.text) == ("first answer", "second answer")
    assert a.provider == "openai-api/stub" and a.model == MODEL
    assert a.finish_reason == "stop" and a.attempts == 1 and not a.from_cache
    assert a.latency > 0
    # stub tokenizer: role marker + words/punctuation per message
    assert a.usage.prompt_tokens == 2 + 5 + 4 and a.usage.completion_tokens == 2
    assert a.usage.cached_tokens == 0
    # the second call extends the first prompt: its whole previous prompt is a cached prefix
    assert b.usage.cached_tokens == a.usage.prompt_tokens
    sent = stub.completion_requests[0]
    assert sent.model == "test-model" and sent.messages == MESSAGES
    assert sent.headers["x-accord-session"] == "ep1/buyer"
    assert "authorization" not in sent.headers


async def test_generation_config_reaches_the_server(stub_env: Callable[..., None]) -> None:
    with StubServer("echo") as stub:
        stub_env(stub)
        cfg = GenerationConfig(temperature=0.3, max_tokens=3, top_p=0.9, seed=7, stop=("END",),
                               extra={"top_k": 5})
        done = await LLMClient(MODEL).complete(
            [{"role": "user", "content": "one two three four five"}], cfg)
    params = stub.completion_requests[0].params
    assert params["temperature"] == 0.3 and params["max_tokens"] == 3
    assert params["top_p"] == 0.9 and params["seed"] == 7 and params["stop"] == ["END"]
    assert params["top_k"] == 5
    assert done.text == "one two three" and done.finish_reason == "length"


@pytest.mark.parametrize("fault", ["malformed", "unclosed", "invalid-json", "unknown-fields"])
async def test_faulty_text_arrives_as_text_the_caller_can_handle(
        fault: str, stub_env: Callable[..., None]) -> None:
    with StubServer(FaultyPolicy(fault, inner=ScriptedPolicy([GOOD]))) as stub:
        stub_env(stub)
        done = await LLMClient(MODEL).complete(MESSAGES)
    text = done.text
    assert text != GOOD
    if fault == "malformed":
        assert "<" not in text and "price" in text
    elif fault == "unclosed":
        assert "<PROPOSAL>" in text and "</PROPOSAL>" not in text
    else:
        body = text.split("<PROPOSAL>")[1].split("</PROPOSAL>")[0]
        if fault == "invalid-json":
            with pytest.raises(json.JSONDecodeError):
                json.loads(body)
        else:
            assert json.loads(body) == {"price": 20, "delivery": "fast", "surprise": "gift"}


async def test_429_waits_for_retry_after_then_recovers(stub_env: Callable[..., None],
                                                       fast_retry: RetryPolicy) -> None:
    with StubServer(FaultyPolicy("rate-limit", times=2, retry_after=0.4,
                                 inner=ScriptedPolicy([GOOD]))) as stub:
        stub_env(stub)
        async with LLMRuntime(retry=fast_retry) as rt:
            started = time.monotonic()
            done = await rt.client(MODEL).complete(MESSAGES)
            elapsed = time.monotonic() - started
    assert done.text == GOOD and done.attempts == 3
    statuses = [r.status for r in stub.completion_requests]
    assert statuses == [429, 429, 200]
    # two waits of Retry-After = 0.4 s each, not the 10 ms backoff of fast_retry
    assert elapsed >= 0.8
    gaps = [b.started - a.started for a, b in zip(stub.completion_requests,
                                                 stub.completion_requests[1:], strict=False)]
    assert all(g >= 0.38 for g in gaps)


async def test_429_without_end_gives_rate_limited_error(stub_env: Callable[..., None],
                                                        fast_retry: RetryPolicy) -> None:
    with StubServer(FaultyPolicy("rate-limit", retry_after=0)) as stub:
        stub_env(stub)
        async with LLMRuntime(retry=fast_retry) as rt:
            with pytest.raises(RateLimitedError) as info:
                await rt.client(MODEL).complete(MESSAGES)
    assert info.value.attempts == fast_retry.max_rate_limit_attempts
    assert stub.base_url in str(info.value)


async def test_retry_after_beyond_the_cap_fails_at_once(stub_env: Callable[..., None]) -> None:
    with StubServer(FaultyPolicy("rate-limit", retry_after=3600)) as stub:
        stub_env(stub)
        async with LLMRuntime(retry=RetryPolicy(max_retry_after=30)) as rt:
            with pytest.raises(RateLimitedError, match="exceeds the allowed 30 s"):
                await rt.client(MODEL).complete(MESSAGES)
    assert len(stub.completion_requests) == 1


async def test_500_is_retried_then_recovers_or_fails(stub_env: Callable[..., None],
                                                     fast_retry: RetryPolicy) -> None:
    with StubServer(FaultyPolicy("server-error", times=2, inner=ScriptedPolicy([GOOD]))) as s:
        stub_env(s)
        async with LLMRuntime(retry=fast_retry) as rt:
            done = await rt.client(MODEL).complete(MESSAGES)
    assert done.text == GOOD and done.attempts == 3
    with StubServer(FaultyPolicy("server-error")) as stub:
        stub_env(stub)
        async with LLMRuntime(retry=fast_retry) as rt:
            with pytest.raises(ServerError) as info:
                await rt.client(MODEL).complete(MESSAGES)
    assert info.value.status == 500 and info.value.attempts == fast_retry.max_attempts
    assert len(stub.completion_requests) == fast_retry.max_attempts


async def test_timeouts_are_retried_then_reported(stub_env: Callable[..., None],
                                                  fast_retry: RetryPolicy) -> None:
    with StubServer(FaultyPolicy("delay", times=1, delay=2.0,
                                 inner=ScriptedPolicy([GOOD], cycle=True))) as stub:
        stub_env(stub)
        # 1 s: the retry's prompt answer must fit in it on a loaded machine too (0.3 s did
        # not, at load 10), while the delayed first answer (2 s) never does
        async with LLMRuntime(retry=fast_retry, timeout=1.0) as rt:
            done = await rt.client(MODEL).complete(MESSAGES)
        assert done.text == GOOD and done.attempts == 2
    with StubServer(FaultyPolicy("delay", delay=2.0)) as stub:
        stub_env(stub)
        async with LLMRuntime(retry=RetryPolicy(max_attempts=2, base_delay=0.01),
                              timeout=0.2) as rt:
            with pytest.raises(LLMTimeoutError, match="timed out 2 time"):
                await rt.client(MODEL).complete(MESSAGES)
        # both attempts were cut by the 0.2 s timeout, not answered after the 2 s delay
        assert len(stub.completion_requests) == 2
        assert all(r.status != 200 for r in stub.completion_requests)


async def test_unreachable_endpoint_names_the_url(monkeypatch: pytest.MonkeyPatch,
                                                  fast_retry: RetryPolicy) -> None:
    with refused_port() as port:
        url = f"http://127.0.0.1:{port}/v1"
        monkeypatch.setenv("STUB_BASE_URL", url)
        monkeypatch.setenv("STUB_API_KEY", "sk-whatever-123456")
        async with LLMRuntime(retry=fast_retry) as rt:
            with pytest.raises(EndpointUnreachableError) as info:
                await rt.client(MODEL).complete(MESSAGES)
        assert url in str(info.value) and info.value.attempts == fast_retry.max_attempts


def test_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUB_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.delenv("STUB_API_KEY", raising=False)
    with pytest.raises(MissingAPIKeyError, match="STUB_API_KEY") as info:
        LLMClient(MODEL)
    assert info.value.env_var == "STUB_API_KEY"
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(MissingAPIKeyError, match="OPENAI_API_KEY"):
        LLMClient("openai/gpt-4.1-mini")


def test_unknown_provider_lists_known_ones() -> None:
    with pytest.raises(UnknownProviderError) as info:
        LLMClient("gemini/pro")
    message = str(info.value)
    assert "'gemini'" in message
    for known in ("anthropic", "mock", "ollama", "openai", "openai-api", "vllm"):
        assert known in message


async def test_concurrency_limit_per_endpoint(stub_env: Callable[..., None]) -> None:
    with StubServer(FixedLatencyPolicy(latency=0.1)) as stub:
        stub_env(stub)
        async with LLMRuntime(limits={stub.base_url: 3}) as rt:
            client = rt.client(MODEL)
            other = rt.client("openai-api/stub/another-model")  # same endpoint, same limit
            calls = [client.complete(MESSAGES, scope=CallScope(f"e{i}", "a", 1))
                     for i in range(6)]
            calls += [other.complete(MESSAGES, scope=CallScope(f"f{i}", "a", 1))
                      for i in range(6)]
            started = time.monotonic()
            await asyncio.gather(*calls)
            elapsed = time.monotonic() - started
        assert stub.max_in_flight == 3
        assert elapsed >= 0.39  # 12 calls, 3 at a time, 0.1 s each
        # one connection pool serves both models; each request names its own model
        sent = sorted(r.model or "" for r in stub.completion_requests)
        assert sent == ["another-model"] * 6 + ["test-model"] * 6
        stub.reset()
        async with LLMRuntime(max_concurrency=8) as rt:
            client = rt.client(MODEL)
            await asyncio.gather(*(client.complete(MESSAGES, scope=CallScope(f"g{i}"))
                                   for i in range(16)))
        assert stub.max_in_flight == 8


def test_one_runtime_across_event_loops(stub_env: Callable[..., None]) -> None:
    """Sequential ``asyncio.run`` calls (and thus loops) can share one runtime."""
    with StubServer(FixedLatencyPolicy(0.05, inner="echo")) as stub:
        stub_env(stub)
        rt = LLMRuntime(max_concurrency=2)
        client = rt.client(MODEL)

        async def burst() -> list[str]:
            done = await asyncio.gather(*(client.complete(MESSAGES, scope=CallScope(str(i)))
                                          for i in range(4)))
            await rt.aclose()
            return [d.text for d in done]

        assert asyncio.run(burst()) == ["Make an offer."] * 4
        assert asyncio.run(burst()) == ["Make an offer."] * 4
    assert stub.max_in_flight == 2 and len(stub.completion_requests) == 8


def test_loops_in_two_threads_never_share_limits_or_connections(
        stub_env: Callable[..., None]) -> None:
    """The runtime's per-loop state, found without a lock on the fast path, stays per loop
    when two threads' loops call through one runtime at the same time."""
    import threading

    with StubServer(FixedLatencyPolicy(0.01, inner="echo")) as stub:
        stub_env(stub)
        rt = LLMRuntime(max_concurrency=3)
        client = rt.client(MODEL)
        seen: dict[int, set[int]] = {}
        errors: list[BaseException] = []

        async def calls(tag: int) -> None:
            for i in range(20):
                seen.setdefault(tag, set()).add(id(rt._state()))
                await client.complete(MESSAGES, scope=CallScope(f"t{tag}-{i}"))
                seen[tag].add(id(rt._state()))
            await rt.aclose()

        def run(tag: int) -> None:
            try:
                asyncio.run(calls(tag))
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(t,)) for t in (1, 2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    assert not errors
    assert len(seen[1]) == 1 and len(seen[2]) == 1 and seen[1] != seen[2]
    assert len(stub.completion_requests) == 40


def test_a_finished_loop_leaves_no_state_behind() -> None:
    import gc
    import weakref

    rt = LLMRuntime()

    async def grab() -> weakref.ref[object]:
        return weakref.ref(rt._state())

    ref = asyncio.run(grab())
    gc.collect()
    assert ref() is None  # neither the fast path, nor the loop table, nor the closer keeps it
