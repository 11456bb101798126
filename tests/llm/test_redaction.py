"""API keys never reach logs, caches, stub logs or exception text."""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest

from accord.llm import (
    AuthenticationError,
    CallScope,
    CompletionCache,
    LLMError,
    LLMRuntime,
    RedactingFilter,
    RetryPolicy,
    redact,
    register_secret,
)
from accord.testing.stub import FaultyPolicy, ScriptedPolicy, StubServer

SECRET = "sk-test-LEAKCHECK-0123456789abcdef"


def test_redact_masks_registered_env_and_key_shaped_secrets(
        monkeypatch: pytest.MonkeyPatch) -> None:
    register_secret("my-registered-secret-42")
    monkeypatch.setenv("SOMEGW_API_KEY", "plain-env-secret-value")
    text = ("a my-registered-secret-42 b plain-env-secret-value c "
            "Authorization: Bearer abcdefghijkl d sk-proj-ABCDEFGHIJKLMNOP e "
            "sk-ant-api03-XYZXYZXYZXYZXYZ f api_key=qwertyuiop g")
    out = redact(text)
    for leaked in ("my-registered-secret-42", "plain-env-secret-value", "abcdefghijkl",
                   "sk-proj-ABCDEFGHIJKLMNOP", "sk-ant-api03-XYZXYZXYZXYZXYZ", "qwertyuiop"):
        assert leaked not in out
    assert out.count("[REDACTED]") >= 6
    harmless = "nothing secret: price 42, sk is short"
    assert redact(harmless) == harmless
    assert "extra-secret-1" not in redact("x extra-secret-1 y", secrets=["extra-secret-1"])


def test_redacting_filter_cleans_formatted_records() -> None:
    register_secret("filter-secret-value-9")
    record = logging.LogRecord("accord.llm", logging.WARNING, __file__, 1,
                               "calling with %s", ("filter-secret-value-9",), None)
    assert RedactingFilter().filter(record)
    assert record.getMessage() == "calling with [REDACTED]"


async def test_a_test_key_never_leaks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      caplog: pytest.LogCaptureFixture,
                                      stub_env: Callable[..., None]) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, including the SDK's and httpx's
    cache_path = tmp_path / "cache.sqlite"
    fast = RetryPolicy(max_attempts=2, base_delay=0.01, max_delay=0.02)
    texts: list[str] = []
    with StubServer(FaultyPolicy("rate-limit", times=1, retry_after=0.01,
                                 inner=ScriptedPolicy(["ok"], cycle=True))) as stub:
        stub_env(stub, key=SECRET)
        with CompletionCache(cache_path, "rw") as cache:
            async with LLMRuntime(cache=cache, retry=fast) as rt:
                client = rt.client("openai-api/stub/m")
                done = await client.complete([{"role": "user", "content": "hi"}],
                                             scope=CallScope("e", "a", 1))
                texts += [repr(client), repr(done), str(done.to_dict()),
                          str(rt.tracker.to_dict())]
        texts += [str(r) for r in stub.requests]
    # a server that wants another key and echoes the one it got in its 401 message
    with StubServer("echo", api_key="the-right-key-000000") as stub:
        stub_env(stub, key=SECRET)
        async with LLMRuntime(retry=fast) as rt:
            with pytest.raises(AuthenticationError) as info:
                await rt.client("openai-api/stub/m").complete([{"role": "user", "content": "x"}])
    assert info.value.status == 401 and "Incorrect API key provided" in str(info.value)
    texts.append("".join(traceback.format_exception(info.value)))
    # the stub connection to a closed port and a missing-key error carry no key either
    monkeypatch.setenv("STUB_BASE_URL", "http://127.0.0.1:9/v1")
    async with LLMRuntime(retry=fast) as rt:
        with pytest.raises(LLMError) as info2:
            await rt.client("openai-api/stub/m").complete([{"role": "user", "content": "x"}])
    texts.append("".join(traceback.format_exception(info2.value)))
    texts.append(caplog.text)
    texts += [r.getMessage() for r in caplog.records]
    files = [p for p in tmp_path.iterdir() if p.name.startswith("cache.sqlite")]
    assert files
    assert done.text == "ok" and done.attempts == 2  # the 429 path (warning log) was taken
    assert any("retrying" in r.getMessage() for r in caplog.records)
    for text in texts:
        assert SECRET not in text
    for path in files:
        assert SECRET.encode() not in path.read_bytes()
