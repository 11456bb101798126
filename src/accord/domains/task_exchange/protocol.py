"""The task-exchange negotiation as an accord protocol (seed 000, section 3, A.4, B, Figure 7).

Turn 1: both agents privately consider (nothing is forwarded). From Turn 2 the agents
alternate, first role first: the owner of turn t puts a proposal on the table; the other
agent answers it with ``<ACCEPT>`` (agreement at turn t) or ``<REJECT>`` plus its own
proposal, which is the proposal of turn t + 1. A reply without a proposal uses its turn
up. At the turn limit the last proposal gets a final ``<ACCEPT>``/``<REJECT>``; on
disagreement each agent keeps its original main task.

Validation (B.2) runs in :meth:`TaskExchangeProtocol.validate`, so the engine's retry loop
(``Bounds.max_retries``, K = 5) gives the proposer targeted feedback and ends the run with
status ``error`` when exceeded. Strategy ``utility-aware`` validates every proposal;
``baseline`` validates only the final-turn proposal, forwards earlier proposals unchecked,
and ends with ``error`` if the partner accepts an unchecked proposal that is invalid
(no valid allocation exists, so no utilities are computed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from accord.core.moves import Accept, Malformed, Message, Move, Offer, Reject
from accord.domains.params import DEFAULT_MAX_RETRIES
from accord.domains.task_exchange.llm.replies import Phase, format_move
from accord.domains.task_exchange.llm.templates import render_feedback
from accord.domains.task_exchange.scenario import PrivateView, Scenario
from accord.domains.task_exchange.validation import (
    assignment_masks,
    check_assignment,
    to_invalid,
)
from accord.protocols.base import Invalid, Note, Observation, Progress, Protocol, Termination
from accord.protocols.stagnation import talk_detail, talk_streaks

MOVES = (Accept, Reject, Offer, Message, Malformed)
"""The move kinds of the negotiation (what :func:`~.parser.parse_reply` produces)."""

Strategy = Literal["utility-aware", "baseline"]
STRATEGIES: tuple[str, ...] = ("utility-aware", "baseline")
"""The two negotiation strategies of Appendix B."""


@dataclass(frozen=True)
class Proposal:
    """A proposal that reached the table: who made it, its turn, and what it assigns.

    ``violation`` is ``None`` for a valid proposal; under the baseline strategy an
    unchecked invalid proposal keeps its primary pattern and feedback here.
    """

    proposer: str
    turn: int
    assignment: Mapping[str, tuple[str, ...]]
    text: str
    violation: str | None = None
    feedback: str | None = None


@dataclass(frozen=True)
class HistoryEntry:
    """One forwarded message: public text only (``<CONSIDER>`` never reaches the history)."""

    turn: int
    speaker: str
    kind: str
    text: str
    proposal: Mapping[str, tuple[str, ...]] | None = None


@dataclass(frozen=True)
class TaskExchangeState:
    """Protocol state; ``turn`` is the turn of the proposal on the table (or being made)."""

    turn: int = 1
    phase: Phase = "consider"
    mover: str | None = None
    table: Proposal | None = None
    history: tuple[HistoryEntry, ...] = ()
    proposals: tuple[Proposal, ...] = ()
    messages: Mapping[str, int] = field(default_factory=dict)
    outcome: str | None = None
    accepted: Proposal | None = None
    end_turn: int | None = None
    error: tuple[str, str, str] | None = None
    #: consecutive text-only turns per agent (no proposal, no answer); ``stalled``: who
    #: reached the stagnation rule's K
    talk: Mapping[str, int] = field(default_factory=dict)
    stalled: str | None = None


@dataclass(frozen=True, slots=True)
class TaskExchangeObservation(Observation):
    """What one agent sees: its private view, the public history and what is expected now.

    ``turn`` is the Global Turn shown in the prompt (the turn of the proposal this reply
    would make); ``final_response`` means only ``<ACCEPT>``/``<REJECT>`` remain;
    ``last_proposal`` means this reply's proposal is the final-turn proposal.
    """

    phase: Phase = "consider"
    turn: int = 1
    turn_limit: int = 10
    agent_turn: int = 1
    final_response: bool = False
    last_proposal: bool = False
    strategy: str = "utility-aware"
    max_retries: int = DEFAULT_MAX_RETRIES
    view: PrivateView | None = None
    table: Mapping[str, tuple[str, ...]] | None = None
    table_text: str | None = None
    history: tuple[HistoryEntry, ...] = ()


def move_assignment(move: Move) -> dict[str, tuple[str, ...]] | None:
    """The proposal carried by a move (Offer, Reject counter, or a Malformed that kept its JSON)."""
    offer = move.counter if isinstance(move, Reject) else move
    if isinstance(offer, Offer):
        return {str(r): (str(d),) for r, d in offer.package.items()}
    if isinstance(move, Malformed) and isinstance(move.details.get("proposal"), Mapping):
        return {str(r): tuple(v) for r, v in move.details["proposal"].items()}
    return None


class TaskExchangeProtocol(Protocol[TaskExchangeState]):
    """Alternating task-exchange proposals with per-turn (or final-turn) validation."""

    def __init__(self, scenario: Scenario, strategy: str = "utility-aware",
                 turn_limit: int | None = None,
                 max_retries: int = DEFAULT_MAX_RETRIES, stagnation_rounds: int = 0) -> None:
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}; use one of {', '.join(STRATEGIES)}")
        self.scenario = scenario
        self.strategy = strategy
        self.turn_limit = turn_limit if turn_limit is not None else scenario.turn_limit
        if self.turn_limit < 2:
            raise ValueError(f"turn_limit must be at least 2, got {self.turn_limit}")
        self.max_retries = max_retries
        self.parties = scenario.roles
        if stagnation_rounds < 0:
            raise ValueError(f"stagnation_rounds must be 0 (off) or more, got {stagnation_rounds}")
        #: K of the message-only stagnation rule (0: off): an agent whose last K turns were
        #: text without a proposal (forwarded unchecked under the baseline strategy) ends
        #: the episode without agreement
        self.stagnation_rounds = stagnation_rounds

    # -- state machine -------------------------------------------------------------------

    def initial_state(self) -> TaskExchangeState:
        return TaskExchangeState(messages={r: 0 for r in self.parties})

    def to_move(self, state: TaskExchangeState) -> Sequence[str]:
        if state.outcome is not None:
            return ()
        if state.phase == "consider":
            return self.parties
        assert state.mover is not None
        return (state.mover,)

    def _proposal_turn(self, state: TaskExchangeState) -> int:
        return state.turn + 1 if state.phase == "respond" else state.turn

    def observe(self, state: TaskExchangeState, role: str) -> TaskExchangeObservation:
        legal = {"consider": ("message",), "propose": ("offer",),
                 "respond": ("accept", "reject")}[state.phase]
        final_response = state.phase == "respond" and state.turn >= self.turn_limit
        shown = min(self._proposal_turn(state), self.turn_limit)
        table = state.table if state.phase == "respond" else None
        return TaskExchangeObservation(
            role=role, round=state.turn, legal=legal, phase=state.phase, turn=shown,
            turn_limit=self.turn_limit, agent_turn=state.messages.get(role, 0) + 1,
            final_response=final_response,
            last_proposal=not final_response and self._proposal_turn(state) == self.turn_limit,
            strategy=self.strategy, max_retries=self.max_retries,
            view=self.scenario.view(role),
            table=None if table is None else table.assignment,
            table_text=None if table is None else table.text,
            history=state.history)

    def _checks(self, state: TaskExchangeState) -> bool:
        """Whether this turn's proposal is validated (always, or only on the final turn)."""
        return self.strategy == "utility-aware" or self._proposal_turn(state) >= self.turn_limit

    def _check(self, assignment: Mapping[str, Sequence[str]]) -> Invalid | None:
        return to_invalid(check_assignment(assignment, self.scenario.universe, self.parties))

    def malformed(self, state: TaskExchangeState, role: str, move: Malformed) -> Invalid | None:
        """An unparseable reply: forwarded as raw text where proposals are not checked.

        Task exchange deliberately accepts ``Malformed`` on the private first turn and, under
        the baseline strategy, on every intermediate turn (the seed forwards the text
        unchecked); on a checked turn it is refused with the parser's reason, the feedback
        enriched with the masks when the reply kept its JSON proposal.
        """
        if state.outcome is not None:
            return _illegal("the negotiation is over.")
        if state.phase == "consider" or not self._checks(state):
            return None
        assignment = move_assignment(move)
        if assignment is not None:  # keep the reason, enrich the feedback with masks
            full = self._check(assignment)
            if full is not None and full.reason == move.reason:
                return full
        return Invalid(move.reason, move.feedback)

    def validate(self, state: TaskExchangeState, role: str, move: Move) -> Invalid | None:
        if state.outcome is not None:
            return _illegal("the negotiation is over.")
        if state.phase == "consider":
            if isinstance(move, Message):
                return None
            return _illegal("Turn 1 is private consideration; send no proposal or answer yet.")
        if not isinstance(move, MOVES):
            return _illegal(f"{move.kind} is not a move in this negotiation; answer with "
                            "<ACCEPT>, or <REJECT> and a <PROPOSAL>.")
        final_response = state.phase == "respond" and state.turn >= self.turn_limit
        if isinstance(move, Accept):
            if state.phase == "propose":
                return _illegal("there is no proposal on the table to accept; send your own "
                                "<PROPOSAL>.")
            return None
        if final_response and isinstance(move, Reject | Offer):
            return None  # the last answer needs no counter-proposal; any counter is ignored
        checking = self._checks(state)
        assignment = move_assignment(move)
        if assignment is None:
            if final_response:
                return _illegal("answer the final proposal with <ACCEPT> or <REJECT>.")
            if not checking:
                return None  # baseline, intermediate turn: forwarded as plain text
            return Invalid("missing_proposal_open_tag", render_feedback(
                "missing_proposal_open_tag", after_reject=isinstance(move, Reject),
                bare_json=False))
        return self._check(assignment) if checking else None

    def apply(self, state: TaskExchangeState,
              moves: Mapping[str, Move]) -> tuple[TaskExchangeState, list[Note]]:
        messages = dict(state.messages)
        for role in moves:
            messages[role] = messages.get(role, 0) + 1
        if state.phase == "consider":
            return replace(state, turn=2, phase="propose", mover=self.parties[0],
                           messages=messages), []
        (role, move), = moves.items()
        partner = self.scenario.partner(role)
        text = format_move(move, self.parties)
        notes: list[Note] = []
        if state.phase == "respond" and isinstance(move, Accept):
            entry = HistoryEntry(state.turn, role, "accept", text)
            taken = state.table
            assert taken is not None
            base = replace(state, messages=messages, history=(*state.history, entry),
                           end_turn=state.turn)
            if taken.violation is not None:  # baseline: the final check fails
                notes.append(Note("final_check_failed", taken.proposer,
                                  {"pattern": taken.violation, "turn": taken.turn}))
                detail = f"accepted proposal is invalid ({taken.violation}): {taken.feedback}"
                return replace(base, outcome="error",
                               error=(taken.proposer, "invalid_final_proposal", detail)), notes
            return replace(base, outcome="agreed", accepted=taken), notes
        if state.phase == "respond" and state.turn >= self.turn_limit:
            entry = HistoryEntry(state.turn, role, "reject", text)
            return replace(state, messages=messages, history=(*state.history, entry),
                           outcome="disagreed", end_turn=self.turn_limit), notes
        new_turn = self._proposal_turn(state)
        assignment = move_assignment(move)
        kind = "reject" if isinstance(move, Reject) or state.phase == "respond" else "proposal"
        if assignment is None:
            entry = HistoryEntry(new_turn, role, kind if isinstance(move, Reject) else "text",
                                 text)
            nxt = replace(state, messages=messages, history=(*state.history, entry), table=None)
            if self.stagnation_rounds > 0:
                talk = talk_streaks(state.talk, role, entry.kind == "text")
                nxt = replace(nxt, talk=talk)
                if talk[role] >= self.stagnation_rounds:
                    notes.append(Note("stagnation", None, {"rule": "talk", "party": role,
                                                           "turns": talk[role]}))
                    return replace(nxt, outcome="stalled", stalled=role,
                                   end_turn=new_turn), notes
            if new_turn + 1 > self.turn_limit:
                return replace(nxt, outcome="disagreed", end_turn=self.turn_limit), notes
            return replace(nxt, turn=new_turn + 1, phase="propose", mover=partner), notes
        if self.stagnation_rounds > 0:
            state = replace(state, talk=talk_streaks(state.talk, role, False))
        violations = check_assignment(assignment, self.scenario.universe, self.parties)
        violation = violations[0].reason if violations else None
        feedback = "\n".join(v.feedback for v in violations) if violations else None
        if violation is not None:
            notes.append(Note("unchecked_invalid", role, {"pattern": violation,
                                                          "turn": new_turn}))
        proposal = Proposal(role, new_turn, assignment, text, violation, feedback)
        entry = HistoryEntry(new_turn, role, kind, text, assignment)
        return replace(state, turn=new_turn, phase="respond", mover=partner, table=proposal,
                       proposals=(*state.proposals, proposal), messages=messages,
                       history=(*state.history, entry)), notes

    def termination(self, state: TaskExchangeState) -> Termination | None:
        if state.outcome == "agreed":
            return Termination("agreement")
        if state.outcome == "disagreed":
            return Termination("no_deal", "turn_limit", None,
                               f"no agreement by turn {self.turn_limit}")
        if state.outcome == "stalled" and state.stalled is not None:
            return Termination("no_deal", "stagnation", state.stalled,
                               talk_detail(state.stalled, self.stagnation_rounds))
        if state.outcome == "error" and state.error is not None:
            who, reason, detail = state.error
            return Termination("error", reason, who, detail)
        return None

    def progress(self, state: TaskExchangeState) -> Progress:
        return Progress(round=state.turn, offers=len(state.proposals))

    # -- records -------------------------------------------------------------------------

    def final_allocation(self, state: TaskExchangeState,
                         termination: Termination) -> dict[str, int] | None:
        """``role -> mask`` after the episode: the accepted split, the originals, or ``None``."""
        if termination.status == "error":
            return None
        if termination.status == "agreement" and state.accepted is not None:
            return assignment_masks(state.accepted.assignment, self.scenario.universe,
                                    self.parties)
        return dict(self.scenario.initial)

    def result(self, state: TaskExchangeState, termination: Termination) -> dict[str, Any]:
        status = {"agreement": "agreed", "no_deal": "disagreed", "error": "error"}[
            termination.status]
        uni = self.scenario.universe
        alloc = self.final_allocation(state, termination)
        turns = state.end_turn if state.end_turn is not None else min(
            self._proposal_turn(state), self.turn_limit)
        path = []
        for p in state.proposals:
            masks = assignment_masks(p.assignment, uni, self.parties) if p.violation is None \
                else None
            path.append({"turn": p.turn, "proposer": p.proposer, "valid": p.violation is None,
                         "pattern": p.violation,
                         "masks": None if masks is None else {r: uni.fmt(m)
                                                              for r, m in masks.items()}})
        return {
            "scenario": self.scenario.name,
            "strategy": self.strategy,
            "status": status,
            "turns": turns,
            "accepted_turn": state.accepted.turn if state.accepted is not None else None,
            "allocation": None if alloc is None else {
                r: {"mask": uni.fmt(m), "description": uni.description(m)}
                for r, m in alloc.items()},
            "utilities": None if alloc is None else {
                r: float(self.scenario.utility(r, m)) for r, m in alloc.items()},
            "proposals": path,
        }

    def public_view(self, state: TaskExchangeState) -> dict[str, Any]:
        return {"progress": state.turn, "phase": state.phase,
                "history": [{"turn": h.turn, "speaker": h.speaker, "text": h.text}
                            for h in state.history]}


def _illegal(problem: str) -> Invalid:
    return Invalid("illegal_move", render_feedback("illegal_move", problem=problem))


__all__ = [
    "STRATEGIES",
    "HistoryEntry",
    "Proposal",
    "Strategy",
    "TaskExchangeObservation",
    "TaskExchangeProtocol",
    "TaskExchangeState",
    "move_assignment",
]
