"""The two LLM agents of seed 003, section 5: the workflow run by an LLM, and a raw LLM.

* :class:`RawLLMAgent` (kind ``llm``) - direct prompting, no workflow: the model gets its
  role, the counts, its own values, the round cap and the reply format once, then each turn
  the partner's moves and messages, the proposal on the table (with what it leaves the
  model, item by item) and the move to make. No points, envy or belief are computed for it.
* :class:`LLMWorkflowAgent` (kind ``llm-workflow``) - the Bayesian workflow (Algorithm 1)
  carried out by the model with its belief state kept explicitly and shown on every call.

Division of labour in ``llm-workflow`` (the paper keeps the state explicit and defers the
decisions to the model; accord keeps everything numeric exact and in code):

* **code** keeps the belief over the partner's valuations (Definition 10, the code
  workflow's :class:`~accord.domains.deal_or_no_deal.workflow.WorkflowState` and
  :mod:`accord.solvers.bayes`), applies equation (3) with ``lam`` and ``gamma`` when the
  partner rejects the agent's proposal (and, with ``learn_from_offers``, rules out values
  under which the partner's own proposals would be envious), computes ``P_EF`` of
  equation (2) exactly and lists the solutions of problem (1) and the next best shares,
  the shares already rejected, and the points of the offer on the table. All of this is
  rendered with :func:`~accord.domains.deal_or_no_deal.workflow.render_belief` into every
  prompt (and as JSON into the ``<DOND>`` block);
* **the model** carries out the workflow's decisions: it reads the partner's move and
  message, checks the offer on the table against Assumption 1 (envy-free for itself and
  worth at least its best proposal), chooses the share to propose from problem (1) (or
  any other it prefers), and writes the public message.

The proposal the model actually made is what the code treats as "my last proposal" for the
next belief update, so the update follows the model's moves, not the code's own choice.
The code workflow's ``threshold`` and ``polish`` options do not apply here.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from accord.agents.base import Agent
from accord.agents.llm_support import generation_config, runtime_for
from accord.agents.spec import AgentSpec, AgentSpecError
from accord.core.moves import Move, Offer, Reject
from accord.domains.deal_or_no_deal.dataset import Datapoint
from accord.domains.deal_or_no_deal.deal_tag import package_of, share_of
from accord.domains.deal_or_no_deal.llm_core import DondChat
from accord.domains.deal_or_no_deal.protocol import DondObservation
from accord.domains.deal_or_no_deal.workflow import (
    BayesianWorkflowAgent,
    WorkflowState,
    render_belief,
)
from accord.llm import GenerationConfig, LLMClient, LLMError
from accord.protocols.base import Observation
from accord.solvers.bayes import RejectionView, p_ef, possibly_envy_free, solve_proposal


def proposal_rows(state: WorkflowState, top: int = 5) -> list[dict[str, Any]]:
    """The proposals :func:`render_belief` lists, as JSON rows (share, points, exact P_EF)."""
    b = state.belief
    m = b.model
    cands = solve_proposal(b, 0, frozenset(state.excluded))
    feasible = possibly_envy_free(b)
    others = [int(i) for i in np.argsort(-m.own_utility, kind="stable")
              if feasible[i] and int(i) not in cands and int(i) not in state.excluded]
    return [{"share": package_of(m.share(i), state.items), "points": int(m.own_utility[i]),
             "p_ef": str(p_ef(b, i))} for i in [*cands, *others][:top]]


class RawLLMAgent(Agent):
    """A Deal-or-No-Deal LLM negotiator without workflow (section 5.5.1)."""

    name = "llm"

    def __init__(self, client: LLMClient, config: GenerationConfig, *, episode: str | None,
                 guard: str = "flag", max_retries: int = 5) -> None:
        self.chat = DondChat(client, config, episode=episode,
                             system_template="llm_raw_system.jinja", guard=guard,
                             max_retries=max_retries)
        self.reset()

    def reset(self, rng: np.random.Generator | None = None) -> None:
        """Start a fresh session (the model's sampling is its own randomness)."""
        super().reset(rng)
        self.chat.reset()

    def describe(self) -> str:
        """``llm:<model>``."""
        return f"llm:{self.chat.client.model}"

    async def act(self, observation: Observation) -> Move:
        """Ask the model for this turn's move."""
        assert isinstance(observation, DondObservation)
        return await self.chat.move(observation)

    def drain_notes(self) -> list[dict[str, Any]]:
        """``llm_call`` and flagged ``utility_leak`` notes."""
        return self.chat.drain()

    def usage(self) -> dict[str, Any]:
        """Token usage of this agent's session."""
        return self.chat.usage()


class LLMWorkflowAgent(BayesianWorkflowAgent):
    """Algorithm 1 run by an LLM, its belief state kept in code and shown every call.

    A :class:`BayesianWorkflowAgent` for its belief machinery (so its per-round belief
    trace feeds the estimation metrics like the code workflow's); the moves come from the
    model. See the module docstring for who computes what.
    """

    name = "llm-workflow"

    def __init__(self, client: LLMClient, config: GenerationConfig, *, episode: str | None,
                 lam: float | Fraction = 1, gamma: float | Fraction = 1,
                 learn_from_offers: bool = True, view: RejectionView = "partner",
                 guard: str = "flag", max_retries: int = 5, top: int = 5) -> None:
        self.chat = DondChat(client, config, episode=episode,
                             system_template="llm_workflow_system.jinja", guard=guard,
                             max_retries=max_retries)
        if top < 1:
            raise ValueError(f"top must be at least 1, got {top}")
        self.top = top
        super().__init__(lam=lam, gamma=gamma, threshold=0, learn_from_offers=learn_from_offers,
                         view=view, polish=False)

    def reset(self, rng: np.random.Generator | None = None) -> None:
        """Forget the belief and start a fresh session."""
        super().reset(rng)
        self.chat.reset()

    def describe(self) -> str:
        """``llm-workflow:<model>`` with the update's hyperparameters."""
        return f"llm-workflow:{self.chat.client.model}(lam={self.lam}, gamma={self.gamma})"

    def workflow_block(self, state: WorkflowState) -> dict[str, Any]:
        """The workflow part of the ``<DOND>`` block: candidate proposals and rejections."""
        m = state.belief.model
        return {"proposals": proposal_rows(state, self.top),
                "rejected": [package_of(m.share(i), state.items) for i in sorted(state.rejected)],
                "support": len(state.belief.support()), "prior": m.n_valuations}

    async def act(self, observation: Observation) -> Move:
        """Update the belief in code, show it, and let the model take the workflow step."""
        obs = observation
        assert isinstance(obs, DondObservation)
        if self.state is None:
            self.state = self._init(obs)
        st = self.state
        self._absorb(st, obs)
        st.snapshot(obs.round)
        system = {"lam": str(self.lam), "gamma": str(self.gamma),
                  "learn_from_offers": self.learn_from_offers}
        move = await self.chat.move(obs, system_extra=system,
                                    belief=render_belief(st, top=self.top),
                                    workflow=self.workflow_block(st), show_points=True)
        self._remember(st, move)
        return move

    def _remember(self, st: WorkflowState, move: Move) -> None:
        """Record the model's proposal as the share a rejection would refer to."""
        offer = move.counter if isinstance(move, Reject) else move
        if not isinstance(offer, Offer):
            return
        try:
            st.last_offer = st.belief.model.share_index(share_of(offer.package, st.items))
        except (KeyError, TypeError, ValueError):
            return  # out of range: the protocol refuses it and the model tries again

    def drain_notes(self) -> list[dict[str, Any]]:
        """``llm_call`` and flagged ``utility_leak`` notes."""
        return self.chat.drain()

    def usage(self) -> dict[str, Any]:
        """Token usage of this agent's session."""
        return self.chat.usage()


LLM_OPTIONS = {"guard"}
"""Agent options of ``llm`` besides the generation options."""
WORKFLOW_OPTIONS = {"guard", "lam", "gamma", "learn_from_offers", "view", "top"}
"""Agent options of ``llm-workflow`` besides the generation options."""


def _client(spec: AgentSpec, ctx: Mapping[str, Any], ours: set[str]
            ) -> tuple[LLMClient, GenerationConfig]:
    if not spec.arg:
        raise AgentSpecError(f"{spec.kind} needs a model: e.g. {spec.kind}:openai/gpt-4.1-mini")
    try:
        config = generation_config({k: v for k, v in spec.options.items() if k not in ours})
    except ValueError as exc:
        raise AgentSpecError(f"agent {spec.kind!r}: {exc}; agent options: {sorted(ours)}"
                             ) from None
    runtime = runtime_for(ctx.get("llm"))
    try:
        return runtime.client(spec.arg, config), config
    except LLMError as exc:  # unknown provider, missing key or base URL: a usage error
        raise AgentSpecError(f"{spec}: {exc}") from None


def _common(spec: AgentSpec, ctx: Mapping[str, Any]) -> dict[str, Any]:
    return {"episode": ctx.get("episode_id") or None,
            "guard": str(spec.options.get("guard", "flag")),
            "max_retries": int(ctx.get("max_retries", 5))}


def make_raw_llm(spec: AgentSpec, dp: Datapoint, role: str, ctx: Mapping[str, Any]) -> Agent:
    """Factory of kind ``llm``: ``llm:MODEL[?temperature=..&guard=flag|block]``."""
    client, config = _client(spec, ctx, LLM_OPTIONS)
    return RawLLMAgent(client, config, **_common(spec, ctx))


def make_llm_workflow(spec: AgentSpec, dp: Datapoint, role: str, ctx: Mapping[str, Any]
                      ) -> Agent:
    """Factory of kind ``llm-workflow``: ``llm-workflow:MODEL[?lam=..&gamma=..&...]``."""
    client, config = _client(spec, ctx, WORKFLOW_OPTIONS)
    o = spec.options
    view = str(o.get("view", "partner"))
    if view not in ("partner", "exact"):
        raise AgentSpecError(f"agent {spec.kind!r}: view must be 'partner' or 'exact', "
                             f"got {view!r}")
    flag = o.get("learn_from_offers", True)
    if not isinstance(flag, bool):
        raise AgentSpecError(f"agent {spec.kind!r}: learn_from_offers must be true or false, "
                             f"got {flag!r}")
    return LLMWorkflowAgent(client, config, lam=o.get("lam", 1), gamma=o.get("gamma", 1),
                            learn_from_offers=flag, view="exact" if view == "exact" else "partner",
                            top=int(o.get("top", 5)), **_common(spec, ctx))
