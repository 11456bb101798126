"""llama.cpp's own answer to a prompt larger than its context, through accord's client.

A server started with a 512-token context gets a bargaining prompt of more than that:
llama.cpp refuses it at once (no decoding, about a second), and accord must say so in one
final error naming the model, the context size and the prompt's size - the same error the
stub tests expect from the body the stub copies (tests/llm/test_context_overflow.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from accord.domains.bargaining import resolve_scenario, run_negotiation
from accord.llm import LLMRuntime
from accord.llm.errors import ContextOverflowError

pytestmark = pytest.mark.slow

CONTEXT = 512


@pytest.fixture
def tiny_context(gguf: Path, monkeypatch: pytest.MonkeyPatch):
    """A llama.cpp server of its own (not the shared one of llamacpp/) with 512 tokens."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(gguf)
    params.n_ctx = CONTEXT
    params.n_parallel = 1
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = 1
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    params.verbosity = 0
    server = xllamacpp.Server(params)
    monkeypatch.setenv("TINY_BASE_URL", str(server.listening_address).rstrip("/") + "/v1")
    monkeypatch.setenv("TINY_API_KEY", "none")
    yield "openai-api/tiny/smollm2"
    del server  # the server stops when the last reference goes


async def test_the_real_server_overflow_is_one_clear_error(tiny_context: str) -> None:
    long = [{"role": "user", "content": "Please consider this offer carefully. " * 150}]
    async with LLMRuntime() as rt:
        with pytest.raises(ContextOverflowError) as info:
            await rt.client(tiny_context).complete(long)
    err = info.value
    assert err.context_tokens == CONTEXT and err.prompt_tokens and err.prompt_tokens > CONTEXT
    assert f"exceeds the {CONTEXT}-token context of model {tiny_context!r}" in str(err)


async def test_an_episode_names_the_overflow(tiny_context: str) -> None:
    res = await run_negotiation(resolve_scenario("buyer-seller"),
                                [f"llm:{tiny_context}?max_tokens=16", "boulware"],
                                params={"max_rounds": 1}, seed=0)
    assert res.status == "error"
    assert f"by the server's count) exceeds the {CONTEXT}-token context" in str(res.detail)
