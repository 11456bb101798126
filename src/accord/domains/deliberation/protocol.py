"""The deliberation protocol (paper Algorithm 1) as an accord state machine.

Agents speak in a fixed order, one utterance per turn, for at most ``max_rounds``
rounds. Each turn is one move:

* ``Offer(package, message)`` - put a proposal on the table (a menu as ``{dish: 1}`` or a
  list; an allocation as ``{task: agent}``) and say something;
* ``Message(text)`` - talk without proposing;
* ``Accept(message)`` - accept the proposal currently on the table (made by someone else);
* ``Decide(decision, message)`` - submit the final decision (leader mode: leader only;
  single mode: the only move).

Decision mechanisms: ``symmetric`` (menu design) ends when every other party has accepted
the current proposal - with two agents, when the partner accepts it; ``leader`` (task
allocation) ends only when the leader decides (``Decide``, or ``Accept`` of the proposal
on the table) - workers' accepts are recorded but end nothing; ``single`` (centralized
baseline) is one ``Decide``. Every utterance is cut to ``max_chars`` characters before
anyone else sees it. Each role observes only its own private observation plus the
shared instance information and the dialog. Feasibility is *not* checked here (an
infeasible decision is a legitimate, zero-reward outcome); only the proposal's shape is
(known dishes / tasks / agents), with targeted feedback.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from accord.core.moves import Accept, Decide, Message, Move, Offer
from accord.protocols.base import (
    Invalid,
    Note,
    Observation,
    Progress,
    Protocol,
    Termination,
)
from accord.protocols.stagnation import talk_detail, talk_streaks

Mode = Literal["symmetric", "leader", "single"]
Normalizer = Callable[[Any], tuple[Any, str | None]]
"""Turns a raw proposal into its canonical JSON form, or returns ``(None, problem)``."""


@dataclass(frozen=True, slots=True)
class Utterance:
    """One turn of the dialog as every party sees it (after truncation)."""

    round: int
    speaker: str
    kind: str
    text: str
    proposal: Any = None
    truncated: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"round": self.round, "speaker": self.speaker, "kind": self.kind,
                "text": self.text, "proposal": self.proposal, "truncated": self.truncated}


@dataclass(frozen=True, slots=True)
class DeliberationObservation(Observation):
    """A role's view: shared instance info, its *own* private observation and the dialog.

    ``current`` is ``(proposer, proposal)`` on the table; ``proposals`` the latest proposal
    of each party; ``merged`` is true when ``private`` is the whole team's merged
    observation (centralized and oracle baselines).
    """

    setting: str = ""
    mode: str = "symmetric"
    leader: str | None = None
    parties: tuple[str, ...] = ()
    shared: Mapping[str, Any] = field(default_factory=dict)
    private: Mapping[str, Any] = field(default_factory=dict)
    dialog: tuple[Utterance, ...] = ()
    proposals: Mapping[str, Any] = field(default_factory=dict)
    current: tuple[str, Any] | None = None
    accepted_by: frozenset[str] = frozenset()
    max_rounds: int = 6
    max_chars: int = 1000
    tools: bool = False
    merged: bool = False


@dataclass(frozen=True)
class DeliberationState:
    """Protocol state: round (from 1), whose turn, dialog, proposals and the outcome."""

    round: int = 1
    turn: int = 0
    dialog: tuple[Utterance, ...] = ()
    proposals: Mapping[str, Any] = field(default_factory=dict)
    current: tuple[str, Any] | None = None
    accepted_by: frozenset[str] = frozenset()
    offers: int = 0
    decision: Any = None
    decided_by: str | None = None
    ended: str | None = None
    #: consecutive message-only turns per party; ``stalled``: who reached the stagnation
    #: rule's K
    talk: Mapping[str, int] = field(default_factory=dict)
    stalled: str | None = None


class DeliberationProtocol(Protocol[DeliberationState]):
    """Algorithm 1 with symmetric, leader-based or single-decision termination."""

    def __init__(
        self,
        parties: Sequence[str],
        shared: Mapping[str, Any],
        private: Mapping[str, Mapping[str, Any]],
        normalize: Normalizer,
        *,
        mode: Mode = "symmetric",
        leader: str | None = None,
        max_rounds: int = 6,
        max_chars: int = 1000,
        tools: bool = False,
        merged: bool = False,
        stagnation_rounds: int = 0,
    ) -> None:
        if mode == "leader" and leader not in parties:
            raise ValueError(f"leader {leader!r} must be one of the parties {list(parties)}")
        if mode == "single" and len(parties) != 1:
            raise ValueError("single-decision mode needs exactly one party")
        if set(private) != set(parties):
            raise ValueError("private observations must be given for exactly the parties")
        if max_rounds < 1 or max_chars < 1:
            raise ValueError("max_rounds and max_chars must be positive")
        if stagnation_rounds < 0:
            raise ValueError(f"stagnation_rounds must be 0 (off) or more, got {stagnation_rounds}")
        #: K of the message-only stagnation rule (0: off)
        self.stagnation_rounds = stagnation_rounds
        self.parties = tuple(parties)
        self.shared = dict(shared)
        self.private = {p: dict(o) for p, o in private.items()}
        self.normalize = normalize
        self.mode: Mode = mode
        self.leader = leader if mode == "leader" else None
        self.max_rounds = max_rounds
        self.max_chars = max_chars
        self.tools = tools
        self.merged = merged

    def initial_state(self) -> DeliberationState:
        return DeliberationState()

    def to_move(self, state: DeliberationState) -> Sequence[str]:
        return () if state.ended else (self.parties[state.turn],)

    def legal(self, state: DeliberationState, role: str) -> tuple[str, ...]:
        """Move kinds ``role`` may play now."""
        if self.mode == "single":
            return ("decide",)
        moves = ["offer", "message"]
        if state.current is not None and state.current[0] != role:
            moves.append("accept")
        if role == self.leader:
            moves.append("decide")
        return tuple(moves)

    def observe(self, state: DeliberationState, role: str) -> DeliberationObservation:
        return DeliberationObservation(
            role=role, round=min(state.round, self.max_rounds), legal=self.legal(state, role),
            setting=str(self.shared.get("setting", "")), mode=self.mode, leader=self.leader,
            parties=self.parties, shared=self.shared, private=self.private[role],
            dialog=state.dialog, proposals=dict(state.proposals), current=state.current,
            accepted_by=state.accepted_by, max_rounds=self.max_rounds,
            max_chars=self.max_chars, tools=self.tools, merged=self.merged)

    def validate(self, state: DeliberationState, role: str, move: Move) -> Invalid | None:
        if state.ended or role != self.parties[state.turn]:
            return Invalid("not_your_turn", f"it is not {role}'s turn")
        legal = self.legal(state, role)
        kind = move.kind if isinstance(move, Offer | Message | Accept | Decide) else None
        if kind not in legal:
            if isinstance(move, Decide) and self.mode == "leader":
                return Invalid("not_leader", f"only the leader {self.leader} can make the final "
                               "decision; make a proposal (offer) or accept instead")
            if isinstance(move, Accept):
                return Invalid("nothing_to_accept", "there is no proposal from another agent "
                               "on the table to accept; make a proposal instead")
            return Invalid("illegal_move", f"{move.kind} is not allowed now; legal moves: "
                           f"{', '.join(legal)}")
        if isinstance(move, Message) and not move.text.strip():
            return Invalid("empty_message", "your message is empty; say something, make a "
                           "proposal (offer) or accept the one on the table")
        if isinstance(move, Offer | Decide):
            raw = move.package if isinstance(move, Offer) else move.decision
            _, problem = self.normalize(raw)
            if problem is not None:
                return Invalid("bad_proposal", problem)
        return None

    def _truncate(self, text: str | None) -> tuple[str, bool]:
        text = text or ""
        return (text[: self.max_chars], True) if len(text) > self.max_chars else (text, False)

    def apply(self, state: DeliberationState, moves: Mapping[str, Move]
              ) -> tuple[DeliberationState, list[Note]]:
        (role, move), = moves.items()
        notes: list[Note] = []
        raw_text = move.text if isinstance(move, Message) else getattr(move, "message", None)
        text, cut = self._truncate(raw_text)
        if cut:
            notes.append(Note("truncated", role, {"chars": len(raw_text or ""),
                                                  "limit": self.max_chars}))
        proposal = None
        s = state
        if isinstance(move, Offer):
            proposal, _ = self.normalize(move.package)
            s = replace(s, proposals={**s.proposals, role: proposal}, current=(role, proposal),
                        accepted_by=frozenset({role}), offers=s.offers + 1)
        elif isinstance(move, Accept):
            assert s.current is not None
            proposer, proposal = s.current
            s = replace(s, accepted_by=s.accepted_by | {role})
            everyone = s.accepted_by >= set(self.parties)
            if (self.mode == "symmetric" and everyone) or role == self.leader:
                s = replace(s, decision=proposal, decided_by=role)
            elif self.mode == "leader":
                notes.append(Note("worker_accept", role, {"proposer": proposer}))
        elif isinstance(move, Decide):
            proposal, _ = self.normalize(move.decision)
            s = replace(s, decision=proposal, decided_by=role)
        utter = Utterance(min(s.round, self.max_rounds), role, move.kind, text, proposal, cut)
        s = replace(s, dialog=(*s.dialog, utter))
        turn, rnd = s.turn + 1, s.round
        if turn == len(self.parties):
            turn, rnd = 0, rnd + 1
        ended = "decided" if s.decided_by is not None else (
            "max_rounds" if rnd > self.max_rounds else None)
        if self.stagnation_rounds > 0:
            talk = talk_streaks(s.talk, role, isinstance(move, Message))
            s = replace(s, talk=talk)
            if talk[role] >= self.stagnation_rounds and ended != "decided":
                notes.append(Note("stagnation", None, {"rule": "talk", "party": role,
                                                       "turns": talk[role]}))
                ended = "stagnation"
                s = replace(s, stalled=role)
        return replace(s, turn=turn, round=rnd, ended=ended), notes

    def termination(self, state: DeliberationState) -> Termination | None:
        if state.ended == "decided":
            return Termination("agreement", None, state.decided_by)
        if state.ended == "stagnation" and state.stalled is not None:
            return Termination("no_deal", "stagnation", state.stalled,
                               talk_detail(state.stalled, self.stagnation_rounds))
        if state.ended == "max_rounds":
            return Termination("no_deal", "max_rounds", None,
                               f"no decision within {self.max_rounds} rounds")
        return None

    def progress(self, state: DeliberationState) -> Progress:
        return Progress(round=state.round, offers=state.offers)

    def result(self, state: DeliberationState, termination: Termination) -> dict[str, Any]:
        return {
            "setting": self.shared.get("setting"), "mode": self.mode,
            "decision": state.decision if termination.status == "agreement" else None,
            "decided_by": state.decided_by,
            "rounds_used": min(state.round if state.turn else state.round - 1, self.max_rounds),
            "proposals": dict(state.proposals),
            "final_proposal": state.current[1] if state.current else None,
            "dialog": [u.to_dict() for u in state.dialog],
        }

    def public_view(self, state: DeliberationState) -> dict[str, Any]:
        return {"progress": state.round, "dialog": [u.to_dict() for u in state.dialog],
                "current": state.current, "mode": self.mode}


def proposal_normalizer(shared: Mapping[str, Any]) -> Normalizer:
    """Shape check for proposals of an instance (from its shared info)."""
    from accord.domains.deliberation.rewards import (
        DecisionFormatError,
        normalize_assignment,
        normalize_menu,
    )

    if shared["setting"] != "task-allocation":
        dishes = set(shared["dishes"])

        def menu(raw: Any) -> tuple[Any, str | None]:
            try:
                menu_ = normalize_menu(raw)
            except DecisionFormatError as exc:
                return None, str(exc)
            unknown = [d for d in menu_ if d not in dishes]
            if unknown:
                return None, f"unknown dishes {unknown}; choose from the candidate dishes"
            if len(set(menu_)) != len(menu_):
                return None, "a dish can appear only once in a menu"
            return list(menu_), None

        return menu
    tasks, agents = set(shared["tasks"]), list(shared["agents"])

    def allocation(raw: Any) -> tuple[Any, str | None]:
        try:
            alloc, doubled = normalize_assignment(raw, agents)
        except DecisionFormatError as exc:
            return None, str(exc)
        if doubled:
            return None, f"tasks {doubled} are assigned to more than one agent"
        bad_t = [t for t in alloc if t not in tasks]
        bad_a = sorted({a for a in alloc.values() if a not in agents})
        if bad_t or bad_a:
            return None, (f"unknown tasks {bad_t}" if bad_t else "") + \
                (f" unknown agents {bad_a}; agents are {agents}" if bad_a else "")
        return {t: alloc[t] for t in shared["tasks"] if t in alloc}, None

    return allocation
