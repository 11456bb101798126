"""Reading request bodies for accord's web apps: bounded in size and depth, 400 or 413.

Every handler of ``accord serve`` and of the play app that reads a body goes through
:func:`read_json` or :func:`read_form`, so a body too large is a 413 and a malformed one
(not UTF-8, not JSON, nested deeper than :data:`MAX_DEPTH`, too many fields or files)
is a 400 with a sentence saying what is wrong -- never a 500. The guard around the apps
(:mod:`accord.serve.security`) already caps every state-changing body at
:data:`~accord.serve.security.MAX_BODY`; the limits here are the handler's own, smaller
ones. The depth is checked by a linear scan before the JSON parser sees the text (so a
body of 100,000 ``[`` never reaches Python's recursion limit), and the parser's own
``RecursionError`` is caught as a backstop.
"""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request

#: largest JSON body a handler reads (bytes)
MAX_JSON_BYTES = 64 * 1024
#: deepest nesting of arrays and objects in a JSON body
MAX_DEPTH = 32
#: most fields of a form (files included)
MAX_FIELDS = 200
#: most files of a form
MAX_FILES = 1
#: largest part of a multipart form that is not a file (bytes)
MAX_PART = 256 * 1024

_SPECIAL = re.compile(r'[\[\]{}"\\]')


def json_depth(text: str, limit: int = MAX_DEPTH) -> int:
    """The nesting depth of the JSON ``text`` (arrays and objects; brackets inside
    strings do not count), or the first depth over ``limit`` (the scan stops there).

    Linear in the text: only brackets, quotes and backslashes are visited.
    """
    depth = deepest = 0
    in_string = False
    skip = -1
    for m in _SPECIAL.finditer(text):
        i = m.start()
        if i == skip:  # the character after a backslash inside a string
            continue
        c = m.group()
        if in_string:
            if c == "\\":
                skip = i + 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
        elif c in "]}":
            depth -= 1
    return deepest


def parse_json(data: bytes, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of a body; ``HTTPException(400)`` saying why it cannot be read."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise HTTPException(400, "body is not UTF-8 text") from None
    if json_depth(text, max_depth) > max_depth:
        raise HTTPException(400, f"body is nested deeper than {max_depth} levels")
    try:
        return json.loads(text)
    except RecursionError:
        raise HTTPException(400, f"body is nested deeper than {max_depth} levels") from None
    except ValueError as exc:
        raise HTTPException(400, f"body is not JSON ({str(exc)[:80]})") from None


async def read_body(request: Request, max_bytes: int) -> bytes:
    """The body, read up to ``max_bytes``; ``HTTPException(413)`` beyond that."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > max_bytes:
        raise HTTPException(413, f"request body over {max_bytes} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise HTTPException(413, f"request body over {max_bytes} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def read_json(request: Request, max_bytes: int = MAX_JSON_BYTES,
                    max_depth: int = MAX_DEPTH) -> Any:
    """The request's JSON body, bounded in size (413) and depth (400)."""
    return parse_json(await read_body(request, max_bytes), max_depth)


async def read_json_object(request: Request, max_bytes: int = MAX_JSON_BYTES,
                           max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """Like :func:`read_json`, and the body must be a JSON object (400 otherwise)."""
    data = await read_json(request, max_bytes, max_depth)
    if not isinstance(data, dict):
        raise HTTPException(400, "body must be a JSON object")
    return data


async def read_form(request: Request, max_fields: int = MAX_FIELDS,
                    max_files: int = MAX_FILES, max_part: int = MAX_PART) -> FormData:
    """The request's form (urlencoded or multipart), bounded in fields, files and part
    size; a malformed or oversized form is ``HTTPException(400)``."""
    try:
        return await request.form(max_fields=max_fields, max_files=max_files,
                                  max_part_size=max_part)
    except HTTPException:
        raise
    except Exception as exc:  # the multipart parser's own errors, bad encodings
        raise HTTPException(400, f"the form cannot be read ({str(exc)[:80]})") from None


__all__ = ["MAX_DEPTH", "MAX_FIELDS", "MAX_FILES", "MAX_JSON_BYTES", "MAX_PART",
           "json_depth", "parse_json", "read_body", "read_form", "read_json",
           "read_json_object"]
