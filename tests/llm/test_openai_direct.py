"""Direct calls over aiohttp (issue 30, goal 6): the same request, answer and errors as the
SDK's own request path, which stays for httpx, proxies and per-request auth."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import openai
import pytest

from accord.llm import GenerationConfig, LLMRuntime, RequestError, RetryPolicy
from accord.llm.backends.openai_compat import (
    OpenAIBackend,
    direct_headers,
    status_error_message,
)
from accord.llm.backends.transport import httptools_available
from accord.testing.stub import FaultyPolicy, ScriptedPolicy, StubServer

#: the httptools transport where httptools is installed
HTTPTOOLS: tuple[str, ...] = ("httptools",) if httptools_available() else ()
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


@pytest.mark.parametrize("transport", [*HTTPTOOLS, "aiohttp", "httpx"])
async def test_the_same_refusal_over_both_paths(transport: str, stub_env: Callable[..., None],
                                                fast_retry: RetryPolicy,
                                                no_proxy: None) -> None:
    with StubServer(FaultyPolicy(fault="bad-request", times=None)) as stub:
        stub_env(stub)
        async with LLMRuntime(retry=fast_retry, transport=transport) as rt:  # type: ignore[arg-type]
            client = rt.client(MODEL)
            backend = rt.backend(client.endpoint)
            assert isinstance(backend, OpenAIBackend)
            assert (backend._direct is not None) == (transport != "httpx")
            with pytest.raises(RequestError) as info:
                await client.complete(MESSAGES)
    assert info.value.status == 400
    assert len(stub.completion_requests) == 1  # not retried, sent once
    assert "HTTP 400" in str(info.value)


async def test_refusals_read_alike_over_both_paths(stub_env: Callable[..., None],
                                                   fast_retry: RetryPolicy,
                                                   no_proxy: None) -> None:
    said: dict[str, str] = {}
    for transport in (*HTTPTOOLS, "aiohttp", "httpx"):
        with StubServer(FaultyPolicy(fault="bad-request", times=None)) as stub:
            stub_env(stub)
            async with LLMRuntime(retry=fast_retry,
                                  transport=transport) as rt:
                with pytest.raises(RequestError) as info:
                    await rt.client(MODEL).complete(MESSAGES)
        said[transport] = str(info.value).replace(stub.base_url, "URL")
    assert said["aiohttp"] == said["httpx"] == said.get("httptools", said["httpx"])


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


@pytest.mark.usefixtures("no_proxy")
async def test_direct_calls_make_no_sdk_client_after_the_first_backend(
        stub_env: Callable[..., None]) -> None:
    # the SDK's headers are read once per process (key, URL, environment); later backends
    # (a new runtime, a new loop) call directly without making an SDK client, whose HTTP
    # client costs ~50 ms of CPU; one appears when a call needs the SDK after all
    with StubServer("echo") as stub:
        stub_env(stub)
        async with LLMRuntime(transport="aiohttp") as first:
            await first.client(MODEL).complete(MESSAGES)
        async with LLMRuntime(transport="aiohttp") as rt:
            client = rt.client(MODEL)
            backend = rt.backend(client.endpoint)
            assert isinstance(backend, OpenAIBackend)
            done = await client.complete(MESSAGES)
            assert backend._sdk is None and backend._direct is not None
            assert backend._direct["Authorization"] == "Bearer sk-stub-test-key-000111222"
            # a value only the SDK's encoder knows: through the SDK, made now
            await client.complete(MESSAGES, GenerationConfig(
                extra={"metadata": {"at": datetime(2024, 1, 1)}}))
            assert backend._sdk is not None
    assert done.text
    direct, via_sdk = stub.completion_requests[-2:]
    # (the stub logs no secret headers; the key checked above)
    for name in ("user-agent", "x-stainless-lang", "x-stainless-package-version"):
        assert direct.headers[name] == via_sdk.headers[name]
    assert via_sdk.params == {"metadata": {"at": "2024-01-01T00:00:00"}}


@pytest.mark.usefixtures("no_proxy")
async def test_an_organization_in_the_environment_is_not_served_from_the_memo(
        stub_env: Callable[..., None], monkeypatch: pytest.MonkeyPatch) -> None:
    with StubServer("echo") as stub:
        stub_env(stub)
        async with LLMRuntime(transport="aiohttp") as rt:
            await rt.client(MODEL).complete(MESSAGES)
        monkeypatch.setenv("OPENAI_ORG_ID", "org-test-123")
        async with LLMRuntime(transport="aiohttp") as rt:
            await rt.client(MODEL).complete(MESSAGES)
    before, after = stub.completion_requests
    assert "openai-organization" not in before.headers
    assert after.headers["openai-organization"] == "org-test-123"
