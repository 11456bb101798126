"""The ``bargaining`` domain: multi-issue negotiation over YAML scenarios (seed 002).

Public face (imported lazily, on first use):

- the domain: ``DOMAIN`` (registered as ``bargaining``) and its class ``BargainingDomain``;
- scenarios: ``load_scenario``, ``parse_scenario``, ``builtin_scenarios``,
  ``resolve_scenario`` and ``ScenarioError``;
- running: ``run_negotiation`` (one episode of alternating offers) and ``build_agents``;
- metrics from records: ``bargaining_metrics`` and ``analyze`` (frontier, Nash and Kalai
  points of a scenario).

Everything else is imported from its submodule (``accord.domains.bargaining.runner``, ...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accord._lazy import lazy_exports

#: public name -> the submodule that defines it (imported on first use)
_EXPORTS = {
    "DOMAIN": "domain",
    "BargainingDomain": "domain",
    "ScenarioError": "load",
    "load_scenario": "load",
    "parse_scenario": "load",
    "builtin_scenarios": "catalog",
    "resolve_scenario": "catalog",
    "run_negotiation": "runner",
    "build_agents": "runner",
    "bargaining_metrics": "metrics",
    "analyze": "analysis",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from accord.domains.bargaining.analysis import analyze
    from accord.domains.bargaining.catalog import builtin_scenarios, resolve_scenario
    from accord.domains.bargaining.domain import DOMAIN, BargainingDomain
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
    "load_scenario",
    "parse_scenario",
    "resolve_scenario",
    "run_negotiation",
]
