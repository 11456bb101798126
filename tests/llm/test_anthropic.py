"""Anthropic: message conversion (unit) and the SDK path against the stub's /v1/messages."""

from __future__ import annotations

import pytest

from accord.llm import (
    AuthenticationError,
    CallScope,
    GenerationConfig,
    InvalidMessagesError,
    LLMRuntime,
    RetryPolicy,
)
from accord.llm.backends.anthropic_api import DEFAULT_MAX_TOKENS, request_params, to_anthropic
from accord.testing.stub import FaultyPolicy, ScriptedPolicy, StubServer


def test_conversion_moves_system_merges_turns_and_marks_cache() -> None:
    system, turns = to_anthropic([
        {"role": "system", "content": "Rules."},
        {"role": "system", "content": "More rules."},
        {"role": "user", "content": "Round 1."},
        {"role": "user", "content": "Your move."},
        {"role": "assistant", "content": "<ACCEPT/>"},
        {"role": "user", "content": "Round 2."},
    ])
    assert system == [{"type": "text", "text": "Rules.\n\nMore rules.",
                       "cache_control": {"type": "ephemeral"}}]
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]
    assert turns[0]["content"] == [{"type": "text", "text": "Round 1.\n\nYour move."}]
    assert turns[-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in turns[0]["content"][0]
    plain_system, plain = to_anthropic([{"role": "user", "content": "hi"}], prompt_cache=False)
    assert plain_system == [] and plain == [{"role": "user",
                                             "content": [{"type": "text", "text": "hi"}]}]


def test_conversion_rejects_what_the_api_would() -> None:
    with pytest.raises(InvalidMessagesError, match="user message first"):
        to_anthropic([{"role": "system", "content": "s"}, {"role": "assistant", "content": "a"}])
    with pytest.raises(InvalidMessagesError, match="only before the first user"):
        to_anthropic([{"role": "user", "content": "u"}, {"role": "system", "content": "s"}])


def test_request_params() -> None:
    assert request_params(GenerationConfig()) == {"max_tokens": DEFAULT_MAX_TOKENS}
    params = request_params(GenerationConfig(temperature=1.5, max_tokens=50, stop=("X",)))
    assert params == {"max_tokens": 50, "temperature": 1.0, "stop_sequences": ["X"]}


async def test_sdk_path_over_http(monkeypatch: pytest.MonkeyPatch) -> None:
    with StubServer(FaultyPolicy("rate-limit", times=1, retry_after=0.05,
                                 inner=ScriptedPolicy(["<ACCEPT/>", "<WALK/>"]))) as stub:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", stub.root_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-000000000000")
        messages = [{"role": "system", "content": "You are a party."},
                    {"role": "user", "content": "Offer: 10."}]
        async with LLMRuntime(retry=RetryPolicy(base_delay=0.01)) as rt:
            client = rt.client("anthropic/claude-test", GenerationConfig(max_tokens=64))
            first = await client.complete(messages, scope=CallScope("e", "a", 1))
            second = await client.complete(
                [*messages, {"role": "assistant", "content": first.text},
                 {"role": "user", "content": "Offer: 12."}],
                scope=CallScope("e", "a", 2))
    assert (first.text, second.text) == ("<ACCEPT/>", "<WALK/>")
    assert first.attempts == 2 and first.finish_reason == "end_turn"
    assert first.provider == "anthropic"
    assert second.usage.cached_tokens == first.usage.prompt_tokens
    sent = stub.completion_requests[-1]
    assert sent.path == "/v1/messages" and sent.params["max_tokens"] == 64
    assert sent.messages[0] == {"role": "system", "content": "You are a party."}
    assert "x-api-key" not in sent.headers and "authorization" not in sent.headers


async def test_wrong_anthropic_key(monkeypatch: pytest.MonkeyPatch) -> None:
    with StubServer("echo", api_key="sk-ant-right-00000000") as stub:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", stub.root_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-wrong-11111111")
        async with LLMRuntime() as rt:
            with pytest.raises(AuthenticationError) as info:
                await rt.client("anthropic/claude-test").complete(
                    [{"role": "user", "content": "hi"}])
    assert "sk-ant-wrong-11111111" not in str(info.value)
