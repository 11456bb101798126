"""Deliberative collaboration under partial observability (seed 001).

Menu design with numeric or semantic observations and leader-based task allocation.

Public face (imported lazily, on first use):

- the domain: ``DOMAIN`` (registered as ``deliberation``) and ``DeliberationDomain``;
- instances: ``Instance``, ``MenuInstance``, ``TaskInstance``, ``load_instance``,
  ``parse_instance``, ``shipped_instance``, ``instance_paths``, ``SETTINGS``,
  ``DataError`` and ``InstanceError``; ``list_scenarios`` (the settings, without importing
  the domain: what ``accord scenarios`` asks);
- the protocol (Algorithm 1): ``DeliberationProtocol``, ``DeliberationState``,
  ``DeliberationObservation``;
- agents built by hand: ``NaiveAgent``, ``SharingAgent`` (agents from specs go through
  ``DOMAIN``);
- the ILP optimum and metrics from records: ``optimum``, ``Optimum``, ``reward`` and
  ``episode_metrics``.

Everything else - databases (:mod:`.database`), observations (:mod:`.observations`),
tools (:mod:`.agent_tools`), the LLM scaffold (:mod:`.llm`), the study's tables and
analyses (:mod:`.analysis`, ``accord results STORE --layout deliberation``) - is imported
from its submodule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accord._lazy import lazy_exports

# each name's module is imported on first use (the same names as the imports below)
__getattr__, __dir__ = lazy_exports(__name__, {
    ".agents": ("NaiveAgent", "SharingAgent"),
    ".catalog": ("instance_paths", "shipped_instance"),
    ".domain": ("DOMAIN", "DeliberationDomain"),
    ".errors": ("DataError", "InstanceError"),
    ".ilp": ("Optimum", "optimum"),
    ".listing": ("list_scenarios",),
    ".load": ("Instance", "MenuInstance", "SETTINGS", "TaskInstance", "load_instance",
        "parse_instance"),
    ".metrics": ("episode_metrics",),
    ".protocol": ("DeliberationObservation", "DeliberationProtocol", "DeliberationState"),
    ".rewards": ("reward",),
})

if TYPE_CHECKING:
    from accord.domains.deliberation.agents import NaiveAgent, SharingAgent
    from accord.domains.deliberation.catalog import instance_paths, shipped_instance
    from accord.domains.deliberation.domain import DOMAIN, DeliberationDomain
    from accord.domains.deliberation.errors import DataError, InstanceError
    from accord.domains.deliberation.ilp import Optimum, optimum
    from accord.domains.deliberation.listing import list_scenarios
    from accord.domains.deliberation.load import (
        SETTINGS,
        Instance,
        MenuInstance,
        TaskInstance,
        load_instance,
        parse_instance,
    )
    from accord.domains.deliberation.metrics import episode_metrics
    from accord.domains.deliberation.protocol import (
        DeliberationObservation,
        DeliberationProtocol,
        DeliberationState,
    )
    from accord.domains.deliberation.rewards import reward

__all__ = [
    "DOMAIN",
    "SETTINGS",
    "DataError",
    "DeliberationDomain",
    "DeliberationObservation",
    "DeliberationProtocol",
    "DeliberationState",
    "Instance",
    "InstanceError",
    "MenuInstance",
    "NaiveAgent",
    "Optimum",
    "SharingAgent",
    "TaskInstance",
    "episode_metrics",
    "instance_paths",
    "list_scenarios",
    "load_instance",
    "optimum",
    "parse_instance",
    "reward",
    "shipped_instance",
]
