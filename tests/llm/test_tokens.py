"""The stub tokenizer's shortcuts give the same answers as the plain definitions."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from accord.llm.tokens import message_tokens, shared_prefix, tokenize

ROLES = st.sampled_from(["system", "user", "assistant"])
MESSAGES = st.lists(st.fixed_dictionaries({"role": ROLES, "content": st.text(max_size=60)}),
                    max_size=6)


def _plain_message_tokens(messages: list[dict[str, str]]) -> list[str]:
    out: list[str] = []
    for m in messages:
        out += [f"<|{m['role']}|>", *tokenize(m["content"])]
    return out


def _plain_shared_prefix(a: list[str], b: list[str]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


@given(MESSAGES)
def test_memoised_message_tokens_equal_a_fresh_tokenization(messages: list[dict[str, str]]
                                                            ) -> None:
    first = message_tokens(messages)
    assert first == _plain_message_tokens(messages)
    # a second call hits the per-content memo and must return an independent, equal list
    first.append("mutated")
    assert message_tokens(messages) == _plain_message_tokens(messages)


@given(MESSAGES, MESSAGES)
def test_shared_prefix_equals_the_plain_scan(a: list[dict[str, str]],
                                             b: list[dict[str, str]]) -> None:
    ta, tb = message_tokens(a), message_tokens(a + b)
    assert shared_prefix(ta, tb) == _plain_shared_prefix(ta, tb) == len(ta)
    tc = message_tokens(b)
    assert shared_prefix(ta, tc) == _plain_shared_prefix(ta, tc)
    assert shared_prefix(tuple(ta), tuple(tc)) == _plain_shared_prefix(ta, tc)


def test_shared_prefix_stops_at_the_first_difference() -> None:
    assert shared_prefix(["a", "b", "c"], ["a", "x", "c"]) == 1
    assert shared_prefix(["a", "b"], ["a", "b", "c"]) == 2
    assert shared_prefix([], ["a"]) == 0
