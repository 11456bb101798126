"""The stub server over plain HTTP (urllib, sync) and from async code."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.error
import urllib.request
from typing import Any

from accord.testing.stub import (
    FixedLatencyPolicy,
    HttpError,
    Reply,
    ScriptedPolicy,
    StubServer,
    count_tokens,
    message_tokens,
    tokenize,
)


def _post(url: str, body: Any, headers: dict[str, str] | None = None
          ) -> tuple[int, dict[str, Any], dict[str, str]]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="POST",
                                     headers={"Content-Type": "application/json",
                                              **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read()), dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read()), dict(exc.headers)


def _chat(messages: list[dict[str, str]], model: str = "m", **params: Any) -> dict[str, Any]:
    return {"model": model, "messages": messages, **params}


def test_tokenizer_rule() -> None:
    assert tokenize('<PROPOSAL>{"price": 10}') == ["<", "PROPOSAL", ">", "{", '"', "price", '"',
                                                   ":", "10", "}"]
    assert count_tokens("  héllo,   wörld  ") == 3
    assert message_tokens([{"role": "user", "content": "a b"}]) == ["<|user|>", "a", "b"]


def test_chat_completion_shape_usage_and_prefix_cache() -> None:
    first = [{"role": "system", "content": "Rules here."}, {"role": "user", "content": "Go."}]
    with StubServer(ScriptedPolicy(["one two three", "four"], cycle=True)) as stub:
        status, body, _ = _post(stub.base_url + "/chat/completions", _chat(first))
        assert status == 200
        assert body["object"] == "chat.completion" and body["model"] == "m"
        choice = body["choices"][0]
        assert choice["message"] == {"role": "assistant", "content": "one two three"}
        assert choice["finish_reason"] == "stop"
        usage = body["usage"]
        assert usage["prompt_tokens"] == len(message_tokens(first)) == 7
        assert usage["completion_tokens"] == 3 and usage["total_tokens"] == 10
        assert usage["prompt_tokens_details"]["cached_tokens"] == 0
        second = [*first, {"role": "assistant", "content": "one two three"},
                  {"role": "user", "content": "Again."}]
        _, body2, _ = _post(stub.base_url + "/chat/completions", _chat(second))
        assert body2["usage"]["prompt_tokens_details"]["cached_tokens"] == 7
        # another conversation (different first message, no session header) shares nothing
        _, body3, _ = _post(stub.base_url + "/chat/completions",
                            _chat([{"role": "user", "content": "Go."}]))
        assert body3["usage"]["prompt_tokens_details"]["cached_tokens"] == 0


def test_session_header_defines_the_conversation() -> None:
    msgs = [{"role": "system", "content": "same system"}, {"role": "user", "content": "x"}]
    with StubServer("echo") as stub:
        _post(stub.base_url + "/chat/completions", _chat(msgs), {"X-Accord-Session": "e/a"})
        _, body, _ = _post(stub.base_url + "/chat/completions", _chat(msgs),
                           {"X-Accord-Session": "e/b"})
        assert body["usage"]["prompt_tokens_details"]["cached_tokens"] == 0
        _, body, _ = _post(stub.base_url + "/chat/completions", _chat(msgs),
                           {"X-Accord-Session": "e/a"})
        assert body["usage"]["prompt_tokens_details"]["cached_tokens"] == len(
            message_tokens(msgs))
    assert [r.conversation for r in stub.requests] == ["e/a", "e/b", "e/a"]


def test_max_tokens_truncates_with_finish_reason_length() -> None:
    with StubServer("echo") as stub:
        _, body, _ = _post(stub.base_url + "/chat/completions",
                           _chat([{"role": "user", "content": "a, b c d"}], max_tokens=3))
    assert body["choices"][0]["message"]["content"] == "a, b"
    assert body["choices"][0]["finish_reason"] == "length"
    assert body["usage"]["completion_tokens"] == 3


def test_errors_and_request_log() -> None:
    script = ScriptedPolicy([HttpError(429, "slow down", {"Retry-After": "7"}),
                             HttpError(503, "busy"), Reply("fine")])
    with StubServer(script) as stub:
        url = stub.base_url + "/chat/completions"
        auth = {"Authorization": "Bearer sk-should-not-be-logged-1234"}
        status, body, headers = _post(url, _chat([{"role": "user", "content": "x"}]), auth)
        assert status == 429 and headers["Retry-After"] == "7"
        assert body["error"]["message"] == "slow down"
        assert _post(url, _chat([{"role": "user", "content": "x"}]))[0] == 503
        assert _post(url, _chat([{"role": "user", "content": "x"}]))[0] == 200
        status, body, _ = _post(url, _chat([{"role": "user", "content": "x"}]))
        assert status == 400 and "exhausted" in body["error"]["message"]
        assert _post(url, b"{not json")[0] == 400
        assert _post(url, {"model": "m"})[0] == 400
        status, body, _ = _post(url, _chat([{"role": "user", "content": "x"}], stream=True))
        assert status == 400 and "stream" in body["error"]["message"]
        assert _post(stub.root_url + "/v1/elsewhere", {})[0] == 404
    log = stub.requests
    assert [r.status for r in log[:4]] == [429, 503, 200, 400]
    assert all("authorization" not in r.headers for r in log)
    assert "sk-should-not-be-logged" not in repr(log)
    assert log[2].reply == "fine" and log[0].messages == [{"role": "user", "content": "x"}]


def test_required_key_and_models_listing() -> None:
    with StubServer("echo", api_key="right-key-123456") as stub:
        url = stub.base_url + "/chat/completions"
        msgs = [{"role": "user", "content": "x"}]
        status, body, _ = _post(url, _chat(msgs), {"Authorization": "Bearer wrong-key-999"})
        assert status == 401 and "wrong-key-999" in body["error"]["message"]  # echoed on purpose
        assert _post(url, _chat(msgs), {"Authorization": "Bearer right-key-123456"})[0] == 200
        with urllib.request.urlopen(stub.base_url + "/models", timeout=5) as response:
            listing = json.loads(response.read())
    ids = {m["id"] for m in listing["data"]}
    assert {"echo", "negotiator", "scripted", "faulty-rate-limit"} <= ids


def test_models_route_to_named_policies() -> None:
    with StubServer(ScriptedPolicy(["default"], cycle=True),
                    policies={"special": ScriptedPolicy(["special"], cycle=True)}) as stub:
        url = stub.base_url + "/chat/completions"
        msgs = [{"role": "user", "content": "hello"}]
        texts = [_post(url, _chat(msgs, model=m))[1]["choices"][0]["message"]["content"]
                 for m in ("special", "echo", "whatever")]
        stub.set_policy("whatever", "echo")
        texts.append(_post(url, _chat(msgs, model="whatever"))[1]["choices"][0]["message"][
            "content"])
    assert texts == ["special", "hello", "default", "hello"]


def test_anthropic_messages_endpoint() -> None:
    body = {"model": "claude-x", "max_tokens": 5, "system": [{"type": "text", "text": "Sys."}],
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi there"}]}]}
    with StubServer("echo") as stub:
        status, answer, _ = _post(stub.root_url + "/v1/messages", body)
        script = ScriptedPolicy([HttpError(429, "wait", {"Retry-After": "1"})])
        stub.set_policy("limited", script)
        status2, err, _ = _post(stub.root_url + "/v1/messages", dict(body, model="limited"))
    assert status == 200 and answer["type"] == "message"
    assert answer["content"] == [{"type": "text", "text": "Hi there"}]
    assert answer["stop_reason"] == "end_turn"
    assert answer["usage"]["input_tokens"] == 2 + 2 + 2  # markers + "Sys ." + "Hi there"
    assert status2 == 429 and err["error"]["type"] == "rate_limit_error"


def test_max_in_flight_counts_concurrent_requests() -> None:
    with StubServer(FixedLatencyPolicy(latency=0.2)) as stub:
        threads = [threading.Thread(target=_post, args=(
            stub.base_url + "/chat/completions", _chat([{"role": "user", "content": "x"}])))
            for _ in range(5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert stub.max_in_flight == 5
        # the server books a request as finished just after the client has its answer
        deadline = time.monotonic() + 5
        while any(r.finished is None for r in stub.requests) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert all(r.finished is not None and r.finished - r.started >= 0.19
                   for r in stub.requests)
        stub.reset()
        assert stub.requests == [] and stub.max_in_flight == 0


async def test_usable_from_async_code() -> None:
    async with StubServer("echo") as stub:
        status, body, _ = await asyncio.to_thread(
            _post, stub.base_url + "/chat/completions", _chat([{"role": "user", "content": "hi"}]))
    assert status == 200 and body["choices"][0]["message"]["content"] == "hi"


def test_stop_cuts_pending_delays_short() -> None:
    stub = StubServer(FixedLatencyPolicy(latency=30)).start()
    outcome: list[object] = []

    def call() -> None:
        try:
            outcome.append(_post(stub.base_url + "/chat/completions",
                                 _chat([{"role": "user", "content": "x"}]))[0])
        except Exception as exc:  # the server may hang up instead of answering early
            outcome.append(exc)

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    while not stub.requests:
        threading.Event().wait(0.01)
    stub.stop()
    worker.join(5)
    assert not worker.is_alive() and len(outcome) == 1
