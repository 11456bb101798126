"""The ``bargaining`` domain: multi-issue negotiation over YAML scenarios (seed 002)."""

from __future__ import annotations

from typing import Any

from accord.agents.registry import NEGOTIATORS
from accord.core.outcomes import DEFAULT_MAX_OUTCOMES
from accord.core.scenario import Scenario
from accord.domains.bargaining.analysis import analyze
from accord.domains.bargaining.catalog import builtin_scenarios, resolve_scenario
from accord.domains.bargaining.loader import ScenarioError, load_scenario, parse_scenario
from accord.domains.bargaining.metrics import bargaining_metrics
from accord.domains.bargaining.runner import build_agents, check_params, run_negotiation
from accord.domains.base import Domain, EpisodeSpec, RunContext, register_domain
from accord.protocols.engine import EpisodeResult


class BargainingDomain(Domain):
    """Alternating-offers negotiation over the built-in or user scenario files."""

    name = "bargaining"

    def scenarios(self) -> list[str]:
        return builtin_scenarios()

    def agent_kinds(self) -> list[str]:
        from accord.agents.registry import _load_optional

        _load_optional()
        return sorted(NEGOTIATORS)

    def validate(self, spec: EpisodeSpec) -> None:
        """Check scenario, parameters and the agent line-up before any episode runs."""
        check_params(spec.params)
        scenario = _scenario(spec)
        names = scenario.party_names
        if len(spec.agents) != len(names):
            raise ValueError(f"scenario {scenario.name!r} has {len(names)} parties "
                             f"({', '.join(names)}); the line-up has {len(spec.agents)} agents")
        build_agents(scenario, spec.agents, spec.seed)  # unknown kinds, bad options

    async def run_episode(self, spec: EpisodeSpec, ctx: RunContext) -> EpisodeResult:
        scenario = _scenario(spec)
        llm_ctx: dict[str, Any] = {"episode_id": ctx.episode_id, "llm": ctx.llm,
                                   "seat": ctx.extra.get("seat")}
        return await run_negotiation(scenario, spec.agents, params=spec.params, seed=spec.seed,
                                     ctx=llm_ctx)

    def metrics(self, spec: EpisodeSpec, result: EpisodeResult) -> dict[str, Any]:
        return bargaining_metrics(_scenario(spec), result)


def _scenario(spec: EpisodeSpec) -> Scenario:
    """The episode's scenario under its outcome cap (``params: {max_outcomes: N}``)."""
    cap = spec.params.get("max_outcomes")
    return resolve_scenario(spec.scenario, cap if isinstance(cap, int) and cap > 0
                            else DEFAULT_MAX_OUTCOMES)


DOMAIN = register_domain(BargainingDomain())

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
