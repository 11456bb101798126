"""The OpenAI-compatible backend reads Chat Completions bodies itself (no SDK model tree):
every field it takes, and every way a 200 body can fail to be an answer."""

import json

import pytest

from accord.llm.backends.openai_compat import parse_reply
from accord.llm.errors import LLMError
from accord.llm.retry import Transient

URL = "http://127.0.0.1:9/v1"


def body(**over: object) -> bytes:
    data: dict[str, object] = {
        "id": "x", "object": "chat.completion", "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": "hello"}}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3,
                  "prompt_tokens_details": {"cached_tokens": 8}}}
    data.update(over)
    return json.dumps(data).encode()


def test_fields_of_a_normal_answer() -> None:
    reply = parse_reply(URL, "m", body())
    assert (reply.text, reply.finish_reason) == ("hello", "stop")
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens,
            reply.usage.cached_tokens) == (12, 3, 8)


def test_refusal_and_missing_usage() -> None:
    reply = parse_reply(URL, "m", body(
        choices=[{"finish_reason": "stop",
                  "message": {"content": None, "refusal": "I can't help with that"}}],
        usage=None))
    assert reply.text == "I can't help with that"
    assert (reply.usage.prompt_tokens, reply.usage.cached_tokens) == (0, 0)


def test_no_choices_is_a_final_error() -> None:
    with pytest.raises(LLMError, match="returned no choices for model 'm'"):
        parse_reply(URL, "m", body(choices=[]))


@pytest.mark.parametrize("raw, says", [
    (b"<html>gateway says hi</html>", "gateway says hi"),
    (b'["a", "list"]', "got list"),
    (b'"text"', "got str"),
    (body(choices=[{"finish_reason": "stop"}]), "choice without a message"),
    (body(choices=[{"message": {"content": ["part"]}}]), "not text"),
    (b"\xff\xfe", "body"),
])
def test_garbled_bodies_are_retryable_and_named(raw: bytes, says: str) -> None:
    with pytest.raises(Transient) as info:
        parse_reply(URL, "m", raw)
    assert info.value.kind == "server" and says in info.value.detail
