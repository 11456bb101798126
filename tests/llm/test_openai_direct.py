"""Direct calls over aiohttp (issue 30, goal 6): the same request, answer and errors as the
SDK's own request path, which stays for httpx, proxies and per-request auth."""

from __future__ import annotations

from collections.abc import Callable

import openai
import pytest

from accord.llm import LLMRuntime, RequestError, RetryPolicy
from accord.llm.backends.openai_compat import (
    OpenAIBackend,
    direct_headers,
    status_error_message,
)
from accord.testing.stub import FaultyPolicy, ScriptedPolicy, StubServer

MODEL = "openai-api/stub/test-model"
MESSAGES = [{"role": "system", "content": "You are a party."},
            {"role": "user", "content": "Make an offer."}]


def _client() -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(api_key="sk-direct-test-0001", base_url="http://127.0.0.1:9/v1",
                              default_headers={"X-Extra": "yes"})


@pytest.fixture
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


@pytest.mark.usefixtures("no_proxy")
def test_direct_headers_are_the_sdks_auth_and_defaults() -> None:
    got = direct_headers(_client(), "aiohttp")
    assert got is not None
    assert got["Authorization"] == "Bearer sk-direct-test-0001"
    assert got["X-Extra"] == "yes" and got["Content-Type"] == "application/json"
    assert all(isinstance(v, str) for v in got.values())  # the SDK's Omit() left out
    assert "OpenAI-Organization" not in got


@pytest.mark.usefixtures("no_proxy")
def test_httpx_and_proxies_keep_the_sdk_path(monkeypatch: pytest.MonkeyPatch) -> None:
    assert direct_headers(_client(), "httpx") is None
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:3128")
    assert direct_headers(_client(), "aiohttp") is None


@pytest.mark.parametrize("status, raw, said", [
    (400, b'{"error": {"message": "bad model", "type": "invalid"}}', "bad model"),
    (404, b'{"message": "no such route"}', "no such route"),
    (400, b'{"error": "plain"}', "Error code: 400"),
    (502, b"<html>bad gateway</html>", "Error code: 502"),
    (500, b"", "Error code: 500"),
])
def test_status_error_message_reads_the_body_as_the_sdk_does(status: int, raw: bytes,
                                                             said: str) -> None:
    assert status_error_message(status, raw) == said


@pytest.mark.parametrize("transport", ["aiohttp", "httpx"])
async def test_the_same_refusal_over_both_paths(transport: str, stub_env: Callable[..., None],
                                                fast_retry: RetryPolicy,
                                                no_proxy: None) -> None:
    with StubServer(FaultyPolicy(fault="bad-request", times=None)) as stub:
        stub_env(stub)
        async with LLMRuntime(retry=fast_retry, transport=transport) as rt:  # type: ignore[arg-type]
            client = rt.client(MODEL)
            backend = rt.backend(client.endpoint)
            assert isinstance(backend, OpenAIBackend)
            assert (backend._direct is not None) == (transport == "aiohttp")
            with pytest.raises(RequestError) as info:
                await client.complete(MESSAGES)
    assert info.value.status == 400
    assert len(stub.completion_requests) == 1  # not retried, sent once
    assert "HTTP 400" in str(info.value)


async def test_refusals_read_alike_over_both_paths(stub_env: Callable[..., None],
                                                   fast_retry: RetryPolicy,
                                                   no_proxy: None) -> None:
    said: dict[str, str] = {}
    for transport in ("aiohttp", "httpx"):
        with StubServer(FaultyPolicy(fault="bad-request", times=None)) as stub:
            stub_env(stub)
            async with LLMRuntime(retry=fast_retry,
                                  transport=transport) as rt:
                with pytest.raises(RequestError) as info:
                    await rt.client(MODEL).complete(MESSAGES)
        said[transport] = str(info.value).replace(stub.base_url, "URL")
    assert said["aiohttp"] == said["httpx"]


async def test_direct_answers_and_sessions(stub_env: Callable[..., None],
                                           no_proxy: None) -> None:
    with StubServer(ScriptedPolicy(["first", "second"])) as stub:
        stub_env(stub)
        async with LLMRuntime(transport="aiohttp") as rt:
            client = rt.client(MODEL)
            backend = rt.backend(client.endpoint)
            a = await client.complete(MESSAGES)
            b = await client.complete([*MESSAGES, {"role": "assistant", "content": "first"},
                                       {"role": "user", "content": "Again."}])
            assert isinstance(backend, OpenAIBackend) and backend._session is not None
            session = backend._session
        assert session.closed  # closed with the runtime
    assert (a.text, b.text) == ("first", "second")
    sent = stub.completion_requests[-1]
    assert [m["content"] for m in sent.messages][-1] == "Again."
    assert sent.headers.get("x-stainless-retry-count") == "0"
