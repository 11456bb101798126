"""Structured output for the workflow steps of the games' ``llm-workflow`` agent.

Each step of seed 003's workflows (4.4.1 best responses and the Nash summary, 4.4.2
backward induction and the plan) has a JSON schema derived from the game - the actions of
each player, the decision nodes of each level, the number of payoffs in a value vector -
and a function that writes the JSON reply as the step's tags (``<RESULT>``, ``<NASH>``,
``<PLAN>``, ``<STRATEGY>``), so the step's own parser reads it exactly as a tagged reply.
The strategy text stays free.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from accord.agents import structured as st


def responses(keys: Sequence[str], legal: Sequence[str], field: str) -> dict[str, Any]:
    """Steps 1 and 2 of 4.4.1: for each of ``keys`` the best response and its payoff."""
    return st.obj({k: st.obj({field: st.enum(list(legal)), "my_payoff": st.number()})
                   for k in keys})


def nash(players: Sequence[str], actions: Sequence[Sequence[str]]) -> dict[str, Any]:
    """Step 3 of 4.4.1: a pure Nash profile (or ``none``) and the strategy."""
    profile = st.obj({p: st.enum(list(a)) for p, a in zip(players, actions, strict=True)})
    return st.obj({"nash": {"anyOf": [profile, st.enum(["none"])],
                            "description": "an object with one action per player "
                            f"({', '.join(players)}), or 'none'"},
                   "strategy": st.text()})


def level(nodes: Mapping[str, Sequence[str]], players: int) -> dict[str, Any]:
    """One level of backward induction: each node's optimal action and value vector."""
    return st.obj({name: st.obj({"action": st.enum(list(acts)),
                                 "value": st.array(st.number(), players, players)})
                   for name, acts in nodes.items()})


def plan(own: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """The summary of 4.4.2: an action for each own decision node and the strategy."""
    return st.obj({"plan": st.obj({n: st.enum(list(a)) for n, a in own.items()}),
                   "strategy": st.text()})


def _strategy(data: Mapping[str, Any]) -> str:
    text = data.get("strategy")
    return f"<STRATEGY>{text if isinstance(text, str) else ''}</STRATEGY>"


def result_tags(data: Mapping[str, Any]) -> str:
    """A ``<RESULT>`` step's JSON reply as its tag."""
    return f"<RESULT>{json.dumps(dict(data), ensure_ascii=False)}</RESULT>"


def nash_tags(data: Mapping[str, Any]) -> str:
    """The Nash summary's JSON reply as ``<NASH>`` and ``<STRATEGY>``."""
    found = data.get("nash")
    body = json.dumps(found, ensure_ascii=False) if isinstance(found, Mapping) else "none"
    return f"<NASH>{body}</NASH>{_strategy(data)}"


def plan_tags(data: Mapping[str, Any]) -> str:
    """The plan summary's JSON reply as ``<PLAN>`` and ``<STRATEGY>``."""
    found = data.get("plan")
    body = json.dumps(found if isinstance(found, Mapping) else {}, ensure_ascii=False)
    return f"<PLAN>{body}</PLAN>{_strategy(data)}"


__all__ = ["level", "nash", "nash_tags", "plan", "plan_tags", "responses", "result_tags"]
