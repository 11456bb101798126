"""Agent kinds of the Deal-or-No-Deal domain, built from agent specs.

* ``workflow`` - the Bayesian workflow in code (Algorithm 1); options ``lam``, ``gamma``,
  ``threshold``, ``learn_from_offers``, ``view``, ``polish`` (see :class:`BayesianWorkflowAgent`);
* ``greedy`` - greedy self-interested; option ``accept_share``;
* ``human`` - a person at a seat (terminal or browser, ``ctx["seat"]``), see
  :mod:`accord.domains.deal_or_no_deal.human`; no options;
* ``dataset-human`` - replay of the datapoint's human side and outcome (called ``human``
  before 0.x); no options;
* ``llm`` - a raw LLM negotiator without workflow, ``llm:MODEL`` (e.g.
  ``llm:openai/gpt-4.1-mini?temperature=0``); options: the generation options
  (``temperature``, ``max_tokens``, ``top_p``, ``seed``) and ``guard`` (``flag``|``block``);
* ``llm-workflow`` - the Bayesian workflow followed by an LLM, ``llm-workflow:MODEL``;
  options: the generation options, ``guard``, ``mode`` (``seed``, the default: the model
  keeps and states its belief; ``assisted``: the belief is kept in code and shown),
  ``lam``, ``gamma``, ``learn_from_offers``, ``view`` and ``top`` (proposals shown in the
  assisted mode); see :mod:`accord.domains.deal_or_no_deal.llm.agents`.

Kinds live in :data:`AGENT_KINDS`, an :class:`~accord.agents.kinds.AgentRegistry` like every
domain's: a factory takes ``(spec, ctx)`` with ``ctx`` an :class:`AgentContext` (the
datapoint, the role, LLM settings, the episode id, the retry budget and the seat of a
person). Other packages add kinds through the ``accord.agents`` entry points
``deal-or-no-deal.<kind>``, or in code with ``AGENT_KINDS.register(kind, factory)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from accord.agents.base import Agent
from accord.agents.kinds import AgentRegistry, AgentSettings
from accord.agents.spec import AgentSpec, AgentSpecError, parse_agent_spec
from accord.domains.deal_or_no_deal.baselines import GreedyAgent, HumanReplayAgent
from accord.domains.deal_or_no_deal.llm.agents import make_llm_workflow, make_raw_llm
from accord.domains.deal_or_no_deal.load import Datapoint
from accord.domains.deal_or_no_deal.protocol import ROLES
from accord.domains.deal_or_no_deal.workflow import BayesianWorkflowAgent


@dataclass(frozen=True)
class AgentContext:
    """What a Deal-or-No-Deal agent factory may use to build one agent for one role:
    the datapoint (both sides' private values: a factory hands an agent only its own
    role's), the role, and the run's settings (LLM settings, episode id, retry budget,
    a person's seat)."""

    datapoint: Datapoint
    role: str
    settings: AgentSettings = field(default_factory=AgentSettings)


def _opts(spec: AgentSpec, allowed: set[str]) -> dict[str, Any]:
    bad = sorted(set(spec.options) - allowed)
    if bad:
        raise AgentSpecError(f"agent {spec.kind!r} has no option(s) {bad}; "
                             f"options: {sorted(allowed) or 'none'}")
    if spec.arg is not None:
        raise AgentSpecError(f"agent {spec.kind!r} takes no ':' argument, got {spec.arg!r}")
    return dict(spec.options)


WORKFLOW_OPTIONS = {"lam", "gamma", "threshold", "learn_from_offers", "view", "polish"}
"""Options of the ``workflow`` kind."""


def _workflow(spec: AgentSpec, ctx: AgentContext | None = None) -> Agent:
    return BayesianWorkflowAgent(**_opts(spec, WORKFLOW_OPTIONS))


def _greedy(spec: AgentSpec, ctx: AgentContext | None = None) -> Agent:
    o = _opts(spec, {"accept_share"})
    return GreedyAgent(float(o.get("accept_share", 0.6)))


def _dataset_human(spec: AgentSpec, ctx: AgentContext) -> Agent:
    _opts(spec, set())
    return HumanReplayAgent(ctx.datapoint, ctx.role)


def _human(spec: AgentSpec, ctx: AgentContext) -> Agent:
    from accord.agents.human import HumanAgent, seat_from
    from accord.domains.deal_or_no_deal.human import DondView

    _opts(spec, set())
    return HumanAgent(seat_from(ctx.settings.as_mapping()), DondView(ctx.datapoint.id))


def _raw_llm(spec: AgentSpec, ctx: AgentContext) -> Agent:
    return make_raw_llm(spec, ctx.datapoint, ctx.role, ctx.settings.as_mapping())


def _llm_workflow(spec: AgentSpec, ctx: AgentContext) -> Agent:
    return make_llm_workflow(spec, ctx.datapoint, ctx.role, ctx.settings.as_mapping())


def _no_options(spec: AgentSpec) -> None:
    _opts(spec, set())


def _check_workflow(spec: AgentSpec) -> None:
    _workflow(spec)  # a code agent: building it checks its options, nothing else happens


def _check_greedy(spec: AgentSpec) -> None:
    _greedy(spec)


def _needs_model(spec: AgentSpec) -> None:
    if not spec.arg:
        raise AgentSpecError(f"{spec.kind} needs a model: e.g. {spec.kind}:openai/gpt-4.1-mini")


AGENT_KINDS: AgentRegistry[AgentContext, Agent] = AgentRegistry("deal-or-no-deal")
"""Agent kinds of Deal or No Deal, by spec kind; factories take ``(spec, AgentContext)``."""
AGENT_KINDS.register("workflow", _workflow, check=_check_workflow)
AGENT_KINDS.register("greedy", _greedy, check=_check_greedy)
AGENT_KINDS.register("human", _human, check=_no_options)
AGENT_KINDS.register("dataset-human", _dataset_human, check=_no_options)
AGENT_KINDS.register("llm", _raw_llm, check=_needs_model)
AGENT_KINDS.register("llm-workflow", _llm_workflow, check=_needs_model)


def make_agent(spec: AgentSpec | str | Mapping[str, Any], dp: Datapoint, role: str,
               ctx: Mapping[str, Any] | None = None) -> Agent:
    """Build one agent for ``role`` on datapoint ``dp``; unknown kinds name the known ones.

    ``ctx`` holds LLM settings, the episode id, the retry budget and a seat (see
    :class:`~accord.agents.kinds.AgentSettings`).
    """
    return AGENT_KINDS.build(parse_agent_spec(spec),
                             AgentContext(dp, role, AgentSettings.of(ctx)))


def make_agents(specs: Sequence[AgentSpec | str], dp: Datapoint, seed: int,
                ctx: Mapping[str, Any] | None = None) -> dict[str, Agent]:
    """One reset agent per role (alice, bob), each with its own seeded generator."""
    if len(specs) != len(ROLES):
        raise AgentSpecError(f"deal-or-no-deal needs {len(ROLES)} agent specs (alice, bob), "
                             f"got {len(specs)}")
    out: dict[str, Agent] = {}
    for i, (role, spec) in enumerate(zip(ROLES, specs, strict=True)):
        agent = make_agent(spec, dp, role, ctx)
        agent.reset_seeded(seed, i)  # default_rng([seed, i]), made if the agent draws
        out[role] = agent
    return out
