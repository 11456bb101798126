"""A deterministic stand-in tokenizer for the stub server and the ``mock`` provider.

Real tokenizers (BPE vocabularies) need downloads; accord's tests and benchmarks only
need counts that are stable, cheap and roughly proportional to text length. The rule:

* a token is a maximal run of word characters (``\\w+``: letters, digits, underscore,
  Unicode-aware) or a single non-space, non-word character (``[^\\w\\s]``);
  whitespace is never a token. ``'<PROPOSAL>{"price": 10}'`` is 10 tokens:
  ``<``, ``PROPOSAL``, ``>``, ``{``, ``"``, ``price``, ``"``, ``:``, ``10``, ``}``;
* a chat prompt is tokenised message by message: one role marker token
  (``<|system|>``, ``<|user|>``, ``<|assistant|>``) followed by the content tokens.

Prefix-cache accounting (``prompt_tokens_details.cached_tokens``) is the number of
leading tokens a prompt shares with the previous prompt of the same conversation,
exactly, without the block granularity real providers use (OpenAI caches in
128-token steps after 1024, Anthropic from explicit breakpoints). That makes the
share of a prompt that is an unchanged prefix directly measurable.
"""

from __future__ import annotations

import functools
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence

TOKEN_RE = re.compile(r"\w+|[^\w\s]")
"""One token: a run of word characters or a single other non-space character."""
CONTENT_CACHE_SIZE = 4096
"""Message contents whose tokens :func:`message_tokens` remembers."""


def tokenize(text: str) -> list[str]:
    """The tokens of ``text`` under the stub rule (see module docstring)."""
    return TOKEN_RE.findall(text)


def count_tokens(text: str) -> int:
    """How many stub tokens ``text`` has."""
    return sum(1 for _ in TOKEN_RE.finditer(text))


def truncate_tokens(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut after its ``limit``-th token, and whether anything was cut."""
    if limit <= 0:
        return "", bool(TOKEN_RE.search(text))
    for i, match in enumerate(TOKEN_RE.finditer(text), start=1):
        if i == limit:
            rest = text[match.end():]
            return text[: match.end()], TOKEN_RE.search(rest) is not None
    return text, False


@functools.lru_cache(maxsize=CONTENT_CACHE_SIZE)
def _content_tokens(text: str) -> tuple[str, ...]:
    return tuple(TOKEN_RE.findall(text))


def message_tokens(messages: Iterable[Mapping[str, str]]) -> list[str]:
    """The token sequence of a chat prompt: a role marker, then the content, per message.

    Each message's content is tokenised once (an LRU of :data:`CONTENT_CACHE_SIZE`
    contents): an append-only session resends every earlier message with each call, so
    only the new ones cost a regular-expression pass (a 10-message, 800-token prompt:
    ~200 us uncached).
    """
    out: list[str] = []
    for message in messages:
        out.append(f"<|{message.get('role', 'user')}|>")
        out.extend(_content_tokens(str(message.get("content", ""))))
    return out


def shared_prefix(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common prefix of two token sequences."""
    n = min(len(a), len(b))
    if isinstance(a, list) and isinstance(b, list) and a[:n] == b[:n]:
        return n  # the usual case (a prompt extending the last one), compared in C
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


class PrefixTracker:
    """Remembers the last prompt of each conversation to report cached prefix tokens.

    Thread-safe (the stub server answers requests on several threads). At most
    ``max_conversations`` conversations are remembered, least recently used first out.
    """

    def __init__(self, max_conversations: int = 10_000) -> None:
        self._last: OrderedDict[str, list[str]] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_conversations

    def observe(self, conversation: str, tokens: list[str]) -> int:
        """Record ``tokens`` as the conversation's latest prompt; return the cached prefix."""
        with self._lock:
            previous = self._last.pop(conversation, None)
            self._last[conversation] = tokens
            if len(self._last) > self._max:
                self._last.popitem(last=False)
        return 0 if previous is None else shared_prefix(previous, tokens)

    def clear(self) -> None:
        """Forget every conversation."""
        with self._lock:
            self._last.clear()
