"""Forking an episode: replay a stored episode's first rounds, then play on from round k.

A :class:`ForkPlan` holds the parent's logged turns before the fork round ``at``. While a
plan is active (:func:`forking`), :func:`accord.protocols.engine.run_episode` seats every
agent behind a :class:`PrefixAgent`:

* the plan is first **replayed through the protocol** (:func:`replay`): each logged move
  must be the move of the role the protocol asks, in the round it says, and legal there
  (:func:`~accord.protocols.engine.check_move`). A log that does not follow the protocol
  (a tampered or truncated store) is a :class:`ForkError` naming the round, the role and
  why, before any agent is asked anything: the log is validated, never trusted;
* in each replayed turn the seat's agent acts on the observation it would have had (so its
  own state is what it would have been: an LLM agent's conversation holds the turn's prompt
  and, as its own answer, the reply the parent's model gave - served from the log by
  :mod:`accord.llm.replay`, never from the network -, a strategy's memory and random
  stream advance as in the parent), and the logged move is what the protocol gets;
* from round ``at`` on, every agent plays live. The first live turn leaves a ``fork``
  note in the trajectory (parent, round, the seats that changed).

A termination judge is not asked during the replayed rounds (the parent went on through
them). With the parent's agents and seed, the fork reproduces the parent exactly for code
agents and for LLM agents whose answers are cached; with another agent on a seat the
prefix is identical and what follows is that agent's play.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from accord.core.moves import Move, move_from_dict
from accord.core.names import unknown_name
from accord.protocols.agent import Agent
from accord.protocols.base import Observation, Protocol, Termination
from accord.protocols.judge import JudgeVerdict, RuleJudge, TerminationJudge


class ForkError(ValueError):
    """A fork that cannot be made: a bad round, or a parent log the protocol refuses."""


@dataclass(frozen=True)
class LoggedTurn:
    """One accepted move of the parent, with the model replies of that attempt."""

    round: int
    party: str
    move: Mapping[str, Any]
    #: public text of the model calls of the accepted attempt, in order (LLM seats)
    replies: tuple[str, ...] = ()


@dataclass(frozen=True)
class ForkPlan:
    """What a fork replays: the parent's turns before round ``at`` (see the module doc)."""

    parent: str
    at: int
    turns: tuple[LoggedTurn, ...]
    #: the seats whose agent is not the parent's (the fork note names them)
    changed: tuple[str, ...] = ()
    #: replay the whole log (an export): the parent may end within it, and a seat asked
    #: after its last logged move raises :class:`ReplayDone` instead of playing live
    whole: bool = False
    #: called with the seated agents (role -> agent) before the episode starts
    on_seated: Callable[[dict[str, Agent]], None] | None = field(default=None, compare=False)


def turns_from_events(events: Sequence[Mapping[str, Any]], at: int) -> tuple[LoggedTurn, ...]:
    """The parent's accepted moves before round ``at`` (``events``: stored trajectory
    dicts), each with the replies of its party's model calls since its last refused
    attempt (the answer that became the move)."""
    pending: dict[str, list[str]] = {}
    turns: list[LoggedTurn] = []
    for ev in events:
        kind, party = ev.get("kind"), ev.get("party")
        rnd = ev.get("round")
        if not isinstance(rnd, int) or party is None:
            continue
        if kind == "note" and ev.get("reason") == "llm_call":
            reply = (ev.get("data") or {}).get("reply")
            pending.setdefault(str(party), []).append(reply if isinstance(reply, str) else "")
        elif kind == "invalid":
            pending.pop(str(party), None)
        elif kind == "move":
            replies = tuple(pending.pop(str(party), []))
            if rnd >= at:
                break
            move = ev.get("move")
            if not isinstance(move, Mapping):
                raise ForkError(f"the parent's log has a move of {party} in round {rnd} "
                                "without its content")
            turns.append(LoggedTurn(rnd, str(party), move, replies))
    return tuple(turns)


def rounds_played(events: Sequence[Mapping[str, Any]]) -> int:
    """The last round in which the parent logged a move (0: none)."""
    return max((e["round"] for e in events
                if e.get("kind") == "move" and isinstance(e.get("round"), int)), default=0)


def replay(protocol: Protocol[Any], plan: ForkPlan) -> dict[str, deque[tuple[LoggedTurn, Move]]]:
    """Validate ``plan`` against ``protocol`` and return each role's queue of turns.

    Pure: runs the protocol from its initial state through the logged moves, as the
    engine would. Raises :class:`ForkError` on the first move that is not the protocol's
    (wrong role or round, illegal, unreadable) and when the parent ended before ``at``.
    """
    from accord.protocols.engine import check_move

    state = protocol.initial_state()
    queues: dict[str, deque[tuple[LoggedTurn, Move]]] = {}
    todo = deque(plan.turns)
    while todo:
        if protocol.termination(state) is not None:
            raise ForkError(f"the parent episode ended before round {plan.at}; its log goes "
                            f"on with a move of {todo[0].party} in round {todo[0].round}")
        rnd = protocol.progress(state).round
        roles = list(protocol.to_move(state))
        moves: dict[str, Move] = {}
        for role in roles:
            if not todo:
                raise ForkError(f"the parent's log stops inside round {rnd}: {role} has no "
                                f"move before round {plan.at}")
            turn = todo.popleft()
            if turn.party not in roles or turn.party in moves:
                raise ForkError(f"the parent's log does not follow the protocol: round {rnd} "
                                f"asks {', '.join(roles)}, the log has a move of "
                                f"{turn.party}")
            if turn.round != rnd:
                raise ForkError(f"the parent's log does not follow the protocol: the move of "
                                f"{turn.party} is logged in round {turn.round}, the protocol "
                                f"is in round {rnd}")
            try:
                move = move_from_dict(turn.move)
            except (KeyError, TypeError, ValueError) as exc:
                raise ForkError(f"the parent's move of {turn.party} in round {rnd} cannot be "
                                f"read: {exc}") from None
            invalid = check_move(protocol, state, turn.party, move)
            if invalid is not None:
                raise ForkError(f"the parent's move of {turn.party} in round {rnd} is not "
                                f"legal ({invalid.reason}: {invalid.feedback}); the stored "
                                "log was changed or comes from another protocol version")
            moves[turn.party] = move
            queues.setdefault(turn.party, deque()).append((turn, move))
        state, _ = protocol.apply(state, moves)
    if protocol.termination(state) is not None and not plan.whole:
        raise ForkError(f"the parent episode ended before round {plan.at}: nothing is left "
                        "to play after its log")
    return queues


class PrefixAgent(Agent):
    """A seat during a fork: replays its logged turns through the agent, then plays live."""

    def __init__(self, inner: Agent, role: str, queue: deque[tuple[LoggedTurn, Move]],
                 shared: _ForkState) -> None:
        self.inner, self.role, self.queue, self.shared = inner, role, queue, shared
        self.name = getattr(inner, "name", "agent")
        self._notes: list[dict[str, Any]] = []

    def reset(self, rng: Any = None) -> None:
        """Agents are reset by the domain before the episode; nothing to forget here."""

    def describe(self) -> str:
        """The seated agent's label."""
        return self.inner.describe()

    async def act(self, observation: Observation) -> Move:
        """A replayed turn (the agent acts on it, the logged move stands) or a live one."""
        if self.queue:
            turn, move = self.queue.popleft()
            if observation.feedback is not None or observation.round != turn.round:
                raise ForkError(f"replaying {self.role}'s move of round {turn.round}: the "
                                "protocol did not accept it again")
            if getattr(self.inner, "replays_turns", True):
                await self._shadow(observation, turn, move)
            return move
        if self.shared.plan.whole:
            raise ReplayDone(self.role)
        self.shared.go_live(self)
        return await self.inner.act(observation)

    async def _shadow(self, obs: Observation, turn: LoggedTurn, move: Move) -> None:
        """Let the agent take the turn it would have taken; its answer is not used.

        An LLM agent's calls are answered with the parent's logged replies; past them (the
        parent's seat was not played by a model), with the logged move written as this
        agent's own reply (its ``reply_for(move, observation)``, when it has one)."""
        from accord.llm.replay import REPLIES, Replies

        writer = getattr(self.inner, "reply_for", None)
        fallback = writer(move, obs) if callable(writer) else None
        token = REPLIES.set(Replies(self.role, turn.replies, fallback))
        try:
            await self.inner.act(obs)
        finally:
            REPLIES.reset(token)

    def drain_notes(self) -> list[dict[str, Any]]:
        """The agent's notes (and the fork note on the first live turn)."""
        notes, self._notes = self._notes, []
        return notes + self.inner.drain_notes()

    def usage(self) -> dict[str, Any]:
        """The seated agent's usage (replayed calls cost nothing)."""
        return self.inner.usage()


class _ForkState:
    """What the seats of one fork share: the plan and whether the fork note was left."""

    def __init__(self, plan: ForkPlan) -> None:
        self.plan = plan
        self.live = False

    def go_live(self, seat: PrefixAgent) -> None:
        if not self.live:
            self.live = True
            seat._notes.append({"name": "fork", "data": {
                "parent": self.plan.parent, "at": self.plan.at,
                "changed": list(self.plan.changed)}})


class PrefixJudge(TerminationJudge):
    """The episode's judge, not asked while the parent's rounds are replayed."""

    def __init__(self, inner: TerminationJudge, seats: Sequence[PrefixAgent]) -> None:
        self.inner, self.seats = inner, seats
        self.name = inner.name

    async def judge(self, view: dict[str, Any], proposed: Termination | None,
                    bounds: dict[str, Any]) -> JudgeVerdict:
        """``continue`` during the replayed rounds (the parent went on), then the judge's."""
        if proposed is None and any(s.queue for s in self.seats):
            return JudgeVerdict("continue", "replayed round of the parent episode")
        return await self.inner.judge(view, proposed, bounds)

    def usage(self) -> dict[str, Any]:
        """The inner judge's usage."""
        return self.inner.usage()


#: the fork being run in this context, if any (set by :func:`forking`)
_PLAN: ContextVar[ForkPlan | None] = ContextVar("accord_fork_plan", default=None)


@contextmanager
def forking(plan: ForkPlan) -> Iterator[ForkPlan]:
    """Run the episodes started inside this block as forks of ``plan``."""
    token = _PLAN.set(plan)
    try:
        yield plan
    finally:
        _PLAN.reset(token)


def take() -> ForkPlan | None:
    """The plan of the fork being run here, or ``None``; taken, so that an episode run
    inside this one (none today) would not be forked too."""
    plan = _PLAN.get()
    if plan is not None:
        _PLAN.set(None)
    return plan


class ReplayDone(BaseException):
    """A whole-log replay (:attr:`ForkPlan.whole`) reached the end of the log while the
    protocol still asks for a move: the caller has what it replayed for."""


class SeatsProbe(BaseException):
    """Raised by :func:`seat` for a probe plan (``at=0``): carries the protocol's roles."""

    def __init__(self, roles: tuple[str, ...]) -> None:
        super().__init__("seats probe")
        self.roles = roles


def seat(protocol: Protocol[Any], agents: Mapping[str, Agent], judge: TerminationJudge,
         plan: ForkPlan) -> tuple[dict[str, Agent], TerminationJudge]:
    """The agents and judge of a forked episode (see the module doc)."""
    if plan.at <= 0:
        raise SeatsProbe(tuple(protocol.parties))
    unknown = sorted({t.party for t in plan.turns} - set(agents))
    if unknown:
        raise ForkError(f"the parent's log has moves of {', '.join(unknown)}, a role this "
                        f"episode does not have ({unknown_name('role', unknown[0], agents)})")
    queues = replay(protocol, plan)
    shared = _ForkState(plan)
    seats = [PrefixAgent(agent, role, queues.get(role, deque()), shared)
             for role, agent in agents.items()]
    if not isinstance(judge, RuleJudge):  # the rule judge is never asked while play goes on
        judge = PrefixJudge(judge, seats)
    if plan.on_seated is not None:
        plan.on_seated(dict(agents))
    return {s.role: s for s in seats}, judge


__all__ = ["ForkError", "ForkPlan", "LoggedTurn", "PrefixAgent", "PrefixJudge", "ReplayDone",
           "SeatsProbe", "forking", "replay", "rounds_played", "seat", "take",
           "turns_from_events"]
