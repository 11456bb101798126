"""The ``bargaining`` domain: multi-issue negotiation over YAML scenarios (seed 002).

Public face (imported lazily, on first use):

- the domain: ``DOMAIN`` (registered as ``bargaining``) and its class ``BargainingDomain``;
- scenarios: ``load_scenario``, ``parse_scenario``, ``builtin_scenarios``,
  ``resolve_scenario`` and ``ScenarioError``; ``list_scenarios`` (the names, read without
  importing the domain: what ``accord scenarios`` asks);
- running: ``run_negotiation`` (one episode of alternating offers) and ``build_agents``;
- metrics from records: ``bargaining_metrics`` and ``analyze`` (frontier, Nash and Kalai
  points of a scenario).

Everything else is imported from its submodule (``accord.domains.bargaining.runner``, ...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accord._lazy import lazy_exports

# each name's module is imported on first use (the same names as the imports below)
__getattr__, __dir__ = lazy_exports(__name__, {
    ".analysis": ("analyze",),
    ".catalog": ("builtin_scenarios", "resolve_scenario"),
    ".domain": ("BargainingDomain", "DOMAIN"),
    ".listing": ("list_scenarios",),
    ".load": ("ScenarioError", "load_scenario", "parse_scenario"),
    ".metrics": ("bargaining_metrics",),
    ".runner": ("build_agents", "run_negotiation"),
})

if TYPE_CHECKING:
    from accord.domains.bargaining.analysis import analyze
    from accord.domains.bargaining.catalog import builtin_scenarios, resolve_scenario
    from accord.domains.bargaining.domain import DOMAIN, BargainingDomain
    from accord.domains.bargaining.listing import list_scenarios
    from accord.domains.bargaining.load import ScenarioError, load_scenario, parse_scenario
    from accord.domains.bargaining.metrics import bargaining_metrics
    from accord.domains.bargaining.runner import build_agents, run_negotiation

__all__ = [
    "DOMAIN",
    "BargainingDomain",
    "ScenarioError",
    "analyze",
    "bargaining_metrics",
    "build_agents",
    "builtin_scenarios",
    "list_scenarios",
    "load_scenario",
    "parse_scenario",
    "resolve_scenario",
    "run_negotiation",
]
