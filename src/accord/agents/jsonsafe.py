"""JSON inside reply tags, read within bounds (issue 24, "replies that end episodes").

A model's reply is hostile input: ``json.loads`` on a PROPOSAL nested 50,000 deep raises
``RecursionError`` and on a 5,000-digit integer Python's digit-limit ``ValueError``, and
either ended the episode instead of a retry. :func:`loads_bounded` checks size, nesting
depth and the length of every number in one linear pass *before* parsing and raises
:class:`json.JSONDecodeError` (what every reply parser already turns into a malformed
reply with feedback) for anything over the limits. :func:`strip_fence` removes a Markdown
code fence around a body in linear time (the old pattern was quadratic on whitespace).
"""

from __future__ import annotations

import json
from typing import Any

MAX_JSON_CHARS = 50_000
"""Longest JSON body read from a tag (a move's JSON is a few hundred characters)."""

MAX_JSON_DEPTH = 32
"""Deepest nesting of arrays and objects read (moves nest two or three levels)."""

MAX_NUMBER_CHARS = 100
"""Longest number literal read (far below Python's 4,300-digit integer limit)."""


def _fault(text: str) -> tuple[str, int] | None:
    """The first reason ``text`` is over a limit, with its position, or ``None``."""
    if len(text) > MAX_JSON_CHARS:
        return f"the JSON is {len(text):,} characters long, more than {MAX_JSON_CHARS:,}", 0
    depth = 0
    in_string = escaped = False
    run = 0
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch.isdigit() or (run and ch in ".eE+-"):
            run += 1
            if run > MAX_NUMBER_CHARS:
                return f"a number is longer than {MAX_NUMBER_CHARS} characters", i
            continue
        run = 0
        if ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return f"the JSON nests deeper than {MAX_JSON_DEPTH} levels", i
        elif ch in "]}":
            depth = max(0, depth - 1)
    return None


def loads_bounded(text: str) -> Any:
    """``json.loads(text)`` within :data:`MAX_JSON_CHARS`, :data:`MAX_JSON_DEPTH` and
    :data:`MAX_NUMBER_CHARS`; :class:`json.JSONDecodeError` for anything over them."""
    fault = _fault(text)
    if fault is not None:
        raise json.JSONDecodeError(fault[0], text, fault[1])
    try:
        return json.loads(text)
    except RecursionError:  # unreachable within the depth limit; kept as a last guard
        raise json.JSONDecodeError("the JSON nests too deeply", text, 0) from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # e.g. an integer past Python's digit limit
        raise json.JSONDecodeError(str(exc), text, 0) from None


def strip_fence(text: str) -> str:
    """``text`` stripped, without a Markdown code fence (```` ```json ... ``` ````) around it."""
    body = text.strip()
    if body.startswith("```"):
        i = 3
        while i < len(body) and body[i].isascii() and body[i].isalpha():
            i += 1
        body = body[i:].lstrip()
    if body.endswith("```"):
        body = body[:-3].rstrip()
    return body


__all__ = ["MAX_JSON_CHARS", "MAX_JSON_DEPTH", "MAX_NUMBER_CHARS", "loads_bounded",
           "strip_fence"]
