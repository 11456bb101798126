"""The OpenAI-compatible backend encodes the request body itself (each message's encoding
memoised): byte for byte what the SDK would send, through the SDK to a real server."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.llm import CallScope, GenerationConfig, LLMError, LLMRuntime
from accord.llm.backends.openai_compat import body_mode, chat_body, sends_bytes_bodies
from accord.llm.types import ChatMessage
from accord.testing.stub import StubServer

sdk_json = pytest.importorskip("openai._utils._json")  # the SDK's own body encoder

_TEXT = st.text(st.characters(codec="utf-8"), max_size=30)
_VALUE = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False,
                                                                 allow_infinity=False) | _TEXT


@settings(max_examples=200, deadline=None)
@given(model=_TEXT,
       contents=st.lists(st.tuples(st.sampled_from(["system", "user", "assistant"]), _TEXT),
                         min_size=1, max_size=6),
       params=st.dictionaries(_TEXT, _VALUE | st.lists(_VALUE, max_size=3), max_size=4))
def test_the_body_is_what_the_sdk_would_encode(model: str, contents: list[tuple[str, str]],
                                               params: dict[str, object]) -> None:
    messages: list[ChatMessage] = [{"role": r, "content": c}  # type: ignore[typeddict-item]
                                   for r, c in contents]
    expected = sdk_json.openapi_dumps({"model": model, "messages": messages, **params})
    assert chat_body(model, messages, params) == expected
    assert chat_body(model, messages, params) == expected  # again, from the memo


def test_an_extra_field_may_replace_model_or_messages_as_before() -> None:
    messages: list[ChatMessage] = [{"role": "user", "content": "hi"}]
    options: list[dict[str, object]] = [{"model": "other"}, {"messages": []}]
    for params in options:
        expected = sdk_json.openapi_dumps({"model": "m", "messages": messages, **params})
        assert chat_body("m", messages, params) == expected


@pytest.mark.parametrize(("version", "encodes"), [
    ("1.40.0", False), ("1.98.3", False), ("1.99.0", True), ("2.0.0", True),
    ("3.57.0", True), ("garbage", False), ("", False)])
def test_only_sdks_that_send_bytes_as_given_get_a_ready_body(version: str, encodes: bool
                                                             ) -> None:
    assert sends_bytes_bodies(version) is encodes


def test_keys_json_writes_as_text_and_values_only_the_sdk_knows() -> None:
    messages: list[ChatMessage] = [{"role": "user", "content": "hi"}]
    odd: list[dict[object, object]] = [{1: 2, "a": True}, {True: 1}, {None: "x"}]
    for params in odd:
        expected = sdk_json.openapi_dumps({"model": "m", "messages": messages, **params})
        assert chat_body("m", messages, params) == expected  # type: ignore[arg-type]
    with pytest.raises(TypeError):  # the backend then lets the SDK encode its dict
        chat_body("m", messages, {"at": datetime(2024, 1, 1)})


def test_the_ready_body_goes_where_the_sdk_takes_it() -> None:
    async def new_post(path: str, *, cast_to: type, body: object = None,
                       content: object = None, options: object = None) -> None: ...

    async def old_post(path: str, *, cast_to: type, body: object = None,
                       options: object = None) -> None: ...

    assert body_mode(new_post, "3.57.0") == "content"
    assert body_mode(old_post, "1.99.0") == "body"
    assert body_mode(old_post, "1.98.0") == "dict"


async def test_the_server_receives_the_session_and_the_options(
        stub_env: Callable[..., None]) -> None:
    with StubServer("echo") as stub:
        stub_env(stub)
        async with LLMRuntime() as rt:
            client = rt.client("openai-api/stub/echo")
            msgs = [{"role": "system", "content": "Négocie « bien » \\ \" ✓"},
                    {"role": "user", "content": "Round 1"}]
            cfg = GenerationConfig(temperature=0.25, max_tokens=64, stop=("</X>",),
                                   extra={"top_k": 5})
            await client.complete(msgs, cfg, scope=CallScope("e", "a", 1))
            msgs += [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "2"}]
            await client.complete(msgs, cfg, scope=CallScope("e", "a", 2))
            with pytest.raises(LLMError, match="cannot be encoded as JSON"):
                await client.complete(msgs, GenerationConfig(extra={"x": float("nan")}))
            # a value only the SDK's encoder knows: sent as the SDK encodes it
            await client.complete(msgs[:2], GenerationConfig(
                extra={"metadata": {"at": datetime(2024, 1, 1)}}))
    first, second, dated = stub.completion_requests
    assert dated.params == {"metadata": {"at": "2024-01-01T00:00:00"}}
    assert second.headers["content-type"] == "application/json"
    assert second.messages == msgs and first.messages == msgs[:2]
    assert second.params == {"temperature": 0.25, "max_tokens": 64, "stop": ["</X>"],
                             "top_k": 5}
    assert json.loads(json.dumps(second.params)) == second.params


async def test_the_same_config_object_edited_in_place_sends_its_new_fields(
        stub_env: Callable[..., None]) -> None:
    # the backend remembers the body fields of the last config object: a config's
    # ``extra`` dict edited between two calls must still reach the second request
    with StubServer("echo") as stub:
        stub_env(stub)
        async with LLMRuntime() as rt:
            client = rt.client("openai-api/stub/echo")
            cfg = GenerationConfig(temperature=0.5, extra={"top_k": 5})
            msgs = [{"role": "user", "content": "hi"}]
            await client.complete(msgs, cfg)
            await client.complete(msgs, cfg)
            cfg.extra["top_k"] = 7
            await client.complete(msgs, cfg)
            await client.complete(msgs, GenerationConfig(temperature=0.25))
            # nested under a key the thinking switch also writes (merged into a new dict)
            nested = GenerationConfig(thinking=False,
                                      extra={"chat_template_kwargs": {"x": 1}})
            await client.complete(msgs, nested)
            nested.extra["chat_template_kwargs"]["x"] = 2
            await client.complete(msgs, nested)
    sent = [r.params for r in stub.completion_requests]
    assert sent[:4] == [{"temperature": 0.5, "top_k": 5}, {"temperature": 0.5, "top_k": 5},
                        {"temperature": 0.5, "top_k": 7}, {"temperature": 0.25}]
    assert [p["chat_template_kwargs"]["x"] for p in sent[4:]] == [1, 2]
    assert sent[5]["chat_template_kwargs"]["enable_thinking"] is False
