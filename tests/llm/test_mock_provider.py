"""The in-process mock provider behaves like the HTTP stub, minus the network."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from accord.agents.negotiator_prompts import system_text, turn_text
from accord.llm import CallScope, GenerationConfig, LLMRuntime, RequestError, RetryPolicy
from accord.testing.stub import ScriptedPolicy, StubServer

UTILITY = {"issues": {"price": [10, 20, 30]}, "weights": {"price": 1},
           "values": {"price": {"10": 0.0, "20": 0.5, "30": 1.0}}, "batna": 0.2}
PROMPT = [{"role": "system", "content": system_text("seller", ["buyer"], UTILITY["issues"],
                                                     UTILITY, 0.2, 3)},
          {"role": "user", "content": turn_text(1, 3, "propose", None, None)}]


async def test_mock_and_http_stub_answer_identically(stub_env: Callable[..., None]) -> None:
    with StubServer() as stub:
        stub_env(stub)
        async with LLMRuntime() as rt:
            over_http = await rt.client("openai-api/stub/negotiator").complete(PROMPT)
            in_process = await rt.client("mock/negotiator").complete(PROMPT)
    assert over_http.text == in_process.text
    assert '<PROPOSAL>{"price": 30}</PROPOSAL>' in in_process.text
    assert over_http.usage == in_process.usage
    assert in_process.provider == "mock" and in_process.attempts == 1


async def test_mock_scripted_policy_faults_and_retries() -> None:
    policies = {"script": ScriptedPolicy(["a", "b"]), }
    async with LLMRuntime(mock_policies=policies,
                          retry=RetryPolicy(base_delay=0.01, max_delay=0.02)) as rt:
        client = rt.client("mock/script")
        assert (await client.complete([{"role": "user", "content": "x"}])).text == "a"
        assert (await client.complete([{"role": "user", "content": "x"}])).text == "b"
        with pytest.raises(RequestError, match="exhausted"):
            await client.complete([{"role": "user", "content": "x"}])
        limited = await rt.client("mock/faulty-rate-limit").complete(PROMPT)
        assert limited.attempts == 2 and "<PROPOSAL>" in limited.text
        cut = await rt.client("mock/echo").complete([{"role": "user", "content": "a b c d"}],
                                                    GenerationConfig(max_tokens=2))
        assert cut.text == "a b" and cut.finish_reason == "length"


async def test_mock_prefix_accounting_per_session() -> None:
    async with LLMRuntime() as rt:
        client = rt.client("mock/echo")
        first = [{"role": "system", "content": "s s s"}, {"role": "user", "content": "u"}]
        a = await client.complete(first, scope=CallScope("e", "x", 1))
        b = await client.complete([*first, {"role": "assistant", "content": "u"},
                                   {"role": "user", "content": "v"}],
                                  scope=CallScope("e", "x", 2))
        other = await client.complete(first, scope=CallScope("e", "y", 1))
    assert a.usage.cached_tokens == 0 and b.usage.cached_tokens == a.usage.prompt_tokens
    assert other.usage.cached_tokens == 0  # another session has its own prefix


async def test_unknown_mock_policy_lists_known() -> None:
    async with LLMRuntime() as rt:
        with pytest.raises(RequestError, match=r"known policies: .*negotiator"):
            await rt.client("mock/nonexistent").complete([{"role": "user", "content": "x"}])
