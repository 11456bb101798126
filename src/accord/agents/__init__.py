"""Agents: agent specs and registries, classic concession strategies, mediators, and the
LLM negotiator with its guards.

The package face is lazy (PEP 562): ``from accord.agents import build_negotiator`` imports
only the module that defines it, so importing one code agent never pulls in the LLM layer.
"""

from __future__ import annotations

import importlib
from typing import Any

#: public name -> module that defines it
_FACE: dict[str, str] = {
    "Agent": "accord.protocols.agent",
    "AgentSpec": "accord.agents.spec",
    "AgentSpecError": "accord.agents.spec",
    "parse_agent_spec": "accord.agents.spec",
    "parse_agent_list": "accord.agents.spec",
    "build_negotiator": "accord.agents.registry",
    "build_mediator": "accord.agents.registry",
    "build_judge": "accord.agents.registry",
    "register_negotiator": "accord.agents.registry",
    "register_mediator": "accord.agents.registry",
    "register_judge": "accord.agents.registry",
    "MidpointMediator": "accord.agents.mediator",
    "NegotiatorAgent": "accord.agents.concession",
}

__all__ = sorted(_FACE)


def __getattr__(name: str) -> Any:
    module = _FACE.get(name)
    if module is None:
        raise AttributeError(f"module 'accord.agents' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_FACE))
