"""Turning the scaffold modules' replies into data (DESIGN.md principle 3).

Private ``<THINK>`` / ``<CONSIDER>`` blocks are removed first. Then each module's answer
is one tag holding JSON (a Markdown code fence inside the tag is tolerated; when a tag
occurs several times the last one counts):

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
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from accord.agents.replies import strip_private
from accord.core.moves import Malformed

TOOLS: tuple[str, ...] = ("solver", "calculator")
"""Tool names the scaffold understands."""
_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")


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


def _tag_body(text: str, tag: str) -> str | Malformed | None:
    """The body of the last ``<tag>...</tag>``; ``None`` when absent, Malformed if unclosed."""
    found = re.findall(rf"<{tag}>(.*?)</{tag}>", text, re.S | re.I)
    if found:
        return _FENCE.sub("", found[-1].strip()).strip()
    if re.search(rf"<{tag}>", text, re.I):
        return Malformed("unclosed_tag", f"Your <{tag}> tag is not closed. Write "
                         f"<{tag}>...</{tag}> with the content between the tags.", raw=text)
    return None


def _json_tag(text: str, tag: str, example: str) -> Any:
    body = _tag_body(text, tag)
    if body is None:
        return Malformed(f"missing_{tag.lower()}", f"No <{tag}>...</{tag}> found. Answer with "
                         f"<{tag}>{example}</{tag}>.", raw=text)
    if isinstance(body, Malformed):
        return body
    try:
        data = json.loads(body)
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


def _numbers(raw: Any) -> dict[str, float | int]:
    if not isinstance(raw, Mapping):
        return {}
    return {str(k): n for k, v in raw.items() if (n := _number(v)) is not None}


def _nested(raw: Any) -> dict[str, dict[str, float | int]]:
    if not isinstance(raw, Mapping):
        return {}
    return {str(k): _numbers(v) for k, v in raw.items() if isinstance(v, Mapping)}


def parse_estimate(text: str, setting: str) -> dict[str, Any] | Malformed:
    """The observation module's state estimate (see the module docstring)."""
    task = setting == "task-allocation"
    example = ('{"private_resources": {...}, "public_resources": {...}, "efficiency": {...}}'
               if task else '{"total_ingredients": {...}, "overall_preference": {...}}')
    data = _json_tag(strip_private(text), "ESTIMATE", example)
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
        return {"private_resources": _nested(data["private_resources"]),
                "public_resources": _numbers(data["public_resources"]),
                "efficiency": _nested(data["efficiency"]),
                "public_fragments": _nested(data.get("public_fragments"))}
    return {"partner_ingredients": _numbers(data.get("partner_ingredients")),
            "partner_preference": _numbers(data.get("partner_preference")),
            "total_ingredients": _numbers(data["total_ingredients"]),
            "overall_preference": _numbers(data["overall_preference"])}


def _tool_call(public: str) -> ToolCall | Malformed | None:
    if _tag_body(public, "TOOL") is None:
        return None
    data = _json_tag(public, "TOOL", '{"name": "solver"}')
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


def parse_plan(text: str, setting: str) -> Plan | ToolCall | Malformed:
    """The planning module's proposal, or a tool call."""
    public = strip_private(text)
    task = setting == "task-allocation"
    key = "allocation" if task else "menu_proposal"
    example = ('{"allocation": {"task name": "agent_0"}, "explanation": "..."}' if task
               else '{"menu_proposal": ["dish_1", "dish_2"], "explanation": "..."}')
    if _tag_body(public, "PROPOSAL") is None:
        call = _tool_call(public)
        if call is not None:
            return call
    data = _json_tag(public, "PROPOSAL", example)
    if isinstance(data, Malformed):
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
    public = strip_private(text)
    example = ('{"accept_decision": false, "finalize": true, "explanation": "..."}' if leader
               else '{"accept_decision": true, "explanation": "..."}')
    if _tag_body(public, "DECISION") is None:
        call = _tool_call(public)
        if call is not None:
            return call
    data = _json_tag(public, "DECISION", example)
    if isinstance(data, Malformed):
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
    public = strip_private(text)
    body = _tag_body(public, "MESSAGE")
    if body is None:
        return Malformed("missing_message", "No <MESSAGE>...</MESSAGE> found. Put the words "
                         "for your partner(s) between <MESSAGE> and </MESSAGE>.", raw=text)
    return body
