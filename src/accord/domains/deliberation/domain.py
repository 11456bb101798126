"""The ``deliberation`` domain: scenarios, agent kinds, episodes and metrics.

Scenarios are the three settings ``menu-numeric``, ``menu-semantic`` and
``task-allocation``. The instance is chosen by ``params["instance"]`` (index of a shipped
instance, default 0) or by a scenario string ``menu-numeric/7``; ``params["instance_file"]``
runs any instance JSON file (its observation spec is sampled from the episode seed when
the file has none).

Other params: ``mode`` (``deliberation`` | ``centralized`` | ``oracle``; by default
inferred from the agent kinds: one ``centralized`` agent -> centralized, all ``oracle``
-> oracle), ``tools`` (bool), ``max_rounds`` (6), ``max_chars`` (1000), ``max_retries``
(every domain's default, :data:`accord.domains.params.DEFAULT_MAX_RETRIES`).

Agent kinds: ``human`` (a person at a seat), ``share`` and ``naive`` (code agents),
``centralized`` and ``oracle`` (the baselines, played by the sharing code agent), and
the LLM scaffold's ``llm``, ``llm-centralized`` and ``llm-oracle``
(:mod:`accord.domains.deliberation.llm`).
Other packages add kinds with :func:`register_agent_kind`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import Field

from accord.agents.base import Agent
from accord.agents.kinds import AgentRegistry, SpecCheck
from accord.agents.spec import AgentSpec
from accord.core.names import unknown_name
from accord.domains.base import Domain, EpisodeSpec, RunContext, register_domain
from accord.domains.deliberation.agents import NaiveAgent, SharingAgent
from accord.domains.deliberation.catalog import shipped_instance
from accord.domains.deliberation.ilp import optimum
from accord.domains.deliberation.load import (
    SETTINGS,
    Instance,
    TaskInstance,
    load_instance,
)
from accord.domains.deliberation.metrics import episode_metrics
from accord.domains.deliberation.observations import (
    private_observation,
    sample_observation_spec,
    shared_info,
)
from accord.domains.deliberation.protocol import DeliberationProtocol, proposal_normalizer
from accord.domains.params import TalkStagnationParams, auto_stagnation, read_params
from accord.protocols.engine import Bounds, EpisodeResult, run_episode
from accord.protocols.kit import ProtocolKit

DEFAULT_MAX_ROUNDS = 6
"""The paper's round limit."""
DEFAULT_MAX_CHARS = 1000
"""Default per-message character limit."""
MODES: tuple[str, ...] = ("deliberation", "centralized", "oracle")
"""Deliberation with partial observations, and the two baselines."""
CENTRAL_ROLE = "central"


class DeliberationParams(TalkStagnationParams):
    """Episode parameters of deliberation (seed 001)."""

    instance: int = Field(0, ge=0, description="index of a shipped instance of the setting")
    instance_file: str | None = Field(None, description="an instance JSON file instead")
    mode: Literal["deliberation", "centralized", "oracle"] | None = Field(
        None, description="episode mode (default: implied by the agent kinds)")
    max_rounds: int = Field(DEFAULT_MAX_ROUNDS, ge=1, description="deliberation rounds")
    max_chars: int = Field(DEFAULT_MAX_CHARS, ge=1, description="longest message kept")
    tools: bool = Field(False, description="give agents the Solver and Calculator tools")

"""The single role of the centralized baseline."""


@dataclass(frozen=True)
class AgentContext:
    """What an agent factory may use to build an agent for one role."""

    role: str
    setting: str
    mode: str
    tools: bool
    run: RunContext


AgentFactory = Callable[[AgentSpec, AgentContext], Agent]
"""Builds an agent from its spec for one role."""
AGENT_KINDS: AgentRegistry[AgentContext, Agent] = AgentRegistry(
    "deliberation", lazy=("accord.domains.deliberation.llm",))
"""Agent kinds of deliberation; the LLM kinds register from :mod:`.llm`, imported the first
time a kind is missing."""
for _kind, _factory in {
    "share": lambda spec, ctx: SharingAgent(),
    "naive": lambda spec, ctx: NaiveAgent(),
    "centralized": lambda spec, ctx: SharingAgent(),
    "oracle": lambda spec, ctx: SharingAgent(),
}.items():
    AGENT_KINDS.register(_kind, _factory)
_KIND_MODES: dict[str, str] = {"centralized": "centralized", "oracle": "oracle"}


def _human(spec: AgentSpec, ctx: AgentContext) -> Agent:
    """A person at the seat in ``RunContext.extra["seat"]`` (terminal or browser)."""
    from accord.agents.human import HumanAgent, seat_from
    from accord.domains.deliberation.human import DeliberationView

    _check_human(spec)
    return HumanAgent(seat_from(ctx.run.extra), DeliberationView())


def _check_human(spec: AgentSpec) -> None:
    if spec.arg or spec.options:
        raise ValueError(f"agent {spec}: 'human' takes no argument or options")


AGENT_KINDS.register("human", _human, check=_check_human)


def register_agent_kind(name: str, factory: AgentFactory, *, mode: str | None = None,
                        check: SpecCheck | None = None) -> None:
    """Make agent kind ``name`` available to deliberation episodes.

    ``mode`` is the episode mode the kind implies when ``params["mode"]`` is not given
    (a line-up of kinds that all imply the same mode runs in that mode); ``check``
    validates a spec of the kind before any episode runs.
    """
    if mode is not None and mode not in MODES:
        raise ValueError(unknown_name("mode", mode, MODES))
    AGENT_KINDS.register(name, factory, check=check)
    if mode is not None:
        _KIND_MODES[name] = mode


def parse_scenario(scenario: str, params: Mapping[str, Any]) -> tuple[str, int]:
    """``(setting, instance index)`` from ``menu-numeric/7`` or the ``instance`` param."""
    setting, _, idx = scenario.partition("/")
    if setting not in SETTINGS:
        raise ValueError(unknown_name("deliberation setting", setting, SETTINGS))
    if idx:
        try:
            return setting, int(idx)
        except ValueError:
            raise ValueError(f"instance must be an integer index, got {idx!r}") from None
    return setting, read_params(DeliberationParams, params, "deliberation").instance


def resolve_instance(spec: EpisodeSpec) -> Instance:
    """The instance an episode spec names (with an observation spec)."""
    setting, index = parse_scenario(spec.scenario, spec.params)
    path = read_params(DeliberationParams, spec.params, "deliberation").instance_file
    if not path:
        return shipped_instance(setting, index)
    inst = load_instance(str(path))
    if inst.setting != setting:
        raise ValueError(f"{path}: instance setting {inst.setting!r} does not match the "
                         f"scenario {setting!r}")
    if not inst.observations:
        from dataclasses import replace
        spec_obs = sample_observation_spec(inst, np.random.default_rng(spec.seed))
        inst = replace(inst, observations=spec_obs)
    return inst


def infer_mode(spec: EpisodeSpec) -> str:
    """The episode mode from ``params["mode"]`` or the agent kinds."""
    mode = read_params(DeliberationParams, spec.params, "deliberation").mode
    if mode is not None:
        return mode
    implied = {_KIND_MODES.get(a.kind) for a in spec.agents}
    if len(implied) == 1 and None not in implied:
        return str(implied.pop())
    return "deliberation"


def build_protocol(inst: Instance, mode: str, params: Mapping[str, Any],
                   agents: Sequence[Any] = ()) -> DeliberationProtocol:
    """The deliberation protocol of an instance in a mode; ``agents`` (the line-up) decide
    the default K of the stagnation rule (:func:`~accord.domains.params.auto_stagnation`)."""
    p = read_params(DeliberationParams, params, "deliberation")
    shared = shared_info(inst)
    merged = mode != "deliberation"
    if mode == "centralized":
        roles: tuple[str, ...] = (CENTRAL_ROLE,)
        private = {CENTRAL_ROLE: private_observation(inst, inst.agents[0], merged=True)}
    else:
        roles = tuple(inst.agents)
        private = {r: private_observation(inst, r, merged=merged) for r in roles}
    is_task = isinstance(inst, TaskInstance)
    return DeliberationProtocol(
        roles, shared, private, proposal_normalizer(shared),
        mode="single" if mode == "centralized" else ("leader" if is_task else "symmetric"),
        leader=inst.leader if isinstance(inst, TaskInstance) else None,
        max_rounds=p.max_rounds, max_chars=p.max_chars, tools=p.tools, merged=merged,
        stagnation_rounds=auto_stagnation(p.stagnation_rounds, agents))


def _records(protocol: DeliberationProtocol, agents: Mapping[str, Agent],
             result: EpisodeResult) -> None:
    """Copy agents' estimates and tool outputs into the record (the domain is the edge)."""
    result.record["estimates"] = {r: list(getattr(a, "estimates", [])) for r, a in agents.items()}
    result.record["tool_calls"] = {r: list(getattr(a, "tool_calls", []))
                                   for r, a in agents.items()}
    if protocol.tools:
        decider = result.record.get("decided_by")
        order = [decider, *agents] if isinstance(decider, str) and decider in agents \
            else list(agents)
        last = None
        for role in order:
            getter = getattr(agents[role], "last_solver_decision", None)
            if getter is not None and (last := getter()) is not None:
                break
        result.record["last_tool_decision"] = last


class DeliberationDomain(Domain):
    """Deliberative collaboration under partial observability (seed 001)."""

    name = "deliberation"
    params_model = DeliberationParams

    def scenarios(self) -> list[str]:
        return list(SETTINGS)

    def agent_kinds(self) -> list[str]:
        return sorted(AGENT_KINDS.kinds())

    def conformance_kit(self) -> ProtocolKit:
        """Every setting in every mode on shipped instances, see
        :mod:`accord.domains.deliberation.conformance`."""
        from accord.domains.deliberation.conformance import kit

        return kit()

    def _plan(self, spec: EpisodeSpec) -> tuple[Instance, str, DeliberationProtocol]:
        """Instance, mode and protocol of a spec, with the line-up checked against them."""
        inst = resolve_instance(spec)
        mode = infer_mode(spec)
        protocol = build_protocol(inst, mode, spec.params, spec.agents)
        if len(spec.agents) != len(protocol.parties):
            raise ValueError(f"{mode} on {inst.setting} needs {len(protocol.parties)} agent(s) "
                             f"({', '.join(protocol.parties)}), got {len(spec.agents)}")
        for aspec in spec.agents:
            AGENT_KINDS.check(aspec)
        return inst, mode, protocol

    def validate(self, spec: EpisodeSpec) -> None:
        """Check setting, instance, mode, line-up size and agent specs (no episode runs)."""
        self._plan(spec)

    async def run_episode(self, spec: EpisodeSpec, ctx: RunContext) -> EpisodeResult:
        inst, mode, protocol = self._plan(spec)
        agents: dict[str, Agent] = {}
        rngs = np.random.default_rng(spec.seed).spawn(len(spec.agents))
        for role, aspec, rng in zip(protocol.parties, spec.agents, rngs, strict=True):
            agent = AGENT_KINDS.build(aspec, AgentContext(role, inst.setting, mode,
                                                          protocol.tools, ctx))
            agent.reset(rng)
            agents[role] = agent
        bounds = Bounds(max_rounds=protocol.max_rounds,
                        max_retries=self.params(spec).max_retries)
        result = await run_episode(protocol, agents, bounds=bounds)
        _records(protocol, agents, result)
        result.record.update(instance=inst.id, episode_mode=mode)
        return result

    def layouts(self) -> dict[str, Callable[[list[dict[str, Any]]], tuple[str, Any]]]:
        """``deliberation``: seed 001's Tables 2, 3 and 7 and the NMAE_pub-NR correlations."""
        from accord.domains.deliberation.layout import deliberation_layout

        return {"deliberation": deliberation_layout}

    #: ``--max-rounds``, ``--instance`` and ``--tools`` of ``accord run``
    run_options: ClassVar[Mapping[str, str]] = {
        "max_rounds": "max_rounds", "instance": "instance", "tools": "tools"}

    def run_spec(self, rest: str, agents: Sequence[AgentSpec], params: Mapping[str, Any],
                 seed: int) -> EpisodeSpec:
        """``deliberation/SETTING`` or ``deliberation/SETTING/N`` (instance N, default 0)."""
        setting, _, idx = rest.partition("/")
        p = {"instance": 0, "tools": False, **params}
        if idx.isdigit():
            p["instance"] = int(idx)
        elif idx:
            raise ValueError(f"deliberation/{rest}: the instance after the setting must be a "
                             f"number, got {idx!r}")
        return EpisodeSpec(self.name, setting, tuple(agents), p, seed)

    def summary(self, spec: EpisodeSpec, result: EpisodeResult) -> dict[str, Any]:
        """The JSON object of ``accord run deliberation/<setting>`` for a finished episode."""
        m = self.metrics(spec, result)
        return {
            "reward": m["reward"], "max_reward": m["max_reward"], "nr": m["nr"],
            "nar": m["nar"], "valid": m["valid"], "hr": m["hr"], "nmae_pub": m["nmae_pub"],
            "decision": result.record.get("decision"),
            "tool_nr": m["tool_nr"], "tool_compliance": m["tool_compliance"],
            "status": result.status, "reason": result.reason, "rounds": m["rounds"],
            "mode": result.record.get("episode_mode"), "instance": result.record.get("instance"),
        }

    def metrics(self, spec: EpisodeSpec, result: EpisodeResult) -> dict[str, Any]:
        inst = resolve_instance(spec)
        best = optimum(inst)
        out = episode_metrics(inst, result.record, best.reward)
        if not best.optimal:  # NR is then against the best reward found, not the maximum
            out["max_reward_proven"] = False
        out.update(decided=result.record.get("decision") is not None,
                   rounds=result.record.get("rounds_used", result.rounds))
        return out


DOMAIN = register_domain(DeliberationDomain())
