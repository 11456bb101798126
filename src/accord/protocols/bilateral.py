"""The engine's fused loop for the commonest episode: two code agents trading counter-offers.

In a bilateral alternating-offers negotiation between two time-based agents, almost every
round is the same: the responder rejects the offer on the table with a counter-offer, which
becomes the next round's offer. The general loop (:mod:`accord.protocols.engine`) builds an
observation, asks the agent, validates the move, applies it to the immutable state and logs
it, every round; most of a round's CPU is in those layers, not in the agent's decision.

:func:`fused_rounds` plays those rounds in one frame: each agent's verdict comes from its
:meth:`~accord.agents.concession.TimeBasedAgent.fused_counter` (the same arithmetic as its
``act_now``), each counter-offer becomes the same :class:`~accord.protocols.negotiation.OfferRecord`
and the same ``move`` event, and the state is built once, when the loop hands back. It hands
back, leaving the round unplayed, at the first round that is anything else - an acceptance,
a walk, the last round, the stagnation rule firing, the round bound - and the general loop
plays that round as always (the agents decide deterministically, so asking again gives the
same move). The records and logs are the general loop's, event by event:
``tests/protocols/test_engine_fast_path.py`` plays both side by side.

It applies only where nothing could tell the difference: exactly two parties, unanimity, no
voting rules, opener, mediator, offer cap or stagnation scorer, the stagnation rule off or
measured in utility, no time discounts, both agents code agents whose class keeps the
time-based rules, no notes to drain, the rule judge and no wall clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from accord.core.moves import Offer, Reject
from accord.core.trajectory import Event
from accord.protocols.history import extended
from accord.protocols.negotiation import NegotiationObservation, OfferRecord
from accord.protocols.stagnation import previous_of

if TYPE_CHECKING:
    from accord.protocols.alternating import AlternatingOffers, NegotiationState

#: plays the fused rounds from a state: (state, the log's event list, the episode's start
#: on ``time.monotonic``) -> the state after them (the same object when none was played)
Fused = Callable[["NegotiationState", list[Event], float], "NegotiationState"]


def fused_rounds(protocol: AlternatingOffers, agents: Mapping[str, Any],
                 max_rounds: int | None) -> Fused | None:
    """The fused loop of one episode, or ``None`` when it does not apply (see the module
    docstring). ``max_rounds`` is the engine's round bound (``None``: unbounded)."""
    from accord.protocols.alternating import _evolved  # the protocol's own state update

    cfg = protocol.config
    parties = protocol.parties
    if (len(parties) != 2 or protocol.required != 2 or cfg.voting_rules
            or cfg.opener is not None or cfg.mediator or cfg.max_offers is not None
            or cfg.stagnation_scorer
            or (cfg.stagnation_rounds > 0 and cfg.stagnation_measure != "utility")):
        return None
    kernels = {}
    state0 = protocol.initial_state()
    for role in parties:
        agent = agents.get(role)
        make = getattr(agent, "fused_counter", None)
        if make is None:
            return None
        obs = protocol.observe(state0, role)
        assert isinstance(obs, NegotiationObservation)
        kernel = make(obs)
        if kernel is None:
            return None
        kernels[role] = kernel
    bound = max_rounds if max_rounds is not None else 1 << 62
    k = cfg.stagnation_rounds
    eps = cfg.stagnation_epsilon
    utility = protocol._utility
    monotonic = time.monotonic

    def play(state: NegotiationState, events: list[Event], t0: float) -> NegotiationState:
        cur = state.current
        if (state.phase != "respond" or cur is None or state.counters
                or state.suggestion is not None):
            return state
        rnd = state.round
        history = state.history
        before = history[-2] if len(history) > 1 else None  # the record before ``cur``
        stagnant = state.stagnant
        made: list[OfferRecord] = []  # the records of the rounds played, appended at the end
        while rnd < bound:  # a counter-offer opens round rnd + 1, within the bound
            role = parties[rnd % 2]  # the next proposer: the responder, in turn order
            if role == cur.party:
                break
            others = (cur.index,) if before is None or before.party == role else \
                (before.index, cur.index)
            try:
                move = kernels[role](rnd, cur.index, others)
            except Exception:  # the general loop asks act_now, and logs a crash as one
                break
            if move is None:
                break  # not a counter-offer: the general loop plays this round
            if k > 0:  # the stagnation rule counts this round (AlternatingOffers._stagnation)
                if made:
                    history = extended(history, made)
                    made = []
                prev = previous_of(history, cur)
                if prev is None or utility(cur.party, prev) - utility(cur.party, cur) > eps:
                    count = 0  # a first offer, or a concession: the count starts again
                else:
                    count = stagnant + 1
                    if count >= k:
                        break  # it fires: the general loop plays this round
                stagnant = count
            counter = move.counter
            assert counter is not None  # a counter-offer, by the kernel's contract
            pkg = counter.package
            rec = OfferRecord(rnd + 1, role, pkg, pkg.index, "counter")
            # Reject.to_dict() of a counter-offer of an outcome (a dict), built here
            logged = {"kind": "reject", "counter": {
                "kind": "offer", "package": dict(pkg), "message": counter.message},
                "message": move.message} if type(move) is Reject and type(counter) is Offer \
                else move.to_dict()
            events.append(Event(len(events), rnd, role, "move", logged, None, None, {},
                                monotonic() - t0))
            made.append(rec)
            before = cur
            cur = rec
            rnd += 1
        if rnd == state.round:
            return state
        history = extended(history, made)
        latest = dict(state.latest)
        if rnd > state.round + 1:
            assert before is not None
            latest[before.party] = before
        latest[cur.party] = cur
        return _evolved(state, {
            "verdicts": {}, "counters": {}, "round": rnd, "phase": "respond",
            "proposer": cur.party, "current": cur, "history": history, "latest": latest,
            "turn_messages": 0, "stagnant": stagnant})

    return play


__all__ = ["Fused", "fused_rounds"]
