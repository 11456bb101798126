"""Agents: agent specs and registries, classic concession strategies, mediators, and the
LLM negotiator with its guards.

Public face: the :class:`Agent` interface, agent specs (``AgentSpec``,
``parse_agent_spec``, ``parse_agent_list``, ``AgentSpecError``), the bargaining registries
(``build_negotiator``, ``build_mediator``, ``build_judge`` and their ``register_*``), the
concession strategies' ``NegotiatorAgent`` and the ``MidpointMediator``.

The face is lazy (PEP 562, :func:`accord._lazy.lazy_exports`): ``from accord.agents import
build_negotiator`` imports only the module that defines it, so importing one code agent
never pulls in the LLM layer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accord._lazy import lazy_exports

# each name's module is imported on first use (the same names as the imports below)
__getattr__, __dir__ = lazy_exports(__name__, {
    "accord.protocols.agent": ("Agent",),
    ".concession": ("NegotiatorAgent",),
    ".mediator": ("MidpointMediator",),
    ".registry": ("build_judge", "build_mediator", "build_negotiator", "register_judge",
                  "register_mediator", "register_negotiator"),
    ".spec": ("AgentSpec", "AgentSpecError", "parse_agent_list", "parse_agent_spec"),
})

if TYPE_CHECKING:
    from accord.agents.concession import NegotiatorAgent
    from accord.agents.mediator import MidpointMediator
    from accord.agents.registry import (
        build_judge,
        build_mediator,
        build_negotiator,
        register_judge,
        register_mediator,
        register_negotiator,
    )
    from accord.agents.spec import AgentSpec, AgentSpecError, parse_agent_list, parse_agent_spec
    from accord.protocols.agent import Agent

__all__ = [
    "Agent",
    "AgentSpec",
    "AgentSpecError",
    "MidpointMediator",
    "NegotiatorAgent",
    "build_judge",
    "build_mediator",
    "build_negotiator",
    "parse_agent_list",
    "parse_agent_spec",
    "register_judge",
    "register_mediator",
    "register_negotiator",
]
