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

Factories take ``(spec, datapoint, role, ctx)``; ``ctx`` carries side-effect settings for
LLM agents: ``llm`` (settings for :func:`~accord.agents.llm_support.runtime_for`),
``episode_id`` (cache scopes) and ``max_retries`` (shown to the model on a retry).
:data:`AGENT_KINDS` is the single place to register kinds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from accord.agents.base import Agent
from accord.agents.spec import AgentSpec, AgentSpecError, parse_agent_spec
from accord.core.names import unknown_name
from accord.domains.deal_or_no_deal.baselines import GreedyAgent, HumanReplayAgent
from accord.domains.deal_or_no_deal.llm.agents import make_llm_workflow, make_raw_llm
from accord.domains.deal_or_no_deal.load import Datapoint
from accord.domains.deal_or_no_deal.protocol import ROLES
from accord.domains.deal_or_no_deal.workflow import BayesianWorkflowAgent

Factory = Callable[[AgentSpec, Datapoint, str, Mapping[str, Any]], Agent]


def _opts(spec: AgentSpec, allowed: set[str]) -> dict[str, Any]:
    bad = sorted(set(spec.options) - allowed)
    if bad:
        raise AgentSpecError(f"agent {spec.kind!r} has no option(s) {bad}; "
                             f"options: {sorted(allowed) or 'none'}")
    if spec.arg is not None:
        raise AgentSpecError(f"agent {spec.kind!r} takes no ':' argument, got {spec.arg!r}")
    return dict(spec.options)


def _workflow(spec: AgentSpec, dp: Datapoint, role: str, ctx: Mapping[str, Any]) -> Agent:
    o = _opts(spec, {"lam", "gamma", "threshold", "learn_from_offers", "view", "polish"})
    return BayesianWorkflowAgent(**o)


def _greedy(spec: AgentSpec, dp: Datapoint, role: str, ctx: Mapping[str, Any]) -> Agent:
    o = _opts(spec, {"accept_share"})
    return GreedyAgent(float(o.get("accept_share", 0.6)))


def _dataset_human(spec: AgentSpec, dp: Datapoint, role: str, ctx: Mapping[str, Any]
                   ) -> Agent:
    _opts(spec, set())
    return HumanReplayAgent(dp, role)


def _human(spec: AgentSpec, dp: Datapoint, role: str, ctx: Mapping[str, Any]) -> Agent:
    from accord.agents.human import HumanAgent, seat_from
    from accord.domains.deal_or_no_deal.human import DondView

    _opts(spec, set())
    return HumanAgent(seat_from(ctx), DondView())


AGENT_KINDS: dict[str, Factory] = {
    "workflow": _workflow,
    "greedy": _greedy,
    "human": _human,
    "dataset-human": _dataset_human,
    "llm": make_raw_llm,
    "llm-workflow": make_llm_workflow,
}
"""Agent kind -> factory ``(spec, datapoint, role, ctx) -> Agent``."""


def make_agent(spec: AgentSpec | str | Mapping[str, Any], dp: Datapoint, role: str,
               ctx: Mapping[str, Any] | None = None) -> Agent:
    """Build one agent for ``role`` on datapoint ``dp``; unknown kinds name the known ones.

    ``ctx`` holds LLM settings and the episode id (see the module docstring).
    """
    parsed = parse_agent_spec(spec)
    factory = AGENT_KINDS.get(parsed.kind)
    if factory is None:
        raise AgentSpecError(unknown_name("deal-or-no-deal agent kind", parsed.kind,
                                          AGENT_KINDS))
    try:
        return factory(parsed, dp, role, ctx or {})
    except (TypeError, ValueError) as exc:
        if isinstance(exc, AgentSpecError):
            raise
        raise AgentSpecError(f"agent spec {str(parsed)!r}: {exc}") from exc


def make_agents(specs: Sequence[AgentSpec | str], dp: Datapoint, seed: int,
                ctx: Mapping[str, Any] | None = None) -> dict[str, Agent]:
    """One reset agent per role (alice, bob), each with its own seeded generator."""
    if len(specs) != len(ROLES):
        raise AgentSpecError(f"deal-or-no-deal needs {len(ROLES)} agent specs (alice, bob), "
                             f"got {len(specs)}")
    out: dict[str, Agent] = {}
    for i, (role, spec) in enumerate(zip(ROLES, specs, strict=True)):
        agent = make_agent(spec, dp, role, ctx)
        agent.reset(np.random.default_rng([seed, i]))
        out[role] = agent
    return out
