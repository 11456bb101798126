"""The two LLM agents of seed 003, section 5: the workflow run by an LLM, and a raw LLM.

* :class:`RawLLMAgent` (kind ``llm``) - direct prompting, no workflow: the model gets its
  role, the counts, its own values, the round cap and the reply format once, then each turn
  the partner's moves and messages, the proposal on the table (with what it leaves the
  model, item by item) and the move to make. No points, envy or belief are computed for it.
* :class:`LLMWorkflowAgent` (kind ``llm-workflow``) - the Bayesian workflow (Algorithm 1)
  followed by the model, in one of two modes (agent option ``mode``):

``mode=seed`` (default; what seed 003 measures and what reproduces Tables 10-16): the
**model** does the reasoning. Its system prompt guides it through Assumption 1,
Definition 10 (the uniform prior over Omega), problem (1), equation (2) and equation (3)
(R1 / R2 with the given ``lam`` and ``gamma``) step by step, in the seed's wording; every
turn it updates its belief itself and states it in a ``<BELIEF>`` block
(:mod:`accord.domains.deal_or_no_deal.llm.belief`). accord parses the statement (an
unreadable one is an invalid reply: the usual retry with targeted feedback; on the last
attempt the move stands and the trace records the error), keeps the exact computation of
:mod:`accord.solvers.bayes` beside it (``code`` in the trace) and scores the estimation
metrics of Tables 14-16 from the model's statement. No belief, ``P_EF`` or points are
computed for the model.

``mode=assisted`` (accord's earlier mode, kept by name): **code** keeps the belief over
the partner's valuations (the code workflow's
:class:`~accord.domains.deal_or_no_deal.workflow.WorkflowState`), applies equation (3)
when the partner rejects the agent's proposal (and, with ``learn_from_offers``, rules out
values under which the partner's own proposals would be envious), computes ``P_EF`` of
equation (2) exactly and lists the solutions of problem (1), the next best shares and the
shares already rejected in every prompt
(:func:`~accord.domains.deal_or_no_deal.workflow.render_belief`); the **model** checks the
offer on the table, picks the share to propose and writes the message. Tables 14-16 then
measure accord's computation, not the model.

In both modes the proposal the model actually made is what the code treats as "my last
proposal" for the next belief update. The code workflow's ``threshold`` and ``polish``
options do not apply here.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from accord.agents.base import Agent
from accord.agents.llm_base import llm_client
from accord.agents.replies import strip_private
from accord.agents.spec import AgentSpec, AgentSpecError
from accord.core.moves import Malformed, Move, Offer, Reject
from accord.domains.deal_or_no_deal.deal_tag import package_of, share_of
from accord.domains.deal_or_no_deal.llm.belief import BeliefError, parse_belief
from accord.domains.deal_or_no_deal.llm.session import DondChat
from accord.domains.deal_or_no_deal.load import Datapoint
from accord.domains.deal_or_no_deal.protocol import DondObservation
from accord.domains.deal_or_no_deal.workflow import (
    BayesianWorkflowAgent,
    WorkflowState,
    render_belief,
)
from accord.llm import GenerationConfig, LLMClient
from accord.protocols.base import Observation
from accord.protocols.engine import DEFAULT_MAX_RETRIES
from accord.solvers.bayes import RejectionView, p_ef, possibly_envy_free, solve_proposal


def proposal_rows(state: WorkflowState, top: int = 5) -> list[dict[str, Any]]:
    """The proposals :func:`render_belief` lists, as JSON rows (share, points, exact P_EF).

    Not sent to any model (prompts are text only); tests compare it with the rendered text.
    """
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
                 guard: str = "flag", max_retries: int = DEFAULT_MAX_RETRIES) -> None:
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


MODES = ("seed", "assisted")
"""The modes of ``llm-workflow`` (see the module docstring); the first is the default."""


class LLMWorkflowAgent(BayesianWorkflowAgent):
    """Algorithm 1 followed by an LLM, in the seed's mode or the assisted mode.

    A :class:`BayesianWorkflowAgent` for its belief machinery: the exact belief is kept in
    code in both modes (shown to the model in ``assisted``, recorded beside the model's own
    statement in ``seed``); the moves come from the model. See the module docstring.
    """

    name = "llm-workflow"

    def __init__(self, client: LLMClient, config: GenerationConfig, *, episode: str | None,
                 lam: float | Fraction = 1, gamma: float | Fraction = 1,
                 learn_from_offers: bool | None = None, view: RejectionView = "partner",
                 guard: str = "flag", max_retries: int = DEFAULT_MAX_RETRIES, top: int = 5,
                 mode: str = "seed") -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        self.mode = mode
        template = "llm_seed_system.jinja" if mode == "seed" else "llm_workflow_system.jinja"
        self.chat = DondChat(client, config, episode=episode, system_template=template,
                             guard=guard, max_retries=max_retries)
        if top < 1:
            raise ValueError(f"top must be at least 1, got {top}")
        self.top = top
        self.max_retries = max_retries
        if learn_from_offers is None:  # the seed's Algorithm 1 learns from rejections only
            learn_from_offers = mode == "assisted"
        super().__init__(lam=lam, gamma=gamma, threshold=0, learn_from_offers=learn_from_offers,
                         view=view, polish=False)

    def reset(self, rng: np.random.Generator | None = None) -> None:
        """Forget the belief and start a fresh session."""
        super().reset(rng)
        self.chat.reset()
        self.stated: tuple[tuple[int, ...], ...] | None = None

    def describe(self) -> str:
        """``llm-workflow:<model>`` with the mode and the update's hyperparameters."""
        return (f"llm-workflow:{self.chat.client.model}(mode={self.mode}, lam={self.lam}, "
                f"gamma={self.gamma})")

    async def act(self, observation: Observation) -> Move:
        """Update the exact belief in code, ask the model, record what it stated (seed)."""
        obs = observation
        assert isinstance(obs, DondObservation)
        if self.state is None:
            self.state = self._init(obs)
        st = self.state
        self._absorb(st, obs)
        rec = st.snapshot(obs.round)
        system = {"lam": str(self.lam), "gamma": str(self.gamma),
                  "learn_from_offers": self.learn_from_offers}
        if self.mode == "assisted":
            rec["source"] = "code"
            move = await self.chat.move(obs, system_extra=system,
                                        belief=render_belief(st, top=self.top),
                                        show_points=True)
        else:
            move = await self.chat.move(obs, system_extra=system, seed=True)
            if isinstance(move, Malformed):  # replaced by the retry's record, if any
                self._unstated(st, rec, f"{move.reason}: the reply was not a valid move")
            else:
                move = self._stated(st, obs, rec, move)
        self._remember(st, move)
        return move

    def _unstated(self, st: WorkflowState, rec: dict[str, Any], error: str) -> None:
        """Record a round without a readable statement: the last one stands (else the prior)."""
        m = st.belief.model
        if "code" not in rec:
            rec["code"] = {"size": rec["size"], "support": rec["support"],
                           "probs": [str(p) for p in st.belief.probs if p > 0]}
        kept = self.stated if self.stated is not None else tuple(
            tuple(int(x) for x in w) for w in m.valuations)
        rec.update({"source": "model", "stated": False, "error": error,
                    "support": [list(w) for w in kept], "size": len(kept),
                    "matches_code": None})

    def _stated(self, st: WorkflowState, obs: DondObservation, rec: dict[str, Any],
                move: Move) -> Move:
        """Read the model's ``<BELIEF>`` into the trace record (seed mode).

        The record's ``support``/``size`` become the model's statement (what the estimation
        metrics score); the exact belief of :mod:`accord.solvers.bayes` moves to
        ``code``. An unreadable statement is an invalid reply while retries remain; on the
        last attempt the move stands, the record keeps the last readable statement (the
        prior if none) and says why in ``error``.
        """
        m = st.belief.model
        code = {"size": rec["size"], "support": rec["support"],
                "probs": [str(p) for p in st.belief.probs if p > 0]}
        try:
            stated = parse_belief(self.chat.belief_source, st.items, m.counts, m.total)
        except BeliefError as exc:
            if obs.attempt < self.chat.attempts(obs):  # retries remain in the engine's budget
                return Malformed(exc.reason, exc.feedback, raw=strip_private(
                    self.chat.last_reply)[:2000])
            self._unstated(st, rec, f"{exc.reason}: {exc}")
            return move
        self.stated = stated.support
        support = [list(w) for w in stated.support]
        rec.update({"source": "model", "stated": True, "error": None, "support": support,
                    "size": len(support), "probs": [str(p) for p in stated.probs],
                    "code": code,
                    "matches_code": sorted(support) == sorted(code["support"])})
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
WORKFLOW_OPTIONS = {"guard", "lam", "gamma", "learn_from_offers", "view", "top", "mode"}
"""Agent options of ``llm-workflow`` besides the generation options."""


def _client(spec: AgentSpec, ctx: Mapping[str, Any], ours: set[str]
            ) -> tuple[LLMClient, GenerationConfig]:
    return llm_client(spec, ctx.get("llm"), ours)


def _common(spec: AgentSpec, ctx: Mapping[str, Any]) -> dict[str, Any]:
    return {"episode": ctx.get("episode_id") or None,
            "guard": str(spec.options.get("guard", "flag")),
            "max_retries": int(ctx.get("max_retries", DEFAULT_MAX_RETRIES))}


def make_raw_llm(spec: AgentSpec, dp: Datapoint, role: str, ctx: Mapping[str, Any]) -> Agent:
    """Factory of kind ``llm``: ``llm:MODEL[?temperature=..&guard=flag|block]``."""
    client, config = _client(spec, ctx, LLM_OPTIONS)
    return RawLLMAgent(client, config, **_common(spec, ctx))


def make_llm_workflow(spec: AgentSpec, dp: Datapoint, role: str, ctx: Mapping[str, Any]
                      ) -> Agent:
    """Factory of kind ``llm-workflow``: ``llm-workflow:MODEL[?mode=seed|assisted&lam=..&...]``."""
    client, config = _client(spec, ctx, WORKFLOW_OPTIONS)
    o = spec.options
    view = str(o.get("view", "partner"))
    if view not in ("partner", "exact"):
        raise AgentSpecError(f"agent {spec.kind!r}: view must be 'partner' or 'exact', "
                             f"got {view!r}")
    mode = str(o.get("mode", MODES[0]))
    if mode not in MODES:
        raise AgentSpecError(f"agent {spec.kind!r}: mode must be one of {', '.join(MODES)}, "
                             f"got {mode!r}")
    flag = o.get("learn_from_offers")
    if flag is not None and not isinstance(flag, bool):
        raise AgentSpecError(f"agent {spec.kind!r}: learn_from_offers must be true or false, "
                             f"got {flag!r}")
    return LLMWorkflowAgent(client, config, lam=o.get("lam", 1), gamma=o.get("gamma", 1),
                            learn_from_offers=flag, view="exact" if view == "exact" else "partner",
                            top=int(o.get("top", 5)), mode=mode, **_common(spec, ctx))
