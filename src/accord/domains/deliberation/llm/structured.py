"""Structured output for the deliberation scaffold (``structured=json_schema|grammar``).

Each module's reply is one JSON object whose shape the endpoint enforces
(:mod:`accord.agents.structured`), derived from the instance's shared data:

* observation: the estimate's required parts, a number for every key the instance names
  (menu: ``total_ingredients`` per recipe ingredient, ``overall_preference`` per dish;
  task allocation: ``private_resources`` per agent and private resource type,
  ``public_resources`` per public type, ``efficiency`` per agent and task);
* planning: ``menu_proposal`` (every candidate dish with ``true`` when it is on the menu:
  no dish twice, none misspelt) or ``allocation`` (every task with an agent or
  ``unassigned``), and the ``explanation``;
* decision: ``accept_decision`` (when a proposal is on the table), ``finalize`` (the
  leader), the ``explanation``;
* conversation: the ``message``, at most the episode's character limit.

Where the model may call a tool in this step, planning and decision also carry ``tool``
(``none``, ``solver`` or ``calculator``; the calculator checks the reply's own proposal).
Free text stays free. Each reader returns what the tag parsers of
:mod:`~accord.domains.deliberation.llm.replies` return (an estimate dict, a
:class:`~.replies.Plan`, a :class:`~.replies.Verdict`, a :class:`~.replies.ToolCall`, the
message) or a :class:`~accord.core.moves.Malformed` reply with feedback.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from accord.agents import structured as st
from accord.core.moves import Malformed
from accord.domains.deliberation.llm.replies import TOOLS, Plan, ToolCall, Verdict, nested, numbers
from accord.domains.deliberation.protocol import DeliberationObservation

#: an allocation's value for a task left out
UNASSIGNED = "unassigned"


def _numbers(keys: Sequence[str]) -> dict[str, Any]:
    return st.obj({k: st.number() for k in keys})


def ingredients(shared: Mapping[str, Any]) -> list[str]:
    """The ingredients the recipes use, in recipe order."""
    seen: dict[str, None] = {}
    for recipe in shared.get("recipes", {}).values():
        seen.update(dict.fromkeys(recipe))
    return list(seen)


def estimate_schema(obs: DeliberationObservation) -> dict[str, Any]:
    """The observation module's reply: the estimate's required parts."""
    sh = obs.shared
    if obs.setting == "task-allocation":
        agents, tasks = list(sh["agents"]), list(sh["tasks"])
        return st.obj({
            "private_resources": st.obj({a: _numbers(sh["private_resource_types"])
                                         for a in agents}),
            "public_resources": _numbers(sh["public_resource_types"]),
            "efficiency": st.obj({a: _numbers(tasks) for a in agents})})
    return st.obj({"total_ingredients": _numbers(ingredients(sh)),
                   "overall_preference": _numbers(list(sh["dishes"]))})


def _proposal(obs: DeliberationObservation) -> tuple[str, dict[str, Any]]:
    sh = obs.shared
    if obs.setting == "task-allocation":
        agents = [*sh["agents"], UNASSIGNED]
        return "allocation", st.obj({t: st.enum(agents) for t in sh["tasks"]})
    # true / false per dish rather than a list: no dish can be named twice or misspelt
    menu = st.obj({d: st.boolean() for d in sh["dishes"]})
    return "menu_proposal", {**menu, "description": "an object with true for each dish on "
                             "your menu and false for the others: " + ", ".join(
                                 json.dumps(d, ensure_ascii=False) for d in sh["dishes"])}


def _tool(fields: dict[str, Any], tools: bool) -> dict[str, Any]:
    return {"tool": st.enum(["none", *TOOLS]), **fields} if tools else fields


def plan_schema(obs: DeliberationObservation, tools: bool) -> dict[str, Any]:
    """The planning module's reply (``tools``: a tool call is still possible)."""
    key, proposal = _proposal(obs)
    return st.obj(_tool({key: proposal, "explanation": st.text()}, tools))


def verdict_schema(obs: DeliberationObservation, leader: bool, tools: bool
                   ) -> dict[str, Any]:
    """The decision module's reply: accept the proposal on the table; finalize (leader)."""
    fields: dict[str, Any] = {"accept_decision": st.boolean()}
    if leader:
        fields["finalize"] = st.boolean()
    fields["explanation"] = st.text()
    return st.obj(_tool(fields, tools))


def message_schema(obs: DeliberationObservation) -> dict[str, Any]:
    """The conversation module's reply: the message, within the character limit."""
    return st.obj({"message": st.text(max(int(obs.max_chars or 0), 1))})


def _tool_call(data: Mapping[str, Any], proposal: Any) -> ToolCall | Malformed | None:
    name = data.get("tool", "none")
    if name in (None, "none"):
        return None
    if name not in TOOLS:
        return Malformed("unknown_tool", f"tool must be none, {', '.join(TOOLS)}; got "
                         f"{str(name)[:40]!r}.", raw=st.raw(data))
    return ToolCall(str(name), {"proposal": proposal} if name == "calculator" else {})


def read_estimate(data: Mapping[str, Any], obs: DeliberationObservation
                  ) -> dict[str, Any] | Malformed:
    """The estimate in the shape :func:`~.replies.parse_estimate` returns."""
    need: tuple[str, ...] = ("total_ingredients", "overall_preference")
    if obs.setting == "task-allocation":
        need = ("private_resources", "public_resources", "efficiency")
    missing = [k for k in need if not isinstance(data.get(k), Mapping)]
    if missing:
        return Malformed("incomplete_estimate", "The estimate needs the JSON objects "
                         f"{', '.join(repr(k) for k in missing)}.", raw=st.raw(data))
    if obs.setting == "task-allocation":
        return {"private_resources": nested(data["private_resources"]),
                "public_resources": numbers(data["public_resources"]),
                "efficiency": nested(data["efficiency"]), "public_fragments": {}}
    return {"partner_ingredients": {}, "partner_preference": {},
            "total_ingredients": numbers(data["total_ingredients"]),
            "overall_preference": numbers(data["overall_preference"])}


def _read_proposal(data: Mapping[str, Any], obs: DeliberationObservation
                   ) -> Any | Malformed:
    if obs.setting == "task-allocation":
        raw = data.get("allocation")
        if not isinstance(raw, Mapping):
            return Malformed("bad_proposal", '"allocation" must be an object giving every '
                             "task an agent or unassigned.", raw=st.raw(data))
        return {str(t): a for t, a in raw.items() if a != UNASSIGNED}
    menu = data.get("menu_proposal")
    if not isinstance(menu, Mapping) or not all(isinstance(v, bool) for v in menu.values()):
        return Malformed("bad_proposal", '"menu_proposal" must be an object giving each '
                         "dish true (on the menu) or false.", raw=st.raw(data))
    return [str(d) for d, on in menu.items() if on]


def read_plan(data: Mapping[str, Any], obs: DeliberationObservation
              ) -> Plan | ToolCall | Malformed:
    """The planning module's proposal, or its tool call."""
    proposal = _read_proposal(data, obs)
    call = _tool_call(data, None if isinstance(proposal, Malformed) else proposal)
    if call is not None:
        return call
    if isinstance(proposal, Malformed):
        return proposal
    why = data.get("explanation")
    return Plan(proposal, why if isinstance(why, str) else "")


def read_verdict(data: Mapping[str, Any], leader: bool, table: Any = None
                 ) -> Verdict | ToolCall | Malformed:
    """The decision module's verdict, or its tool call (the calculator checks ``table``,
    the proposal on the table, if any)."""
    call = _tool_call(data, table)
    if call is not None:
        return call
    flags = {}
    for key in ("accept_decision", "finalize"):
        value = data.get(key, False)
        if not isinstance(value, bool):
            return Malformed("bad_decision", f'"{key}" must be true or false, got '
                             f"{str(value)[:40]!r}.", raw=st.raw(data))
        flags[key] = value
    why = data.get("explanation")
    return Verdict(flags["accept_decision"], leader and flags["finalize"], None,
                   why if isinstance(why, str) else "")


def read_message(data: Mapping[str, Any]) -> str | Malformed:
    """The conversation module's message."""
    text = data.get("message")
    if not isinstance(text, str) or not text.strip():
        return Malformed("missing_message", "Your message is empty; write what you want to "
                         "say to the others in message.", raw=st.raw(data))
    return text.strip()


__all__ = ["UNASSIGNED", "estimate_schema", "ingredients", "message_schema", "plan_schema",
           "read_estimate", "read_message", "read_plan", "read_verdict", "verdict_schema"]
