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

import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence

TOKEN_RE = re.compile(r"\w+|[^\w\s]")
"""One token: a run of word characters or a single other non-space character."""


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


def message_tokens(messages: Iterable[Mapping[str, str]]) -> list[str]:
    """The token sequence of a chat prompt: a role marker, then the content, per message."""
    out: list[str] = []
    for message in messages:
        out.append(f"<|{message.get('role', 'user')}|>")
        out.extend(tokenize(str(message.get("content", ""))))
    return out


def shared_prefix(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common prefix of two token sequences."""
    n = min(len(a), len(b))
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
