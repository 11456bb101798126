"""The ``bargaining`` domain plug-in: alternating-offers negotiation over scenario files."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from accord.agents.registry import MEDIATORS, NEGOTIATORS
from accord.agents.spec import AgentSpec, parse_agent_spec
from accord.core.names import counted
from accord.core.scenario import Scenario
from accord.domains.bargaining.catalog import builtin_scenarios, resolve_scenario
from accord.domains.bargaining.metrics import bargaining_metrics
from accord.domains.bargaining.runner import (
    check_agents,
    check_params,
    run_negotiation,
    with_rules,
)
from accord.domains.bargaining.settings import CODE_STAGNATION, DEFAULT_JUDGE
from accord.domains.base import Domain, EpisodeSpec, RunContext, register_domain
from accord.protocols.engine import EpisodeResult

if TYPE_CHECKING:
    from accord.domains.params import DomainParams
    from accord.protocols.kit import ProtocolKit


class _LazyParamsModel:
    """:class:`~accord.domains.bargaining.params.BargainingParams`, imported on first use:
    checking parameters needs pydantic, an episode without any does not (issue 30)."""

    def __get__(self, obj: object, owner: type | None = None) -> type[DomainParams]:
        from accord.domains.bargaining.params import BargainingParams

        return BargainingParams


class BargainingDomain(Domain):
    """Alternating-offers negotiation over the built-in or user scenario files."""

    name = "bargaining"
    params_model = _LazyParamsModel()  # a class attribute, imported on first use

    def scenarios(self) -> list[str]:
        return builtin_scenarios()

    def agent_kinds(self) -> list[str]:
        return sorted(NEGOTIATORS.kinds())

    def validate(self, spec: EpisodeSpec) -> None:
        """Check scenario, parameters and the agent line-up before any episode runs."""
        check_params(spec.params)
        scenario = _scenario(spec)
        params = check_params(with_rules(scenario, spec.params))
        names = scenario.party_names
        if len(spec.agents) != len(names):
            raise ValueError(f"scenario {scenario.name!r} has {len(names)} parties "
                             f"({', '.join(names)}); the line-up has "
                             f"{counted(len(spec.agents), 'agent')}")
        params.check_parties(scenario.name, names)  # turn order, k of n
        check_agents(scenario, spec.agents, spec.seed)  # unknown kinds, bad options

    async def run_episode(self, spec: EpisodeSpec, ctx: RunContext) -> EpisodeResult:
        scenario = _scenario(spec)
        llm_ctx: dict[str, Any] = {"episode_id": ctx.episode_id, "llm": ctx.llm,
                                   "seat": ctx.extra.get("seat")}
        return await run_negotiation(scenario, spec.agents, params=spec.params, seed=spec.seed,
                                     ctx=llm_ctx)

    def metrics(self, spec: EpisodeSpec, result: EpisodeResult) -> dict[str, Any]:
        return bargaining_metrics(_scenario(spec), result)

    #: ``accord run`` options (``--mediator``, ``--judge``, ...) -> protocol parameters
    run_options: ClassVar[Mapping[str, str]] = {key: key for key in (
        "max_rounds", "mediator", "judge", "stagnation_rounds", "stagnation",
        "stagnation_measure", "stagnation_epsilon", "stagnation_order", "acceptance",
        "max_offers", "wall_clock", "max_outcomes")}

    def run_spec(self, rest: str, agents: Sequence[AgentSpec], params: Mapping[str, Any],
                 seed: int) -> EpisodeSpec:
        """``bargaining/NAME`` or a scenario file's path; parameters checked up front."""
        check_params(params)
        return EpisodeSpec(self.name, rest, tuple(agents), dict(params), seed)

    def deterministic(self, spec: EpisodeSpec) -> bool:
        """Every party, the mediator (if any) and the judge are declared deterministic in
        their registries, and no model judges stagnation (a code check is)."""
        p = check_params(spec.params)
        roles = [(NEGOTIATORS, a) for a in spec.agents]
        if p.mediator:
            roles.append((MEDIATORS, parse_agent_spec(p.mediator)))
        judge = parse_agent_spec(p.judge)
        return (p.stagnation == CODE_STAGNATION and judge.kind == DEFAULT_JUDGE
                and all(reg.stochastic(parse_agent_spec(a)) is False for reg, a in roles))

    def headline(self, spec: EpisodeSpec) -> str:
        scenario = _scenario(spec)
        return (f"{scenario.name}: {', '.join(scenario.party_names)} "
                f"({', '.join(str(s) for s in spec.agents)}), {scenario.space.size} outcomes")

    def conformance_kit(self) -> ProtocolKit:
        """Alternating offers on the three-issue buyer-seller scenario (any scenario works:
        ``accord.domains.bargaining.conformance.kit(scenario)``)."""
        from accord.domains.bargaining.conformance import kit

        return kit(resolve_scenario("buyer-seller"))

    def summary(self, spec: EpisodeSpec, result: EpisodeResult) -> dict[str, Any]:
        """The ``accord run --json`` contract for bargaining episodes."""
        return run_summary(result.summary())

    def episode_figure(self, key: str, spec: Mapping[str, Any],
                       summary: Mapping[str, Any] | None,
                       events: Sequence[Mapping[str, Any]]) -> str | None:
        """The utility plane of a two-party built-in scenario (inline SVG)."""
        from accord.domains.bargaining.plot import utility_plane

        return utility_plane(spec, summary, list(events))


def run_summary(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The ``accord run --json`` object of a bargaining episode from the engine's summary
    (with ``vote``: who said yes and no and whom the deal binds, for a deal that was not
    unanimous or ran under voting rules)."""
    rec = summary["record"]
    out = {
        "status": summary["status"],
        "reason": summary["reason"],
        "agreement": rec.get("agreement") if summary["status"] == "agreement" else None,
        "utilities": _decimal(rec.get("utilities", {})),
        "batna": rec.get("batna", {}),
        "rounds": summary["rounds"],
        "flags": summary["flags"],
        "who": summary.get("who"),
        "detail": summary.get("detail"),
        "stagnation": rec.get("stagnation"),
    }
    if "discount" in rec:  # time-discounted parties: when it ended and what it was worth
        out["time"] = rec["time"]
        out["discount"] = rec["discount"]
        out["undiscounted_utilities"] = _decimal(rec["undiscounted_utilities"])
    if "rejected_by" in rec:  # a deal not unanimous, or under voting rules: who is bound
        out["vote"] = {k: rec[k] for k in ("proposer", "accepted_by", "rejected_by", "bound",
                                           "binding", "void_acceptances") if k in rec}
    return out


def _decimal(utilities: Mapping[str, float]) -> dict[str, float]:
    """Utilities without float noise: a sum of decimal weights times decimal scores reads
    ``0.59``, not ``0.5900000000000001`` (12 significant decimals of their scale, as the
    analysis and the Pareto frontier round them)."""
    from accord.core.pareto import canonical_utilities

    names = list(utilities)
    values = canonical_utilities([float(utilities[n]) for n in names])
    return {n: float(v) for n, v in zip(names, values, strict=True)}


def _scenario(spec: EpisodeSpec) -> Scenario:
    """The episode's scenario under its outcome cap (``params: {max_outcomes: N}``)."""
    return resolve_scenario(spec.scenario, check_params(spec.params).max_outcomes)


DOMAIN = register_domain(BargainingDomain())
