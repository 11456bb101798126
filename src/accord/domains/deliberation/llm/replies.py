"""Turning the scaffold modules' replies into data (DESIGN.md principle 3).

Replies are read by structure (:mod:`accord.agents.tags`, :data:`GRAMMAR`): private
``<THINK>`` / ``<CONSIDER>`` blocks are removed, and a tag inside them or inside a
free-text block such as ``<MESSAGE>`` is text, never an answer. Each module's answer is
one top-level tag holding JSON (a Markdown code fence inside the tag is tolerated; when
``ESTIMATE`` or ``MESSAGE`` occurs several times the last one counts, while two different
``PROPOSAL``, ``DECISION`` or ``TOOL`` blocks contradict each other and are refused; an
unclosed tag is refused too, since everything after it would be its text):

* observation: ``<ESTIMATE>{...}</ESTIMATE>`` (menu: ``total_ingredients`` and
  ``overall_preference`` required, ``partner_ingredients`` / ``partner_preference``
  optional; task allocation: ``private_resources``, ``public_resources``, ``efficiency``
  required, ``public_fragments`` optional). Non-numeric entries are dropped.
* planning: ``<PROPOSAL>{"menu_proposal": [...], "explanation": ...}</PROPOSAL>`` or
  ``<PROPOSAL>{"allocation": {task: agent}, "explanation": ...}</PROPOSAL>``;
* decision: ``<DECISION>{"accept_decision": bool, "finalize": bool, "final_decision":
  {...}, "explanation": ...}</DECISION>`` (``finalize`` / ``final_decision`` leader only);
* conversation: ``<MESSAGE>text</MESSAGE>``;
* planning and decision may instead call a tool: ``<TOOL>{"name": "solver"}</TOOL>`` or
  ``<TOOL>{"name": "calculator", "proposal": ...}</TOOL>``. An answer tag wins over a
  tool call in the same reply.

A reply that cannot be used becomes :class:`~accord.core.moves.Malformed` with a reason
and feedback that says exactly what to fix.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from accord.agents.jsonsafe import loads_bounded, strip_fence
from accord.agents.replies import too_long
from accord.agents.tags import Grammar, Parsed, parse_tags
from accord.core.moves import Malformed

TOOLS: tuple[str, ...] = ("solver", "calculator")
"""Tool names the scaffold understands."""
GRAMMAR = Grammar.of(data=["ESTIMATE", "PROPOSAL", "DECISION", "TOOL"])
"""The grammar of a scaffold module's reply (``MESSAGE`` and ``explanation``-like blocks
are free text)."""
_ANSWERS = frozenset({"PROPOSAL", "DECISION", "TOOL"})


@dataclass(frozen=True)
class ToolCall:
    """A request to run a tool (``args`` holds e.g. the calculator's ``proposal``)."""

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Plan:
    """The planning module's proposal (a menu list or a task -> agent map)."""

    proposal: Any
    explanation: str


@dataclass(frozen=True)
class Verdict:
    """The decision module's answer."""

    accept: bool
    finalize: bool = False
    final_decision: Any = None
    explanation: str = ""


def _same(bodies: list[str]) -> bool:
    def norm(body: str) -> str:
        try:
            return json.dumps(loads_bounded(body), sort_keys=True)
        except json.JSONDecodeError:
            return body
    return len({norm(b) for b in bodies}) <= 1


def _tag_body(parsed: Parsed, tag: str) -> str | Malformed | None:
    """The body of the (last) top-level ``<tag>...</tag>``; ``None`` when absent, Malformed if
    a tag is unclosed or two different answers are given."""
    raw = parsed.public
    if (long := too_long(parsed)) is not None:
        return long
    err = parsed.error("unclosed")
    if err is not None:
        name = err.tags[0]
        return Malformed("unclosed_tag", f"Your <{name}> tag is not closed. Write "
                         f"<{name}>...</{name}> with the content between the tags.", raw=raw)
    found = [strip_fence(t.text) for t in parsed.tags if t.name == tag]
    if not found:
        return None
    if tag in _ANSWERS and not _same(found):
        return Malformed("conflicting_tags", f"You gave {len(found)} different <{tag}> blocks; "
                         f"give exactly one <{tag}>...</{tag}>.", raw=raw)
    return found[-1]


def _json_tag(parsed: Parsed, tag: str, example: str) -> Any:
    text = parsed.public
    body = _tag_body(parsed, tag)
    if body is None:
        return Malformed(f"missing_{tag.lower()}", f"No <{tag}>...</{tag}> found. Answer with "
                         f"<{tag}>{example}</{tag}>.", raw=text)
    if isinstance(body, Malformed):
        return body
    try:
        data = loads_bounded(body)
    except json.JSONDecodeError as exc:
        return Malformed("invalid_json", f"The content of <{tag}> is not valid JSON ({exc.msg} "
                         f"at position {exc.pos}). Use double quotes and no trailing commas, "
                         f"e.g. <{tag}>{example}</{tag}>.", raw=text)
    if not isinstance(data, dict):
        return Malformed("invalid_json", f"<{tag}> must hold a JSON object, e.g. "
                         f"<{tag}>{example}</{tag}>.", raw=text)
    return data


def _number(v: Any) -> float | int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return v
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            return None
    return None


def numbers(raw: Any) -> dict[str, float | int]:
    """The numeric entries of a JSON object (others dropped; ``{}`` for a non-object)."""
    if not isinstance(raw, Mapping):
        return {}
    return {str(k): n for k, v in raw.items() if (n := _number(v)) is not None}


def nested(raw: Any) -> dict[str, dict[str, float | int]]:
    """:func:`numbers` of each object inside a JSON object."""
    if not isinstance(raw, Mapping):
        return {}
    return {str(k): numbers(v) for k, v in raw.items() if isinstance(v, Mapping)}


def parse_estimate(text: str, setting: str) -> dict[str, Any] | Malformed:
    """The observation module's state estimate (see the module docstring)."""
    task = setting == "task-allocation"
    example = ('{"private_resources": {...}, "public_resources": {...}, "efficiency": {...}}'
               if task else '{"total_ingredients": {...}, "overall_preference": {...}}')
    parsed = parse_tags(text, GRAMMAR)
    text = parsed.public
    data = _json_tag(parsed, "ESTIMATE", example)
    if isinstance(data, Malformed):
        return data
    need = ("private_resources", "public_resources", "efficiency") if task else \
        ("total_ingredients", "overall_preference")
    missing = [k for k in need if not isinstance(data.get(k), Mapping)]
    if missing:
        return Malformed("incomplete_estimate", f"The ESTIMATE needs the JSON objects "
                         f"{', '.join(repr(k) for k in missing)}; e.g. <ESTIMATE>{example}"
                         "</ESTIMATE>.", raw=text)
    if task:
        return {"private_resources": nested(data["private_resources"]),
                "public_resources": numbers(data["public_resources"]),
                "efficiency": nested(data["efficiency"]),
                "public_fragments": nested(data.get("public_fragments"))}
    return {"partner_ingredients": numbers(data.get("partner_ingredients")),
            "partner_preference": numbers(data.get("partner_preference")),
            "total_ingredients": numbers(data["total_ingredients"]),
            "overall_preference": numbers(data["overall_preference"])}


def _tool_call(parsed: Parsed) -> ToolCall | Malformed | None:
    public = parsed.public
    if _tag_body(parsed, "TOOL") is None:
        return None
    data = _json_tag(parsed, "TOOL", '{"name": "solver"}')
    if isinstance(data, Malformed):
        return data
    name = str(data.get("name", "")).lower()
    if name not in TOOLS:
        return Malformed("unknown_tool", f"Unknown tool {data.get('name')!r}; the tools are "
                         f"{', '.join(TOOLS)}.", raw=public)
    return ToolCall(name, {k: v for k, v in data.items() if k != "name"})


def _menu(raw: Any, text: str, key: str) -> list[str] | Malformed:
    if not isinstance(raw, list) or not all(isinstance(d, str) for d in raw):
        return Malformed("bad_proposal", f'"{key}" must be a list of dish names (strings), '
                         'e.g. ["dish_1", "dish_2"].', raw=text)
    doubled = sorted({d for d in raw if raw.count(d) > 1})
    if doubled:
        return Malformed("bad_proposal", f"Each dish may appear only once; repeated: {doubled}.",
                         raw=text)
    return list(raw)


def _allocation(raw: Any, text: str, key: str) -> dict[str, Any] | Malformed:
    if not isinstance(raw, Mapping):
        return Malformed("bad_proposal", f'"{key}" must be a JSON object mapping each assigned '
                         'task to one agent, e.g. {"task name": "agent_0"}.', raw=text)
    return dict(raw)


def _answer_or_tool(parsed: Parsed, tag: str, example: str
                    ) -> dict[str, Any] | ToolCall | Malformed:
    """The JSON answer in ``tag``; without that tag, a tool call if the reply makes one."""
    if _tag_body(parsed, tag) is None:
        call = _tool_call(parsed)
        if call is not None:
            return call
    return _json_tag(parsed, tag, example)


def parse_plan(text: str, setting: str) -> Plan | ToolCall | Malformed:
    """The planning module's proposal, or a tool call."""
    parsed = parse_tags(text, GRAMMAR)
    text = parsed.public
    task = setting == "task-allocation"
    key = "allocation" if task else "menu_proposal"
    example = ('{"allocation": {"task name": "agent_0"}, "explanation": "..."}' if task
               else '{"menu_proposal": ["dish_1", "dish_2"], "explanation": "..."}')
    data = _answer_or_tool(parsed, "PROPOSAL", example)
    if isinstance(data, ToolCall | Malformed):
        return data
    if key not in data:
        return Malformed("bad_proposal", f'The PROPOSAL needs the key "{key}", e.g. '
                         f"<PROPOSAL>{example}</PROPOSAL>.", raw=text)
    proposal = _allocation(data[key], text, key) if task else _menu(data[key], text, key)
    if isinstance(proposal, Malformed):
        return proposal
    return Plan(proposal, str(data.get("explanation") or ""))


def parse_verdict(text: str, setting: str, leader: bool) -> Verdict | ToolCall | Malformed:
    """The decision module's verdict, or a tool call."""
    parsed = parse_tags(text, GRAMMAR)
    text = parsed.public
    example = ('{"accept_decision": false, "finalize": true, "explanation": "..."}' if leader
               else '{"accept_decision": true, "explanation": "..."}')
    data = _answer_or_tool(parsed, "DECISION", example)
    if isinstance(data, ToolCall | Malformed):
        return data
    flags = {}
    for key in ("accept_decision", "finalize"):
        raw = data.get(key, False)
        if isinstance(raw, str) and raw.strip().lower() in ("true", "false"):
            raw = raw.strip().lower() == "true"
        if not isinstance(raw, bool):
            return Malformed("bad_decision", f'"{key}" must be true or false, got {raw!r}; e.g. '
                             f"<DECISION>{example}</DECISION>.", raw=text)
        flags[key] = raw
    if "accept_decision" not in data:
        return Malformed("bad_decision", 'The DECISION needs "accept_decision": true or false, '
                         f"e.g. <DECISION>{example}</DECISION>.", raw=text)
    final = data.get("final_decision") if leader else None
    if final is not None:
        checked = _allocation(final, text, "final_decision") if setting == "task-allocation" \
            else _menu(final, text, "final_decision")
        if isinstance(checked, Malformed):
            return checked
        final = checked
    return Verdict(flags["accept_decision"], leader and flags["finalize"], final,
                   str(data.get("explanation") or ""))


def parse_message(text: str) -> str | Malformed:
    """The conversation module's message text."""
    parsed = parse_tags(text, GRAMMAR)
    body = _tag_body(parsed, "MESSAGE")
    if body is None:
        return Malformed("missing_message", "No <MESSAGE>...</MESSAGE> found. Put the words "
                         "for your partner(s) between <MESSAGE> and </MESSAGE>.",
                         raw=parsed.public)
    return body
