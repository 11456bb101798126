"""A server's "the prompt exceeds the context window" answer, recognised in every shape.

Each server says it its own way, and none of them is worth retrying (the same prompt
overflows again), so a backend turns it into a
:class:`~accord.llm.errors.ContextOverflowError` instead of a generic request or server
error. The shapes recognised (bodies as the servers send them):

OpenAI
    HTTP 400, ``error.code = "context_length_exceeded"``, message "This model's maximum
    context length is 8192 tokens. However, your messages resulted in 9000 tokens. ...";
llama.cpp's server
    HTTP 400, ``error.type = "exceed_context_size_error"`` with ``n_ctx`` and
    ``n_prompt_tokens``, message "request (1231 tokens) exceeds the available context size
    (512 tokens), try increasing it"; older builds: "the request exceeds the available
    context size, try increasing it" (HTTP 400 or 500, no numbers);
vLLM
    HTTP 400, message "This model's maximum context length is 4096 tokens. However, you
    requested 5000 tokens (4000 in the messages, 1000 in the completion). ..." (newer:
    "... However, your request has 5000 input tokens. ...");
Anthropic
    HTTP 400, ``invalid_request_error`` "prompt is too long: 208310 tokens > 200000 maximum".

Pure functions, no SDK import.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

#: message fragments that mean "the prompt does not fit" (case-insensitive)
_MARKERS = re.compile(r"context_length_exceeded|exceeds? the available context size|"
                      r"maximum context length is|prompt is too long|"
                      r"exceed_context_size_error", re.IGNORECASE)
#: the context size in a message
_CONTEXT = (re.compile(r"maximum context length is (\d[\d,]*) tokens", re.IGNORECASE),
            re.compile(r"available context size \((\d[\d,]*) tokens\)", re.IGNORECASE),
            re.compile(r"tokens > (\d[\d,]*) maximum", re.IGNORECASE))
#: the prompt size in a message (the first that matches wins)
_PROMPT = (re.compile(r"\((\d[\d,]*) in the messages", re.IGNORECASE),
           re.compile(r"messages resulted in (\d[\d,]*) tokens", re.IGNORECASE),
           re.compile(r"request has (\d[\d,]*) (?:input )?tokens", re.IGNORECASE),
           re.compile(r"request \((\d[\d,]*) tokens\) exceeds", re.IGNORECASE),
           re.compile(r"prompt is too long: (\d[\d,]*) tokens", re.IGNORECASE),
           re.compile(r"you requested (\d[\d,]*) tokens", re.IGNORECASE))


@dataclass(frozen=True)
class Overflow:
    """What a server said about an overflowing prompt (``None``: it did not say)."""

    context_tokens: int | None = None
    prompt_tokens: int | None = None


def _number(pattern: tuple[re.Pattern[str], ...], text: str) -> int | None:
    for rx in pattern:
        m = rx.search(text)
        if m:
            return int(m.group(1).replace(",", ""))
    return None


def _field(err: Mapping[str, object], name: str) -> int | None:
    value = err.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 \
        else None


def context_overflow(message: str, body: object = None) -> Overflow | None:
    """The overflow a server's error answer reports (``message`` its text, ``body`` the
    decoded JSON body or its ``error`` member), or ``None`` when it reports another error."""
    err: Mapping[str, object] = {}
    if isinstance(body, Mapping):
        inner = body.get("error")
        err = inner if isinstance(inner, Mapping) else body
    tags = " ".join(str(err.get(k) or "") for k in ("code", "type"))
    text = f"{message} {err.get('message') or ''}"
    if not _MARKERS.search(f"{tags} {text}"):
        return None
    return Overflow(_field(err, "n_ctx") or _number(_CONTEXT, text),
                    _field(err, "n_prompt_tokens") or _number(_PROMPT, text))


__all__ = ["Overflow", "context_overflow"]
