"""The stub tokenizer now lives in :mod:`accord.llm.tokens` (the mock provider uses it);
this module keeps the old import path."""

from accord.llm.tokens import (
    PrefixTracker,
    count_tokens,
    message_tokens,
    tokenize,
    truncate_tokens,
)

__all__ = ["PrefixTracker", "count_tokens", "message_tokens", "tokenize", "truncate_tokens"]
