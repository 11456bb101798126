"""429s and server errors have separate retry budgets, and a 200 whose body is not an API
response is retried and reported with the endpoint's name (issue: hardening, finding 7)."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Callable, Iterator

import pytest

from accord.llm import LLMRuntime, RateLimitedError, ServerError
from accord.llm.retry import RetryPolicy
from accord.testing.stub import HttpError, ScriptedPolicy, StubServer

FAST = RetryPolicy(max_attempts=3, max_rate_limit_attempts=4, base_delay=0.001,
                   max_delay=0.002)
MSG = [{"role": "user", "content": "hi"}]


def _429() -> HttpError:
    return HttpError(429, "slow down", {"Retry-After": "0"})


def _500() -> HttpError:
    return HttpError(500, "boom")


async def test_a_429_does_not_spend_the_server_error_budget(
        stub_env: Callable[..., None]) -> None:
    # two 429s then two 500s then an answer: within both budgets (3 server, 4 rate-limit)
    with StubServer(ScriptedPolicy([_429(), _429(), _500(), _500(), "ok"])) as stub:
        stub_env(stub)
        async with LLMRuntime(retry=FAST) as rt:
            done = await rt.client("openai-api/stub/m").complete(MSG)
    assert done.text == "ok" and done.attempts == 5


async def test_server_error_message_counts_only_server_errors(
        stub_env: Callable[..., None]) -> None:
    with StubServer(ScriptedPolicy([_429(), _500(), _500(), _500(), "ok"])) as stub:
        stub_env(stub)
        async with LLMRuntime(retry=FAST) as rt:
            with pytest.raises(ServerError) as info:
                await rt.client("openai-api/stub/m").complete(MSG)
    msg = str(info.value)
    assert "HTTP 500 3 time(s)" in msg and "4 attempts in all" in msg
    with StubServer(ScriptedPolicy([_429()], cycle=True)) as stub:
        stub_env(stub)
        async with LLMRuntime(retry=FAST) as rt:
            with pytest.raises(RateLimitedError, match="after 4 attempt"):
                await rt.client("openai-api/stub/m").complete(MSG)


@pytest.fixture
def html_server() -> Iterator[tuple[str, list[int]]]:
    """An endpoint answering 200 with an HTML page (a misconfigured proxy), then JSON."""
    hits: list[int] = []

    class H(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            hits.append(1)
            body = b"<html>gateway says hi</html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}/v1", hits
    finally:
        srv.shutdown()
        srv.server_close()


async def test_a_200_that_is_not_an_api_answer_is_retried_and_named(
        html_server: tuple[str, list[int]], monkeypatch: pytest.MonkeyPatch) -> None:
    url, hits = html_server
    monkeypatch.setenv("PROXY_BASE_URL", url)
    monkeypatch.setenv("PROXY_API_KEY", "k" * 12)
    async with LLMRuntime(retry=FAST) as rt:
        with pytest.raises(ServerError) as info:
            await rt.client("openai-api/proxy/m").complete(MSG)
    assert len(hits) == 3  # retried up to the server-error budget
    msg = str(info.value)
    assert url in msg and "not a valid API response" in msg and "gateway says hi" in msg
