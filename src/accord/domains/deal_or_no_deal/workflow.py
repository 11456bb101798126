"""The Bayesian negotiation workflow of seed 003 (Algorithm 1), executed in code.

Each turn the agent (1) updates its belief over the partner's valuation with what the
partner just did - equation (3) after a rejection of its own proposal, and (optionally)
the envy-freeness of a counter-offer - (2) accepts the partner's offer when it is
envy-free for itself and worth at least its own best proposal (Assumption 1), otherwise
(3) proposes the solution of problem (1), never re-proposing a share the partner already
rejected, nor one that takes at least as much of every item as a rejected share, unless
nothing else is left. Ties among maximisers go to the higher ``P_EF``,
then to the larger expected utility for the partner (giving away what is worthless to
oneself costs nothing and moves towards the Pareto frontier), then to the agent's random
generator, so a run is deterministic given its seed. With ``polish`` (accord's addition,
on by default) the agent, once per episode, answers an acceptable offer that hands it
items worth nothing to it by handing them back in a counter-offer instead of accepting -
a Pareto improvement the partner has every reason to accept.

The belief state is kept explicitly (:class:`WorkflowState`) and can be rendered as text
for an LLM running the same workflow (:func:`render_belief`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import jinja2
import numpy as np

from accord.agents.base import Agent
from accord.core.moves import Accept, Move, Offer, Reject, Walk
from accord.domains.deal_or_no_deal.deal_tag import format_deal_body, package_of, share_of
from accord.protocols.base import Observation
from accord.solvers.bayes import (
    Belief,
    RejectionView,
    as_fraction,
    belief_model,
    expected_partner_utility,
    offer_likelihood,
    p_ef,
    possibly_envy_free,
    rejection_likelihood,
    solve_proposal,
    update,
)


@dataclass
class WorkflowState:
    """The workflow's explicit state: belief, rejected shares and the belief trace."""

    belief: Belief
    items: tuple[str, ...]
    rejected: set[int] = field(default_factory=set)
    excluded: set[int] = field(default_factory=set)
    polished: bool = False
    last_offer: int | None = None
    seen: int = 0
    inconsistent: int = 0
    trace: list[dict[str, Any]] = field(default_factory=list)

    def snapshot(self, round_: int) -> dict[str, Any]:
        """Record the support after processing round ``round_`` and return the record."""
        support = self.belief.support()
        rec = {"round": round_, "size": len(support),
               "prior": self.belief.model.n_valuations,
               "support": [list(w) for w in support]}
        if self.trace and self.trace[-1]["round"] == round_:
            self.trace[-1] = rec
        else:
            self.trace.append(rec)
        return rec


class BayesianWorkflowAgent(Agent):
    """Algorithm 1 with exact beliefs (solvers/bayes.py); ``lam``/``gamma`` of eq. (3)."""

    name = "workflow"

    def __init__(self, lam: float | Fraction = 1, gamma: float | Fraction = 1,
                 threshold: float | Fraction = 0, learn_from_offers: bool = True,
                 view: RejectionView = "partner", polish: bool = True) -> None:
        self.lam = as_fraction(lam)
        self.gamma = as_fraction(gamma)
        self.threshold = as_fraction(threshold)
        if not 0 <= self.gamma <= 1:
            raise ValueError(f"gamma must lie in [0, 1], got {gamma}")
        if not 0 <= self.lam <= 1:
            raise ValueError(f"lambda must lie in [0, 1], got {lam}")
        if view not in ("partner", "exact"):
            raise ValueError(f"view must be 'partner' or 'exact', got {view!r}")
        self.learn_from_offers = learn_from_offers
        self.view: RejectionView = view
        self.polish = polish
        self.state: WorkflowState | None = None
        self.reset()

    def reset(self, rng: np.random.Generator | None = None) -> None:
        """Forget the belief; ``rng`` breaks ties between equally good proposals."""
        super().reset(rng)
        self.state = None

    def describe(self) -> str:
        """Label with the hyperparameters."""
        return f"workflow(lam={self.lam}, gamma={self.gamma}, threshold={self.threshold})"

    def trace(self) -> list[dict[str, Any]]:
        """Per-round supports of the belief, for the estimation metrics (Tables 14-16)."""
        return [] if self.state is None else list(self.state.trace)

    def _init(self, obs: Any) -> WorkflowState:
        model = belief_model(tuple(obs.counts), tuple(obs.values))
        return WorkflowState(Belief.uniform(model), tuple(obs.items))

    def _absorb(self, st: WorkflowState, obs: Any) -> None:
        """Update the belief with the partner's events since the last turn."""
        model = st.belief.model
        for event in obs.history[st.seen:]:
            if event["role"] == obs.role:
                continue
            rejected = event.get("rejected")
            if rejected is not None and st.last_offer is not None:
                idx = model.share_index(share_of(rejected, st.items))
                if idx == st.last_offer and not self._gives_more(st, idx, event):
                    st.rejected.add(idx)
                    # taking at least as much of every item is worse for the partner too
                    dominating = (model.shares >= model.shares[idx]).all(axis=1)
                    st.excluded.update(int(i) for i in np.flatnonzero(dominating))
                    lik = rejection_likelihood(model, idx, self.gamma, self.view)
                    st.belief, ok = update(st.belief, lik, self.lam)
                    st.inconsistent += 0 if ok else 1
                    st.last_offer = None
            if self.learn_from_offers and event["kind"] == "offer":
                theirs = share_of(event["share"], st.items)
                mine = tuple(c - s for c, s in zip(model.counts, theirs, strict=True))
                lik = offer_likelihood(model, model.share_index(mine))
                st.belief, ok = update(st.belief, lik, self.lam)
                st.inconsistent += 0 if ok else 1
        st.seen = len(obs.history)

    @staticmethod
    def _gives_more(st: WorkflowState, idx: int, event: Mapping[str, Any]) -> bool:
        """A counter-offer leaving me at least my own proposal is no rejection of it."""
        if event["kind"] != "offer":
            return False
        m = st.belief.model
        mine = np.asarray(m.counts) - np.asarray(share_of(event["share"], st.items))
        return bool((mine >= m.shares[idx]).all())

    def _pick(self, st: WorkflowState, cands: list[int]) -> int:
        """Among equally good shares: highest P_EF, then most for the partner, then rng."""
        if len(cands) == 1:
            return cands[0]
        b = st.belief
        keys = [(p_ef(b, i), expected_partner_utility(b, i)) for i in cands]
        top = max(keys)
        tied = [i for i, k in zip(cands, keys, strict=True) if k == top]
        return tied[0] if len(tied) == 1 else int(tied[int(self.rng.integers(len(tied)))])

    def decide(self, obs: Any) -> Move:
        """The workflow's move for a :class:`DondObservation` (synchronous, pure given rng)."""
        if self.state is None:
            self.state = self._init(obs)
        st = self.state
        self._absorb(st, obs)
        st.snapshot(obs.round)
        model = st.belief.model
        cands = solve_proposal(st.belief, self.threshold, frozenset(st.excluded))
        if obs.offer_for_you is not None:
            mine = model.share_index(share_of(obs.offer_for_you, st.items))
            fair = bool(model.own_ok[mine])
            enough = not cands or model.own_utility[mine] >= model.own_utility[cands[0]]
            if fair and (enough or obs.last_turn):
                better = None if obs.last_turn else self._polish(st, mine)
                if better is not None:
                    return self._offer(st, better, obs, "I can give back what I do not need: ")
                return Accept(message="I accept: " + format_deal_body(obs.offer_for_you,
                                                                      st.items))
        if not cands:
            cands = solve_proposal(st.belief, self.threshold, frozenset(st.rejected))
        if not cands:
            cands = solve_proposal(st.belief, self.threshold)
        if not cands:
            return Walk(reason="no allocation is envy-free for both of us under my belief")
        return self._offer(st, self._pick(st, cands), obs, "I propose I take ")

    def _offer(self, st: WorkflowState, idx: int, obs: Any, text: str) -> Move:
        st.last_offer = idx
        package = package_of(st.belief.model.share(idx), st.items)
        offer = Offer(package, message=text + format_deal_body(package, st.items))
        return Reject(counter=offer) if obs.offer is not None else offer

    def _polish(self, st: WorkflowState, mine: int) -> int | None:
        """Once per episode: instead of accepting, hand back items worth nothing to me."""
        if not self.polish or st.polished:
            return None
        m = st.belief.model
        share = m.shares[mine] * (np.asarray(m.own) > 0)
        idx = m.share_index(tuple(int(x) for x in share))
        if idx == mine or expected_partner_utility(st.belief, idx) <= \
                expected_partner_utility(st.belief, mine):
            return None
        st.polished = True
        return idx

    async def act(self, observation: Observation) -> Move:
        """See :meth:`decide`."""
        return self.decide(observation)


_ENV = jinja2.Environment(loader=jinja2.PackageLoader("accord.domains.deal_or_no_deal",
                                                     "prompts"),
                          undefined=jinja2.StrictUndefined, trim_blocks=True,
                          lstrip_blocks=True, autoescape=False, auto_reload=False)


def render_belief(state: WorkflowState, top: int = 5, max_support: int = 30) -> str:
    """The belief state as text for an LLM running the workflow (template ``prompts/``)."""
    b = state.belief
    m = b.model
    support = [(tuple(int(x) for x in m.valuations[i]), p) for i, p in enumerate(b.probs) if p]
    support.sort(key=lambda wp: (-wp[1], wp[0]))
    cands = solve_proposal(b, 0, frozenset(state.excluded))
    feasible = possibly_envy_free(b)
    others = [int(i) for i in np.argsort(-m.own_utility, kind="stable")
              if feasible[i] and int(i) not in cands and int(i) not in state.excluded]
    rows = [{"share": format_deal_body(package_of(m.share(int(i)), state.items), state.items),
             "utility": int(m.own_utility[i]), "p_ef": str(p_ef(b, int(i)))}
            for i in [*cands, *others][:top]]
    return _ENV.get_template("belief.jinja").render(
        items=state.items, counts=m.counts, own=m.own, total=m.total,
        prior=m.n_valuations, size=len(support),
        support=[{"w": dict(zip(state.items, w, strict=True)), "p": str(p)}
                 for w, p in support[:max_support]],
        more=max(0, len(support) - max_support), proposals=rows,
        rejected=[format_deal_body(package_of(m.share(i), state.items), state.items)
                  for i in sorted(state.rejected)]).strip()
