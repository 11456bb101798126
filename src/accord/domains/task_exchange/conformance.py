"""The conformance kit of task exchange (:class:`~accord.protocols.kit.ProtocolKit`).

Episodes cycle through the built-in scenarios, both strategies (``utility-aware``
validates every proposal, ``baseline`` only the final-turn one) and turn limits of 2 to 10.

Random legal moves, by phase: on the private first turn any consideration text (or an
unparseable reply: nothing is forwarded); when proposing, a valid split of the atomic
tasks (as an offer, or as a ``<REJECT>`` with a counter-proposal); when answering, an
accept, or a reject with a valid counter-proposal; on the last answer, accept or reject
with or without any counter. On the baseline's unchecked turns every reply of the
negotiation's vocabulary goes through: invalid proposals, plain text, bare rejects and
unparseable replies. Random illegal moves: a proposal or answer on the private first turn,
accepting with nothing on the table, a move kind the negotiation does not know (walk,
decide, action, suggest), and on checked turns: plain text without a proposal, a bare
reject, or a proposal naming an unknown task, an unknown agent, overlapping or
incomplete splits, an agent left empty. An unparseable reply must be refused exactly on
checked turns (``refuses_malformed``). The baseline may end with status ``error`` when an
unchecked invalid proposal is accepted (``invalid_final_proposal``; vetted by
:func:`check_result`).

Privacy (seed 000, A.2): each agent's utility table (raw scores and normalised
utilities), its preference text and its profile are private; the universe, both original
main tasks and the public dialogue are shared.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from accord.core.moves import (
    Accept,
    Action,
    Decide,
    Malformed,
    Message,
    Move,
    Offer,
    Reject,
    Suggest,
    Walk,
)
from accord.domains.task_exchange.load import builtin_scenarios, get_scenario
from accord.domains.task_exchange.protocol import (
    STRATEGIES,
    TaskExchangeObservation,
    TaskExchangeProtocol,
)
from accord.domains.task_exchange.scenario import PrivateView
from accord.domains.task_exchange.validation import assignment_masks
from accord.protocols.base import Observation, Protocol
from accord.protocols.engine import EpisodeResult
from accord.protocols.kit import ProtocolKit, observation_check, result_check

TURN_LIMITS = (2, 3, 5, 10)
"""Turn limits the episodes cycle through (2: the first proposal is the last)."""

WORDS = ("I", "can", "take", "the", "search", "tasks", "you", "keep", "images", "deal")


def _text(rng: np.random.Generator) -> str:
    return " ".join(str(w) for w in rng.choice(WORDS, size=int(rng.choice((1, 5, 40)))))


def checked(obs: TaskExchangeObservation) -> bool:
    """Whether the proposal this reply would make is validated."""
    return obs.strategy == "utility-aware" or obs.turn >= obs.turn_limit


def refuses_malformed(obs: Observation) -> bool:
    """An unparseable reply is refused on checked turns after the private first one."""
    assert isinstance(obs, TaskExchangeObservation)
    return obs.phase != "consider" and checked(obs)


def _view(obs: TaskExchangeObservation) -> PrivateView:
    assert obs.view is not None, "a task-exchange observation always carries the view"
    return obs.view


def _valid(obs: TaskExchangeObservation, rng: np.random.Generator) -> Offer:
    view = _view(obs)
    uni = view.universe
    mine = int(rng.integers(1, uni.full))
    return Offer({view.role: uni.description(mine), view.partner: uni.description(uni.full ^ mine)},
                 message=None if rng.random() < 0.7 else _text(rng))


def _invalid(obs: TaskExchangeObservation, rng: np.random.Generator) -> Offer:
    view = _view(obs)
    uni, me, you = view.universe, view.role, view.partner
    some = int(rng.integers(1, uni.full))
    flaw = int(rng.integers(5))
    if flaw == 0:  # unknown task
        return Offer({me: "do everything at once, please", you: uni.description(uni.full ^ some)})
    if flaw == 1:  # overlap
        return Offer({me: uni.description(uni.full), you: uni.description(some)})
    if flaw == 2:  # an agent left empty
        return Offer({me: uni.description(uni.full)})
    if flaw == 3 and uni.n >= 3:  # an atomic task nobody does
        a, b = (int(x) for x in rng.choice(uni.n, size=2, replace=False))
        return Offer({me: uni.description(1 << a), you: uni.description(1 << b)})
    return Offer({me: uni.description(some), you: uni.description(uni.full ^ some),
                  "carol": uni.description(some)})  # an unknown agent


def _any(obs: TaskExchangeObservation, rng: np.random.Generator) -> Offer:
    return _valid(obs, rng) if rng.random() < 0.5 else _invalid(obs, rng)


def _garbled(rng: np.random.Generator) -> Malformed:
    return Malformed("missing_proposal_close_tag", "close your proposal with </PROPOSAL>",
                     raw="<PROPOSAL>{" + _text(rng))


def legal_move(obs: Observation, rng: np.random.Generator) -> Move:
    """A random move task exchange accepts from ``obs``."""
    assert isinstance(obs, TaskExchangeObservation)
    r = rng.random()
    if obs.phase == "consider":
        return Message(_text(rng) if r < 0.9 else "") if r < 0.95 else _garbled(rng)
    if obs.final_response:
        if r < 0.4:
            return Accept()
        if r < 0.7:
            return Reject()
        return Reject(counter=_any(obs, rng)) if r < 0.85 else _any(obs, rng)
    if not checked(obs):  # the baseline forwards every reply unchecked
        if obs.phase == "respond" and r < 0.25:
            return Accept()
        pick = int(rng.integers(5))
        if pick == 0:
            return _any(obs, rng)
        if pick == 1:
            return Reject(counter=_any(obs, rng) if rng.random() < 0.5 else None)
        if pick == 2:
            return Message(_text(rng))
        if pick == 3:
            return _garbled(rng)
        return _valid(obs, rng)
    if obs.phase == "respond" and r < 0.3:
        return Accept(message=None if rng.random() < 0.5 else _text(rng))
    offer = _valid(obs, rng)
    return offer if rng.random() < 0.5 else Reject(counter=offer)


def illegal_move(obs: Observation, rng: np.random.Generator) -> Move:
    """A random move task exchange must refuse from ``obs``."""
    assert isinstance(obs, TaskExchangeObservation)
    foreign: tuple[Move, ...] = (Walk("bye"), Decide({"x": 1}), Action("accept"),
                                 Suggest({"x": 1}))
    choice = int(rng.integers(4))
    if choice == 0:
        return foreign[int(rng.integers(len(foreign)))]
    if obs.phase == "consider":
        return (Accept(), _valid(obs, rng), Reject(counter=_valid(obs, rng)))[choice - 1]
    if obs.phase == "propose" and not checked(obs):
        return Accept()
    if obs.final_response:
        return Message(_text(rng))
    if not checked(obs):
        return foreign[int(rng.integers(len(foreign)))]
    if choice == 1:
        nothing: tuple[Move, ...] = (Message(_text(rng)), Reject(), Reject(message="no"))
        if obs.phase == "propose":
            nothing += (Accept(),)
        return nothing[int(rng.integers(len(nothing)))]
    bad = _invalid(obs, rng)
    return bad if choice == 2 else Reject(counter=bad)


def check_observation(protocol: TaskExchangeProtocol, role: str, obs: Observation) -> None:
    """An agent sees its own utility table, the shared universe and the public dialogue."""
    assert isinstance(obs, TaskExchangeObservation), f"{role} got {type(obs).__name__}"
    view = _view(obs)
    own = protocol.scenario.profile(role)
    if view.role != role or view.utilities is not own.utilities:
        raise AssertionError(f"{role}'s view does not carry its own utility table")
    if view.universe is not protocol.scenario.universe:
        raise AssertionError(f"{role}'s view carries another task universe")
    if (obs.table is not None) != (obs.phase == "respond"):
        raise AssertionError(f"{role} sees a proposal on the table outside its answer")
    if any(h.kind == "consider" for h in obs.history):
        raise AssertionError(f"{role} sees private consideration in the dialogue")


def check_result(protocol: TaskExchangeProtocol, res: EpisodeResult) -> None:
    """Agreed splits are valid and scored; disagreement keeps the original tasks."""
    rec, scenario = res.record, protocol.scenario
    uni = scenario.universe
    if res.status == "agreement":
        alloc = {r: int(a["mask"], 2) for r, a in rec["allocation"].items()}
        if alloc[scenario.roles[0]] & alloc[scenario.roles[1]] or (
                alloc[scenario.roles[0]] | alloc[scenario.roles[1]]) != uni.full:
            raise AssertionError(f"agreed allocation {rec['allocation']} is not a split")
        for role, mask in alloc.items():
            if rec["utilities"][role] != float(scenario.utility(role, mask)):
                raise AssertionError(f"{role}'s recorded utility disagrees with its table")
    elif res.status == "no_deal":
        alloc = {r: int(a["mask"], 2) for r, a in rec["allocation"].items()}
        if res.reason == "turn_limit" and alloc != scenario.initial:
            raise AssertionError("without agreement each agent must keep its main task")
    elif res.reason == "invalid_final_proposal":
        if protocol.strategy != "baseline":
            raise AssertionError("utility-aware accepted an invalid proposal")
        notes = [e for e in res.trajectory.of_kind("note") if e.reason == "final_check_failed"]
        if not notes or rec["allocation"] is not None:
            raise AssertionError("a failed final check must be noted and allocate nothing")
    for p in rec["proposals"]:
        if p["valid"] != (assignment_masks(
                {r: (uni.description(int(m, 2)),) for r, m in (p["masks"] or {}).items()},
                uni, scenario.roles) is not None):
            raise AssertionError(f"proposal of turn {p['turn']} is mislabelled")


def kit(scenarios: Sequence[str] | None = None) -> ProtocolKit:
    """The kit for task exchange on ``scenarios`` (default: the built-in ones)."""
    names = list(scenarios) if scenarios is not None else builtin_scenarios()
    if not names:
        raise ValueError("the task-exchange kit needs at least one scenario")

    def make(i: int) -> Protocol[Any]:
        n = len(TURN_LIMITS)
        return TaskExchangeProtocol(get_scenario(names[(i // (2 * n)) % len(names)]),
                                    STRATEGIES[(i // n) % len(STRATEGIES)],
                                    TURN_LIMITS[i % n])

    def private(protocol: Protocol[Any], role: str) -> Sequence[object]:
        assert isinstance(protocol, TaskExchangeProtocol)
        prof = protocol.scenario.profile(role)
        return (prof, prof.utilities, prof.raw_scores, prof.preference)

    return ProtocolKit(
        name="task-exchange", make=make, legal=legal_move, illegal=illegal_move,
        private=private, max_rounds=max(TURN_LIMITS), refuses_malformed=refuses_malformed,
        error_reasons=frozenset({"invalid_final_proposal"}),
        check_observation=observation_check(TaskExchangeProtocol, check_observation),
        check_result=result_check(TaskExchangeProtocol, check_result))


__all__ = ["check_observation", "check_result", "checked", "illegal_move", "kit",
           "legal_move", "refuses_malformed"]
