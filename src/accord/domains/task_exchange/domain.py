"""The ``task-exchange`` domain plug-in: scenarios, agent kinds, one episode, metrics."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import Field

from accord.agents.base import Agent
from accord.agents.kinds import AgentRegistry
from accord.agents.spec import AgentSpec, parse_agent_spec
from accord.domains.base import Domain, EpisodeSpec, RunContext, register_domain
from accord.domains.ids import episode_id
from accord.domains.params import (
    DEFAULT_MAX_RETRIES,
    TalkStagnationParams,
    auto_stagnation,
    read_params,
)
from accord.domains.task_exchange.agents import UtilityAwareAgent, selfish_agent
from accord.domains.task_exchange.llm.agent import build_llm_agent
from accord.domains.task_exchange.load import builtin_scenarios, get_scenario
from accord.domains.task_exchange.metrics import episode_metrics
from accord.domains.task_exchange.protocol import TaskExchangeProtocol
from accord.domains.task_exchange.scripted import ScriptedAgent
from accord.protocols.engine import Bounds, EpisodeResult, run_episode
from accord.protocols.kit import ProtocolKit

DEFAULT_RETRIES = DEFAULT_MAX_RETRIES
"""K of Appendix B.2: retries per turn before the run ends with status error (the one
retry default of every domain)."""


AgentFactory = Callable[[AgentSpec, Mapping[str, Any]], Agent]
"""Builds an agent from its spec and the run context (``llm`` settings, ``episode_id``)."""


def _utility_aware(spec: AgentSpec, ctx: Mapping[str, Any]) -> Agent:
    opts = dict(spec.options)
    return UtilityAwareAgent(e=float(opts.pop("e", 0.5)), eta=float(opts.pop("eta", 0.3)),
                             **_no_more(spec, opts))


def _selfish(spec: AgentSpec, ctx: Mapping[str, Any]) -> Agent:
    opts = dict(spec.options)
    return selfish_agent(e=float(opts.pop("e", 0.3)), **_no_more(spec, opts))


def _scripted(spec: AgentSpec, ctx: Mapping[str, Any]) -> Agent:
    opts = dict(spec.options)
    script = str(opts.pop("script", spec.arg or ""))
    return ScriptedAgent(script, then=str(opts.pop("then", "status-quo")), **_no_more(spec, opts))


def _human(spec: AgentSpec, ctx: Mapping[str, Any]) -> Agent:
    """A person at the seat in ``ctx["seat"]`` (terminal or browser), see :mod:`.human`."""
    from accord.agents.human import HumanAgent, seat_from
    from accord.domains.task_exchange.human import TaskExchangeView

    _no_more(spec, spec.options)
    return HumanAgent(seat_from(ctx), TaskExchangeView(str(ctx.get("title") or "")))


def _check_human(spec: AgentSpec) -> None:
    if spec.arg or spec.options:
        raise ValueError(f"agent {spec}: 'human' takes no argument or options")


def _no_more(spec: AgentSpec, opts: Mapping[str, Any]) -> dict[str, Any]:
    if opts:
        raise ValueError(f"agent {spec}: unknown option(s) {', '.join(sorted(opts))}")
    return {}


def _check_llm(spec: AgentSpec) -> None:
    if not spec.arg:
        raise ValueError(f"agent {spec}: llm needs a model, e.g. llm:openai/gpt-4.1-mini")


AGENT_KINDS: AgentRegistry[Mapping[str, Any], Agent] = AgentRegistry("task-exchange")
AGENT_KINDS.register("utility-aware", _utility_aware)
AGENT_KINDS.register("selfish", _selfish)
AGENT_KINDS.register("scripted", _scripted)
AGENT_KINDS.register("llm", build_llm_agent, check=_check_llm)
AGENT_KINDS.register("human", _human, check=_check_human)
"""Agent kinds of this domain, by spec kind (``scripted:OVL*6+ok?then=accept``,
``llm:openai/gpt-4.1-mini?temperature=0``, ``human`` for a person at a seat)."""


def build_agent(spec: AgentSpec | str, ctx: Mapping[str, Any] | None = None) -> Agent:
    """An agent from its spec, with a clear error for kinds this domain does not have.

    ``ctx`` is what LLM agents need from the run: ``llm`` (settings for
    :func:`~accord.agents.llm_support.runtime_for`) and ``episode_id`` (cache scope).
    """
    return AGENT_KINDS.build(parse_agent_spec(spec), ctx or {})


def episode_key(spec: EpisodeSpec) -> str:
    """The episode id (:func:`accord.domains.ids.episode_id`) when the caller gave none."""
    return episode_id(spec)


class TaskExchangeParams(TalkStagnationParams):
    """Episode parameters of task exchange (seed 000, Appendix B)."""

    strategy: Literal["utility-aware", "baseline"] = Field(
        "utility-aware", description="utility-aware (Appendix B.1) or baseline (B.3)")
    turn_limit: int | None = Field(None, ge=2, description="turns before the episode ends "
                                   "without agreement (default: the scenario's)")
    max_retries: int = Field(DEFAULT_RETRIES, ge=0, description="K of Appendix B.2: "
                             "retries per turn before the run ends with status error")


def build_protocol(scenario: str, params: Mapping[str, Any],
                   agents: Sequence[AgentSpec | str] = ()) -> TaskExchangeProtocol:
    """The protocol for a scenario name or path; ``params``: :class:`TaskExchangeParams`;
    ``agents`` (the line-up) decide the default K of the stagnation rule
    (:func:`~accord.domains.params.auto_stagnation`)."""
    p = read_params(TaskExchangeParams, params, "task-exchange")
    return TaskExchangeProtocol(get_scenario(scenario), p.strategy, p.turn_limit,
                                p.max_retries,
                                auto_stagnation(p.stagnation_rounds, agents))


async def play(protocol: TaskExchangeProtocol, agents: Sequence[Agent],
               seed: int = 0) -> EpisodeResult:
    """Reset ``agents`` with independent generators from ``seed`` and run one episode."""
    if len(agents) != 2:
        raise ValueError(f"task-exchange needs exactly 2 agents, got {len(agents)}")
    rngs = np.random.default_rng(seed).spawn(2)
    for agent, rng in zip(agents, rngs, strict=True):
        agent.reset(rng)
    cast = dict(zip(protocol.parties, agents, strict=True))
    return await run_episode(protocol, cast, bounds=Bounds(max_retries=protocol.max_retries))


class TaskExchangeDomain(Domain):
    """Utility-aware task decomposition and exchange between two agents (seed 000)."""

    name = "task-exchange"
    params_model = TaskExchangeParams

    def scenarios(self) -> list[str]:
        return builtin_scenarios()

    def agent_kinds(self) -> list[str]:
        return AGENT_KINDS.kinds()

    async def run_episode(self, spec: EpisodeSpec, ctx: RunContext) -> EpisodeResult:
        protocol = build_protocol(spec.scenario, spec.params, spec.agents)
        agent_ctx = {"llm": ctx.llm, "episode_id": ctx.episode_id or episode_key(spec),
                     "seat": ctx.extra.get("seat"), "title": protocol.scenario.title}
        agents = [build_agent(a, agent_ctx) for a in spec.agents]
        return await play(protocol, agents, spec.seed)

    def validate(self, spec: EpisodeSpec) -> None:
        """Check scenario, params and agent kinds up front (no LLM client is created)."""
        build_protocol(spec.scenario, spec.params)
        if len(spec.agents) != 2:
            raise ValueError(f"task-exchange needs exactly 2 agents, got {len(spec.agents)}")
        for agent in spec.agents:
            AGENT_KINDS.check(agent)

    def conformance_kit(self) -> ProtocolKit:
        """The built-in scenarios under both strategies and several turn limits, see
        :mod:`accord.domains.task_exchange.conformance`."""
        from accord.domains.task_exchange.conformance import kit

        return kit()

    def metrics(self, spec: EpisodeSpec, result: EpisodeResult) -> dict[str, Any]:
        return episode_metrics(get_scenario(spec.scenario), result.record, result.trajectory)

    #: ``--max-rounds`` caps the turns; ``--strategy`` picks utility-aware or baseline
    run_options: ClassVar[Mapping[str, str]] = {"max_rounds": "turn_limit", "strategy": "strategy"}

    def run_spec(self, rest: str, agents: Sequence[AgentSpec], params: Mapping[str, Any],
                 seed: int) -> EpisodeSpec:
        """``task-exchange/SCENARIO``; the strategy defaults to the seed's utility-aware."""
        return EpisodeSpec(self.name, rest, tuple(agents),
                           {"strategy": "utility-aware", **params}, seed)

    def summary(self, spec: EpisodeSpec, result: EpisodeResult) -> dict[str, Any]:
        """The JSON object of ``accord run task-exchange/<scenario>`` for a finished episode.

        Keys: ``status`` (agreed | disagreed | error), ``turns``, ``invalid`` (pattern ->
        count), ``utilities`` (role -> normalised utility, null on error),
        ``social_welfare``, ``l2_to_pareto`` and ``allocation`` (null on error), plus run
        details and LLM ``usage`` per role (empty for code agents).
        """
        from accord.domains.task_exchange.metrics import initial_row
        from accord.domains.task_exchange.validation import PATTERNS

        sc = get_scenario(spec.scenario)
        m = episode_metrics(sc, result.record, result.trajectory)
        invalid = {reason: m[f"invalid_{reason}"] for reason in PATTERNS}
        invalid["other"] = m["invalid_other"]
        specs = [str(a) for a in spec.agents]
        return {
            "domain": "task-exchange",
            "scenario": sc.name,
            "strategy": spec.params.get("strategy", "utility-aware"),
            "agents": dict(zip(sc.roles, specs, strict=True)),
            "seed": spec.seed,
            "status": result.record["status"],
            "turns": result.record["turns"],
            "invalid": invalid,
            "attempts": m["attempts"],
            "utilities": None if result.record["status"] == "error" else
            {r: m[f"utility_{r}"] for r in sc.roles},
            "social_welfare": m["social_welfare"],
            "l2_to_pareto": m["l2_to_pareto"],
            "allocation": result.record["allocation"],
            "initial": initial_row(sc),
            "reason": result.reason,
            "who": result.who,
            "detail": result.detail,
            "usage": result.usage,
        }

    def layouts(self) -> dict[str, Callable[[list[dict[str, Any]]], tuple[str, Any]]]:
        return {"task-exchange": paper_table_layout}

    def episode_figure(self, key: str, spec: Mapping[str, Any],
                       summary: Mapping[str, Any] | None,
                       events: Sequence[Mapping[str, Any]]) -> str | None:
        """Figure 2 of the study for an episode of a built-in scenario (a PNG data URI)."""
        from accord.domains.task_exchange.plot import episode_figure

        return episode_figure(key, spec, summary)


def paper_table_layout(episodes: list[dict[str, Any]]) -> tuple[str, Any]:
    """Seed 000's Table 1 (a, b, c) and Table 2 from stored task-exchange episodes."""
    from accord.domains.task_exchange.tables import format_tables, paper_tables

    rows = [{"scenario": e["spec"].get("scenario"),
             "strategy": (e["spec"].get("params") or {}).get("strategy", "utility-aware"),
             "lineup": (e.get("labels") or {}).get("lineup")
             or " vs ".join(map(str, e["spec"].get("agents", []))),
             "metrics": e["metrics"]}
            for e in episodes
            if e["spec"].get("domain") == "task-exchange" and e.get("status") == "done"
            and e.get("metrics")]
    if not rows:
        raise ValueError("no finished task-exchange episodes to tabulate")
    tables = paper_tables(rows)
    return format_tables(tables), tables


__all__ = [
    "AGENT_KINDS",
    "DEFAULT_RETRIES",
    "AgentFactory",
    "TaskExchangeDomain",
    "build_agent",
    "build_protocol",
    "episode_key",
    "play",
]


DOMAIN = register_domain(TaskExchangeDomain())
