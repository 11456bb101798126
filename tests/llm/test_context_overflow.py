"""A server's "exceeds the context" answer, in each server's real shape, over real HTTP.

The stub answers a prompt longer than its context with the exact body the server sends
(:mod:`accord.testing.stub.context`); accord must turn it into one clear, final error
that names the model, its context size (or that the server did not state it) and the
prompt's size, after a single attempt.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from accord.llm import GenerationConfig, LLMRuntime, RequestError, RetryPolicy
from accord.llm.context import context_overflow
from accord.llm.errors import ContextOverflowError
from accord.testing.stub import StubServer
from accord.testing.stub.context import ContextLimitPolicy, overflow_error

LONG = [{"role": "user", "content": "please consider this offer " * 60}]  # 241 stub tokens


@pytest.mark.parametrize(("server", "context", "prompt"), [
    ("openai", "exceeds the 100-token context of", "the prompt (241 tokens by the server's"),
    ("llamacpp", "exceeds the 100-token context of", "the prompt (241 tokens by the server's"),
    ("vllm", "exceeds the 100-token context of", "the prompt (241 tokens by the server's"),
    ("llamacpp-old", "(the server did not state its size)",
     "the prompt (about 241 tokens, estimated from 1,620 characters)"),
])
async def test_overflow_is_one_clear_final_error(stub_env: Callable[..., None], server: str,
                                                 context: str, prompt: str) -> None:
    with StubServer() as stub:
        policy = ContextLimitPolicy(context=100, server=server)
        stub.set_policy("small", policy)
        stub_env(stub)
        rt = LLMRuntime(retry=RetryPolicy(max_attempts=3, base_delay=0.01, max_delay=0.02))
        async with rt:
            with pytest.raises(ContextOverflowError) as info:
                await rt.client("openai-api/stub/small").complete(LONG)
        assert len(stub.completion_requests) == 1  # not retried
    text = str(info.value)
    assert "model 'openai-api/stub/small'" in text
    assert context in text and prompt in text
    assert "history=N" in text
    assert isinstance(info.value, RequestError) and info.value.status == 400


async def test_anthropic_prompt_too_long(monkeypatch: pytest.MonkeyPatch) -> None:
    with StubServer() as stub:
        stub.set_policy("claude-small", ContextLimitPolicy(context=100, server="anthropic"))
        monkeypatch.setenv("ANTHROPIC_BASE_URL", stub.root_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-000000000000")
        async with LLMRuntime() as rt:
            with pytest.raises(ContextOverflowError) as info:
                await rt.client("anthropic/claude-small",
                                GenerationConfig(max_tokens=64)).complete(LONG)
        assert len(stub.completion_requests) == 1
    assert info.value.context_tokens == 100 and info.value.prompt_tokens == 241
    assert "the 100-token context of model 'anthropic/claude-small'" in str(info.value)


async def test_a_prompt_that_fits_is_answered(stub_env: Callable[..., None]) -> None:
    with StubServer() as stub:
        stub.set_policy("small", ContextLimitPolicy(context=1000, server="openai"))
        stub_env(stub)
        async with LLMRuntime() as rt:
            done = await rt.client("openai-api/stub/small").complete(LONG)
    assert "please consider" in done.text


def test_old_llamacpp_500_is_not_retried_either() -> None:
    # builds before the 400 said it with a 500 (a server error that would be retried)
    from accord.llm.backends.base import status_failure

    failure = status_failure("http://x/v1", 500, "the request exceeds the available context "
                             "size, try increasing the context size or enable context shift",
                             {})
    assert isinstance(failure, ContextOverflowError)


def test_other_errors_are_not_overflows() -> None:
    assert context_overflow("model 'x' not found", {"error": {"code": "model_not_found"}}) \
        is None
    assert context_overflow("stub: bad request") is None
    body = overflow_error("llamacpp", 512, 1231).body
    assert context_overflow("", body) is not None
    found = context_overflow("", body)
    assert found is not None and (found.context_tokens, found.prompt_tokens) == (512, 1231)
