"""A direct call (httptools or aiohttp) is bounded by its timeout without the deadline too.

The attempt deadline lives in :class:`~accord.llm.client.LLMClient` (issue 24); the
backend keeps one whole-request timer of its own (issue 30 replaced aiohttp's per-read
timers by it), so a backend used on its own cannot hang on a slow endpoint either.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from accord.llm import GenerationConfig, LLMRuntime
from accord.llm.backends.openai_compat import OpenAIBackend
from accord.llm.backends.transport import httptools_available
from accord.llm.retry import Transient
from accord.testing.stub import DripPolicy, FixedLatencyPolicy, StubServer


@pytest.fixture
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


@pytest.mark.usefixtures("no_proxy")
@pytest.mark.parametrize("policy", [FixedLatencyPolicy(5.0), DripPolicy(interval=0.2)],
                         ids=["silent", "drip"])
@pytest.mark.parametrize("transport", [
    pytest.param("httptools", marks=pytest.mark.skipif(not httptools_available(),
                                                       reason="httptools not installed")),
    "aiohttp"])
async def test_a_backend_on_its_own_times_out(policy: object, transport: str,
                                              stub_env: Callable[..., None]) -> None:
    # silent: no headers for 5 s; drip: headers at once, then a byte every 0.2 s (a
    # per-read timer of 0.5 s would never fire; the whole-request one does)
    with StubServer(policy) as stub:  # type: ignore[arg-type]
        stub_env(stub)
        async with LLMRuntime(transport=transport) as rt:  # type: ignore[arg-type]
            client = rt.client("openai-api/stub/unnamed-model")
            backend = rt.backend(client.endpoint)
            assert isinstance(backend, OpenAIBackend) and backend._direct is not None
            with pytest.raises(Transient) as info:
                await backend.send([{"role": "user", "content": "hi"}], GenerationConfig(),
                                   model="unnamed-model", timeout=0.5, headers={})
    assert info.value.kind == "timeout"  # not an answer after 5 s, nor the whole drip
