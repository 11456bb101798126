"""Utility-aware task decomposition and exchange between two agents (seed 000).

Public face (imported lazily, on first use):

- the domain: ``DOMAIN`` (registered as ``task-exchange``) and ``TaskExchangeDomain``;
- scenarios: ``Scenario``, ``TaskUniverse``, ``AtomicTask``, ``MainTask``,
  ``ScenarioError``, ``load_scenario``, ``get_scenario``, ``builtin_scenarios`` and the
  LLM scenario generator ``generate_scenario``; ``list_scenarios`` (the names, read without
  importing the domain: what ``accord scenarios`` asks);
- the protocol: ``TaskExchangeProtocol``, ``TaskExchangeState``,
  ``TaskExchangeObservation``;
- agents built by hand: ``UtilityAwareAgent``, ``ScriptedAgent`` (agents from specs go
  through ``DOMAIN``);
- metrics from records: ``episode_metrics``, ``table1_row``, ``table2_row`` and
  ``paper_tables``.

Everything else - proposal validation (:mod:`.validation`), masks (:mod:`.masks`), the
LLM agent, prompts and reply parsing (:mod:`.llm`), the Figure 2 plot (:mod:`.plot`) - is
imported from its submodule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accord._lazy import lazy_exports

# each name's module is imported on first use (the same names as the imports below)
__getattr__, __dir__ = lazy_exports(__name__, {
    ".agents": ("UtilityAwareAgent",),
    ".domain": ("DOMAIN", "TaskExchangeDomain"),
    ".generators": ("generate_scenario",),
    ".listing": ("list_scenarios",),
    ".load": ("builtin_scenarios", "get_scenario", "load_scenario"),
    ".metrics": ("episode_metrics", "table1_row", "table2_row"),
    ".protocol": ("TaskExchangeObservation", "TaskExchangeProtocol", "TaskExchangeState"),
    ".scenario": ("AtomicTask", "MainTask", "Scenario", "ScenarioError", "TaskUniverse"),
    ".scripted": ("ScriptedAgent",),
    ".tables": ("paper_tables",),
})

if TYPE_CHECKING:
    from accord.domains.task_exchange.agents import UtilityAwareAgent
    from accord.domains.task_exchange.domain import DOMAIN, TaskExchangeDomain
    from accord.domains.task_exchange.generators import generate_scenario
    from accord.domains.task_exchange.listing import list_scenarios
    from accord.domains.task_exchange.load import builtin_scenarios, get_scenario, load_scenario
    from accord.domains.task_exchange.metrics import episode_metrics, table1_row, table2_row
    from accord.domains.task_exchange.protocol import (
        TaskExchangeObservation,
        TaskExchangeProtocol,
        TaskExchangeState,
    )
    from accord.domains.task_exchange.scenario import (
        AtomicTask,
        MainTask,
        Scenario,
        ScenarioError,
        TaskUniverse,
    )
    from accord.domains.task_exchange.scripted import ScriptedAgent
    from accord.domains.task_exchange.tables import paper_tables

__all__ = [
    "DOMAIN",
    "AtomicTask",
    "MainTask",
    "Scenario",
    "ScenarioError",
    "ScriptedAgent",
    "TaskExchangeDomain",
    "TaskExchangeObservation",
    "TaskExchangeProtocol",
    "TaskExchangeState",
    "TaskUniverse",
    "UtilityAwareAgent",
    "builtin_scenarios",
    "episode_metrics",
    "generate_scenario",
    "get_scenario",
    "list_scenarios",
    "load_scenario",
    "paper_tables",
    "table1_row",
    "table2_row",
]
