"""Structured output: the exact shape of a valid reply, sent so the model must keep to it.

A small model cannot follow a free-form tag format; every serious server can force a
reply into a JSON schema (OpenAI ``response_format: json_schema``, vLLM structured
outputs, llama.cpp's ``response_format`` / ``json_schema``) or a GBNF grammar
(llama.cpp ``grammar``). An LLM agent with ``structured=json_schema|grammar|auto`` (a
generation option, so part of the cache key) derives, per turn, the schema of the moves
its protocol allows now (issue values, actions, ...), sends it, and reads the JSON reply
into the same typed move the tag parser would give; the protocol validates it as always.
Free text (a message) stays free inside the schema, bounded in length.

The subset of JSON Schema used here (objects with fixed, required properties; ``enum``;
strings with ``maxLength``; integers, numbers and booleans; arrays of one item schema with
``maxItems``; ``anyOf``) converts to GBNF by :func:`to_gbnf`, so ``grammar`` needs no
other library.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from accord.agents.jsonsafe import loads_bounded, strip_fence
from accord.core.moves import Malformed
from accord.llm.errors import ConfigurationError
from accord.llm.generation import STRUCTURED_MODES as MODES
from accord.llm.providers import Endpoint

#: the longest free-text field a schema allows (a bound also keeps small models from rambling)
MESSAGE_CHARS = 300
#: the most characters of a structured reply read as JSON (a schema-bound reply is short)
MAX_REPLY_CHARS = 20_000


def resolve_mode(mode: str | None, endpoint: Endpoint) -> str:
    """What ``mode`` means on ``endpoint``: ``auto`` is ``json_schema`` on OpenAI-compatible
    endpoints and ``off`` elsewhere (the in-process mock answers in tags; Anthropic takes no
    response schema); an explicit mode the endpoint cannot take is a
    :class:`ConfigurationError` naming the provider."""
    if mode in (None, "off"):
        return "off"
    if mode == "auto":
        return "json_schema" if endpoint.api == "openai" else "off"
    if endpoint.api == "anthropic":
        raise ConfigurationError(f"provider {endpoint.provider!r} (Anthropic) takes no "
                                 f"structured={mode} (no response schema or grammar); use "
                                 "structured=off or auto")
    if mode == "grammar" and endpoint.provider == "openai":
        raise ConfigurationError("provider 'openai' takes no GBNF grammar; use "
                                 "structured=json_schema")
    return mode


def request_fields(mode: str, schema: Mapping[str, Any], name: str = "reply"
                   ) -> dict[str, Any]:
    """The request-body fields that send ``schema`` under ``mode``."""
    if mode == "json_schema":
        return {"response_format": {"type": "json_schema", "json_schema": {
            "name": name, "strict": True, "schema": dict(schema)}}}
    if mode == "grammar":
        return {"grammar": to_gbnf(schema)}
    return {}


def obj(properties: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """An object schema whose every property is required and nothing else is allowed
    (what OpenAI's strict mode asks for)."""
    return {"type": "object", "properties": dict(properties), "required": list(properties),
            "additionalProperties": False}


def enum(values: Sequence[Any]) -> dict[str, Any]:
    """A schema admitting exactly ``values``."""
    return {"enum": list(values)}


def enum_of(schema: Mapping[str, Any], key: str) -> list[Any]:
    """The values property ``key`` of an object ``schema`` admits."""
    return list(schema["properties"][key]["enum"])


def text(max_chars: int = MESSAGE_CHARS, min_chars: int = 0) -> dict[str, Any]:
    """A free-text string of at most ``max_chars`` characters (at least ``min_chars``)."""
    out: dict[str, Any] = {"type": "string", "maxLength": max_chars}
    if min_chars:
        out["minLength"] = min_chars
    return out


def number() -> dict[str, Any]:
    """A JSON number (integer or decimal)."""
    return {"type": "number"}


def boolean() -> dict[str, Any]:
    """``true`` or ``false``."""
    return {"type": "boolean"}


def array(items: Mapping[str, Any], max_items: int, min_items: int = 0) -> dict[str, Any]:
    """A list of ``min_items`` to ``max_items`` values, each of schema ``items``."""
    out: dict[str, Any] = {"type": "array", "items": dict(items), "maxItems": max_items}
    if min_items:
        out["minItems"] = min_items
    return out


def raw(data: Mapping[str, Any]) -> str:
    """A structured reply's data as short JSON text (``Malformed.raw`` of a refused one)."""
    return json.dumps(data, ensure_ascii=False, default=str)[:200]


def read_json(reply: str, finish_reason: str | None) -> dict[str, Any] | Malformed:
    """The JSON object of a structured reply, or a :class:`Malformed` move with feedback
    (cut off by the token budget, not JSON, not an object, too long)."""
    if finish_reason == "length":
        return Malformed("truncated", "Your reply was cut off before it ended (the token "
                         "budget ran out): answer with a shorter JSON object, keeping the "
                         "message brief.", raw=reply[:200])
    if len(reply) > MAX_REPLY_CHARS:
        return Malformed("reply_too_long", f"Your reply has {len(reply)} characters; answer "
                         "with one short JSON object.", raw=reply[:200])
    try:
        data = loads_bounded(strip_fence(reply))
    except (ValueError, RecursionError) as exc:
        why = exc.msg if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
        return Malformed("invalid_json", f"Your reply is not valid JSON ({why}); answer with "
                         "one JSON object of the requested shape.", raw=reply[:200])
    if not isinstance(data, dict):
        return Malformed("invalid_json", "Your reply must be one JSON object, not "
                         f"{type(data).__name__}.", raw=reply[:200])
    return data


def describe(schema: Mapping[str, Any], indent: str = "") -> list[str]:
    """One line per property of an object ``schema``: its name and what it may hold, for
    the prompt that asks for the JSON reply (a property's ``description``, if it has one)."""
    lines: list[str] = []
    for key, node in schema.get("properties", {}).items():
        if "description" in node:  # the schema says it in words (e.g. a list of splits)
            lines.append(f"{indent}- {key}: {node['description']}")
        elif node.get("type") == "object":
            parts = list(node.get("properties", {}).values())
            if len(parts) > 1 and all(p == parts[0] and p.get("type") != "object"
                                      for p in parts):  # a value per key: one line
                lines.append(f"{indent}- {key}: an object with {_what(parts[0])} for each of "
                             + ", ".join(json.dumps(k, ensure_ascii=False)
                                         for k in node["properties"]))
                continue
            lines.append(f"{indent}- {key}: an object with")
            lines.extend(describe(node, indent + "  "))
        elif node.get("type") == "array" and node.get("items", {}).get("type") == "object":
            lines.append(f"{indent}- {key}: a list of at most {node.get('maxItems')} objects, "
                         "each with")
            lines.extend(describe(node["items"], indent + "  "))
        else:
            lines.append(f"{indent}- {key}: {_what(node)}")
    return lines


def _what(node: Mapping[str, Any]) -> str:
    """What a leaf schema admits, in words."""
    if "enum" in node:
        return "one of " + ", ".join(json.dumps(v, ensure_ascii=False) for v in node["enum"])
    kind = node.get("type")
    if kind == "string":
        return f"free text of at most {node.get('maxLength', MESSAGE_CHARS)} characters"
    if kind == "array":
        item = node.get("items", {})
        of = (", ".join(json.dumps(v, ensure_ascii=False) for v in item["enum"])
              if "enum" in item else _what(item))
        return f"a list of at most {node.get('maxItems')} (no repeats) of {of}"
    if kind == "boolean":
        return "true or false"
    if kind == "number":
        return "a number"
    if kind == "integer":
        return "a whole number"
    return str(kind or "a value")


# -- GBNF ------------------------------------------------------------------------------------
_WS = 'ws ::= [ \\t\\n]{0,2}'
_CHAR = r'char ::= [^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})'


def _literal(value: Any) -> str:
    """A GBNF literal matching the JSON encoding of ``value``."""
    return json.dumps(json.dumps(value, ensure_ascii=False), ensure_ascii=False)


def to_gbnf(schema: Mapping[str, Any]) -> str:
    """A GBNF grammar (llama.cpp) for ``schema``, in the subset :mod:`structured` writes.

    Properties come in the schema's order, all required; ``enum`` values are literals;
    strings are JSON strings of ``minLength`` to ``maxLength`` characters; ``integer`` an optional
    minus and digits, ``number`` also an optional decimal part; ``boolean`` ``true`` or
    ``false``; an array of ``minItems`` to ``maxItems`` items (uniqueness is left to the reader);
    ``anyOf`` its alternatives. Anything else is a ``ValueError`` (the schemas are
    accord's own)."""
    rules: dict[str, str] = {}

    def rule(node: Mapping[str, Any], name: str) -> str:
        rules[name] = ""  # a parent's rule comes before its parts'
        if "enum" in node:
            rules[name] = " | ".join(_literal(v) for v in node["enum"])
        elif "anyOf" in node:
            alts = [rule(sub, f"{name}-{i}") for i, sub in enumerate(node["anyOf"])]
            rules[name] = " | ".join(alts)
        elif node.get("type") == "object":
            props = node.get("properties", {})
            parts = ['"{" ws']
            for i, (key, sub) in enumerate(props.items()):
                sep = '"," ws ' if i else ""
                parts.append(f'{sep}{_literal(key)} ws ":" ws {rule(sub, f"{name}-{i}")} ws')
            parts.append('"}"')
            rules[name] = " ".join(parts)
        elif node.get("type") == "string":
            most = int(node.get("maxLength", MESSAGE_CHARS))
            least = int(node.get("minLength", 0))
            rules[name] = f'"\\"" char{{{least},{most}}} "\\""'
        elif node.get("type") == "integer":
            rules[name] = '"-"? [0-9]{1,12}'
        elif node.get("type") == "number":
            rules[name] = '"-"? [0-9]{1,12} ("." [0-9]{1,6})?'
        elif node.get("type") == "boolean":
            rules[name] = '"true" | "false"'
        elif node.get("type") == "array" and "items" in node:
            item = rule(node["items"], f"{name}-i")
            most = int(node.get("maxItems", 16))
            least = int(node.get("minItems", 0))
            rest = f' ("," ws {item}){{{max(least - 1, 0)},{most - 1}}}' if most > 1 else ""
            body = f"{item}{rest} ws"
            rules[name] = ('"[" ws "]"' if most < 1 else
                           f'"[" ws {body} "]"' if least else f'"[" ws ({body})? "]"')
        else:
            raise ValueError(f"to_gbnf: unsupported schema part {dict(node)!r}")
        return name

    rule(schema, "root")
    body = [f"{name} ::= {expr}" for name, expr in rules.items()]
    return "\n".join([*body, _WS, _CHAR]) + "\n"


__all__ = ["MAX_REPLY_CHARS", "MESSAGE_CHARS", "MODES", "array", "boolean", "describe", "enum",
           "enum_of", "number", "obj", "raw", "read_json", "request_fields", "resolve_mode",
           "text", "to_gbnf"]
