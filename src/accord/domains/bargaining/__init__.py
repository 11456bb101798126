"""The ``bargaining`` domain: multi-issue negotiation over YAML scenarios (seed 002)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from accord._lazy import lazy_exports

#: public name -> the submodule that defines it (imported on first use)
_EXPORTS = {
    "DOMAIN": "domain",
    "BargainingDomain": "domain",
    "ScenarioError": "load",
    "analyze": "analysis",
    "bargaining_metrics": "metrics",
    "build_agents": "runner",
    "builtin_scenarios": "catalog",
    "check_params": "runner",
    "load_scenario": "load",
    "parse_scenario": "load",
    "resolve_scenario": "catalog",
    "run_negotiation": "runner",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from accord.domains.bargaining.analysis import analyze
    from accord.domains.bargaining.catalog import builtin_scenarios, resolve_scenario
    from accord.domains.bargaining.domain import DOMAIN, BargainingDomain
    from accord.domains.bargaining.load import ScenarioError, load_scenario, parse_scenario
    from accord.domains.bargaining.metrics import bargaining_metrics
    from accord.domains.bargaining.runner import build_agents, check_params, run_negotiation

__all__ = [
    "DOMAIN",
    "BargainingDomain",
    "ScenarioError",
    "analyze",
    "bargaining_metrics",
    "build_agents",
    "builtin_scenarios",
    "check_params",
    "load_scenario",
    "parse_scenario",
    "resolve_scenario",
    "run_negotiation",
]
