"""The episode loop: drives any :class:`~accord.protocols.base.Protocol` with agents.

The loop fits on one screen (DESIGN.md principle 5): ask the roles that must move
(concurrently when several), validate each move before anyone else sees it, let an
invalid mover retry with targeted feedback up to ``max_retries`` times inside its
turn, apply, log, ask the judge, check the bounds. A bound always wins.

Failures become records, never tracebacks: an agent (party or mediator) that raises,
or a judge that raises or answers something that is not a verdict, is logged as an
``agent_error`` event and ends the episode with status ``error`` naming the role
(``who`` is the role, or ``"judge"``) and the error text in ``detail``. An agent that
raises :class:`~accord.protocols.agent.AgentQuit` (a person who left) ends it as
``no_deal`` with reason ``quit`` naming the role.
"""

from __future__ import annotations

import contextvars
import dataclasses
import sys
import time
from collections.abc import Callable, Coroutine, Generator, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from accord.core.moves import Malformed, Move
from accord.core.trajectory import Event, Trajectory
from accord.protocols.agent import Agent, AgentQuit, acts_now
from accord.protocols.base import Invalid, Observation, Progress, Protocol, Termination
from accord.protocols.judge import DECISIONS, JUDGE, JudgeVerdict, RuleJudge, TerminationJudge

#: refused replies an agent may retry in one turn (the default of every domain's
#: ``max_retries``; a turn has ``max_retries + 1`` attempts)
DEFAULT_MAX_RETRIES = 5


@dataclass(frozen=True, slots=True)
class Bounds:
    """Hard limits (seed 002, V9): any ``None`` is unbounded."""

    max_rounds: int | None = None
    max_offers: int | None = None
    wall_clock: float | None = None
    max_retries: int = DEFAULT_MAX_RETRIES

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for judges and records."""
        return dataclasses.asdict(self)


@dataclass
class EpisodeResult:
    """Everything an episode produced: status, record, flags and the full log."""

    status: str
    reason: str | None
    who: str | None
    rounds: int
    record: dict[str, Any]
    flags: dict[str, Any]
    trajectory: Trajectory
    wall_time: float
    usage: dict[str, dict[str, Any]] = field(default_factory=dict)
    detail: str | None = None

    def summary(self) -> dict[str, Any]:
        """The record without the trajectory, JSON-ready."""
        return {
            "status": self.status,
            "reason": self.reason,
            "who": self.who,
            "rounds": self.rounds,
            "record": self.record,
            "flags": self.flags,
            "wall_time": self.wall_time,
            "usage": self.usage,
            "detail": self.detail,
        }


def check_move(protocol: Protocol[Any], state: Any, role: str, move: Move) -> Invalid | None:
    """``None`` if ``move`` is legal now, else why not: the engine's one validation step.

    A :class:`~accord.core.moves.Malformed` reply (text an LLM agent could not parse) goes
    to :meth:`Protocol.malformed <accord.protocols.base.Protocol.malformed>` - by default
    an :class:`~accord.protocols.base.Invalid` carrying the parser's reason and feedback,
    so the agent retries within its turn - and never reaches ``validate``; every other
    move goes to :meth:`Protocol.validate <accord.protocols.base.Protocol.validate>`.
    """
    if isinstance(move, Malformed):
        return protocol.malformed(state, role, move)
    return protocol.validate(state, role, move)


class _Failure(Exception):
    def __init__(self, termination: Termination) -> None:
        super().__init__(termination.detail or termination.reason)
        self.termination = termination


def _has_notes(agent: Agent) -> bool:
    """Whether ``agent`` may have notes to drain: not when it keeps the base class's
    ``drain_notes`` (which never has any); a wrapper that delegates is always drained."""
    return getattr(type(agent), "drain_notes", None) is not Agent.drain_notes or \
        "drain_notes" in getattr(agent, "__dict__", ())


#: sets an observation's ``max_attempts`` slot in place (the class is frozen)
_set_budget: Callable[[Observation, int], None] = vars(Observation)["max_attempts"].__set__


def _quit(log: Trajectory, rnd: int, role: str, exc: AgentQuit, t0: float) -> _Failure:
    """A person left: a clean no-deal naming them, not an error."""
    log.add(rnd, role, "note", reason="quit", feedback=str(exc), t=time.monotonic() - t0)
    return _Failure(Termination("no_deal", "quit", role, str(exc)))


def _crash(log: Trajectory, rnd: int, role: str, exc: Exception, t0: float) -> _Failure:
    """An agent crash ends the run cleanly, with its text."""
    detail = f"{type(exc).__name__}: {exc}"
    log.add(rnd, role, "agent_error", reason="agent_exception", feedback=detail,
            t=time.monotonic() - t0)
    return _Failure(Termination("error", "error", role, detail))


def _drain(log: Trajectory, rnd: int, role: str, agent: Agent, t0: float) -> None:
    for note in agent.drain_notes():
        log.add(rnd, role, "note", reason=note["name"], data=dict(note.get("data", {})),
                t=time.monotonic() - t0)


def _refused(obs: Observation, log: Trajectory, role: str, move: Move, invalid: Invalid,
             attempt: int, t0: float) -> Observation:
    """Log a refused attempt; the observation of the next attempt, with the feedback."""
    log.add(obs.round, role, "invalid", move=move.to_dict(), reason=invalid.reason,
            feedback=invalid.feedback, data={"attempt": attempt, **invalid.details},
            t=time.monotonic() - t0)
    return dataclasses.replace(obs, feedback=invalid, attempt=attempt + 1)


def _exhausted(obs: Observation, role: str, bounds: Bounds) -> _Failure:
    """Every attempt of the turn was refused: the episode ends as an error."""
    last = obs.feedback
    detail = f"{role} made {bounds.max_retries + 1} invalid attempts in one turn"
    if last is not None:  # the last rejection says what went wrong, without the log
        detail += f"; last: {last.reason}: {last.feedback}"
    return _Failure(Termination("error", "error", role, detail))


def _is_cancelled(exc: BaseException) -> bool:
    """Whether ``exc`` is asyncio's ``CancelledError`` (asyncio imported only if it is
    loaded already: nothing else could have raised one)."""
    asyncio = sys.modules.get("asyncio")
    return asyncio is not None and isinstance(exc, asyncio.CancelledError)


def _loop_running() -> bool:
    """Whether this thread runs an event loop (never when asyncio is not even imported)."""
    asyncio = sys.modules.get("asyncio")
    return asyncio is not None and asyncio.events._get_running_loop() is not None


def loop_free(agents: Mapping[str, Agent], judge: TerminationJudge, bounds: Bounds) -> bool:
    """Whether an episode never waits: every agent a code agent the engine asks without
    awaiting (:func:`~accord.protocols.agent.acts_now`), the rule judge and no wall clock.
    Such an episode runs to its end in one step of :func:`run_episode`'s coroutine."""
    return (bounds.wall_clock is None and type(judge) is RuleJudge
            and all(acts_now(a) for a in agents.values()))


#: set by :func:`run_now` while it steps a coroutine outside any event loop
_NO_LOOP: contextvars.ContextVar[bool] = contextvars.ContextVar("accord_no_loop", default=False)


def run_now(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run ``coro`` (e.g. a domain's ``run_episode``) to its end, as ``asyncio.run`` would,
    without an event loop where nothing waits: an episode of code agents under the rule judge
    (:func:`loop_free`) then runs in one step, and asyncio is not even imported. An episode
    that does wait (an LLM agent, a person, an LLM judge, a wall clock) gets its own event
    loop inside :func:`run_episode`, with the same record. ``coro`` must not wait for
    anything outside the engine (the built-in domains' ``run_episode`` does not); if it
    does, it is continued in a new event loop from where it stopped.
    """
    token = _NO_LOOP.set(True)
    try:
        pending = coro.send(None)
    except StopIteration as stop:
        return stop.value
    finally:
        _NO_LOOP.reset(token)
    import asyncio

    return asyncio.run(_Resumed(coro, pending))


async def _ask(
    protocol: Protocol[Any],
    state: Any,
    role: str,
    agent: Agent,
    bounds: Bounds,
    log: Trajectory,
    t0: float,
    notes: bool = True,
) -> Move:
    """One role's turn: retry invalid moves with feedback, up to ``max_retries`` retries.

    ``notes``: the agent may have notes to drain after each attempt (see :func:`_has_notes`).
    """
    obs = protocol.observe(state, role)
    # the turn's budget, from the first attempt on (the engine is its one source); set in
    # place: the observation is this turn's own, and a replace() would cost the hot path
    budget = bounds.max_retries + 1
    _set_budget(obs, budget)
    for attempt in range(1, budget + 1):
        try:
            move = await agent.act(obs)
        except AgentQuit as exc:
            raise _quit(log, obs.round, role, exc, t0) from None
        except Exception as exc:
            raise _crash(log, obs.round, role, exc, t0) from exc
        if notes:
            _drain(log, obs.round, role, agent, t0)
        invalid = check_move(protocol, state, role, move)
        if invalid is None:
            return move
        obs = _refused(obs, log, role, move, invalid, attempt, t0)
    raise _exhausted(obs, role, bounds)


def _ask_now(
    protocol: Protocol[Any],
    state: Any,
    role: str,
    agent: Any,
    bounds: Bounds,
    log: Trajectory,
    t0: float,
    notes: bool = True,
) -> Move:
    """:func:`_ask` for a code agent (:func:`~accord.protocols.agent.acts_now`), without
    a coroutine: ``agent.act_now`` is what its ``act`` would have returned, so the turn,
    its log and its failures are the same."""
    obs = protocol.observe(state, role)
    budget = bounds.max_retries + 1
    _set_budget(obs, budget)
    for attempt in range(1, budget + 1):
        try:
            move = agent.act_now(obs)
        except AgentQuit as exc:
            raise _quit(log, obs.round, role, exc, t0) from None
        except Exception as exc:
            raise _crash(log, obs.round, role, exc, t0) from exc
        if notes:
            _drain(log, obs.round, role, agent, t0)
        invalid = check_move(protocol, state, role, move)
        if invalid is None:
            return move
        obs = _refused(obs, log, role, move, invalid, attempt, t0)
    raise _exhausted(obs, role, bounds)


def _ask_all_now(turns: list[tuple[Any, ...]]) -> list[Move]:
    """The moves of several code agents' turns (:func:`_ask_now` arguments), in order, as
    :func:`_ask_all` gets them: each turn in its own copy of the context, every turn
    started, then the first failure in order raised."""
    got: list[Any] = []
    failure: BaseException | None = None
    for args in turns:
        try:
            got.append(contextvars.copy_context().run(_ask_now, *args))
        except BaseException as exc:
            if not isinstance(exc, Exception) and not _is_cancelled(exc):
                raise  # an interrupt, as an unstarted turn would have seen it
            if failure is None:
                failure = exc
    if failure is not None:
        raise failure
    return got


class _Resumed(Coroutine[Any, Any, Any]):
    """A coroutine whose first step ran outside any task, continued inside one.

    ``pending`` is what that first step yielded (the future it waits on); the task's first
    step hands it back as if the coroutine had just yielded it, every later step and every
    thrown exception (a cancellation) goes to the coroutine itself. A cancellation before
    the task's first step also cancels ``pending``, as cancelling a task that waits on a
    future does.
    """

    __slots__ = ("_coro", "_pending", "_started")

    def __init__(self, coro: Coroutine[Any, Any, Any], pending: Any) -> None:
        self._coro = coro
        self._pending = pending
        self._started = False

    def send(self, value: Any) -> Any:
        if not self._started:
            self._started = True
            return self._pending
        return self._coro.send(value)

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> Any:
        if not self._started:
            self._started = True
            import asyncio

            if asyncio.isfuture(self._pending):
                self._pending.cancel()
        if val is None and tb is None:
            return self._coro.throw(typ)
        return self._coro.throw(typ, val, tb)  # pragma: no cover (the old signature)

    def close(self) -> None:
        self._coro.close()

    def __await__(self) -> Generator[Any, Any, Any]:
        return self  # type: ignore[return-value]  # an iterator with send and throw

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        return self.send(None)


async def _ask_all(turns: list[Coroutine[Any, Any, Move]]) -> list[Move]:
    """The moves of several concurrent turns (``_ask`` coroutines), in order.

    Each turn starts at once, in its own copy of the context as a task would; a turn that
    ends without waiting (a code agent's) costs no task and no trip through the event
    loop, which was most of a round's cost per extra party. The turns still waiting run
    on as tasks, concurrently. One failure ends the episode: the first in order is raised
    once every turn has started, and no turn keeps running (or paying) after it.
    """
    import asyncio  # a turn that waits needs the event loop (imported by then)

    got: list[Any] = [None] * len(turns)
    waiting: list[tuple[int, Coroutine[Any, Any, Move], Any, contextvars.Context]] = []
    failure: BaseException | None = None
    try:
        for i, coro in enumerate(turns):
            ctx = contextvars.copy_context()
            try:
                pending = ctx.run(coro.send, None)
            except StopIteration as stop:
                got[i] = stop.value
            except (Exception, asyncio.CancelledError) as exc:
                if failure is None:
                    failure = exc
            else:
                waiting.append((i, coro, pending, ctx))
    except BaseException:  # an interrupt while starting them: none is left half-run
        for coro in turns:
            coro.close()
        raise
    if not waiting:
        if failure is not None:
            raise failure
        return got
    loop = asyncio.get_running_loop()
    tasks = [loop.create_task(_Resumed(coro, pending), context=ctx)
             for _, coro, pending, ctx in waiting]
    try:
        if failure is not None:
            raise failure
        done = await asyncio.gather(*tasks)
    finally:  # one failure ends the episode: no agent keeps running (or paying) after
        for task in tasks:
            task.cancel()
    for (i, _, _, _), move in zip(waiting, done, strict=True):
        got[i] = move
    return got


async def _consult(
    judge: TerminationJudge,
    view: dict[str, Any],
    proposed: Termination | None,
    bounds: Bounds,
    log: Trajectory,
    rnd: int,
    t0: float,
) -> JudgeVerdict:
    """The judge's verdict; a judge that raises or returns no verdict ends the run cleanly."""
    try:
        verdict = await judge.judge(view, proposed, bounds.to_dict())
    except Exception as exc:  # like an agent crash: a record naming the judge, no traceback
        detail = f"{type(exc).__name__}: {exc}"
        reason = "judge_exception"
    else:
        if isinstance(verdict, JudgeVerdict) and verdict.decision in DECISIONS:
            return verdict
        detail = (f"judge {judge.name!r} returned {verdict!r}; expected a JudgeVerdict with a "
                  f"decision in {', '.join(DECISIONS)}")
        reason = "judge_invalid_verdict"
    log.add(rnd, JUDGE, "agent_error", reason=reason, feedback=detail,
            data={"judge": judge.name}, t=time.monotonic() - t0)
    raise _Failure(Termination("error", "error", JUDGE, detail))


def rounds_done(protocol: Protocol[Any], state: Any) -> int:
    """The current round number of ``state``."""
    return protocol.progress(state).round


def _bound_hit(prog: Progress, bounds: Bounds, t0: float) -> str | None:
    if bounds.max_rounds is not None and prog.round > bounds.max_rounds:
        return "max_rounds"
    cap = bounds.max_offers
    if cap is not None and (prog.offers > cap or (prog.offer_due and prog.offers >= cap)):
        return "max_offers"
    if bounds.wall_clock is not None and time.monotonic() - t0 > bounds.wall_clock:
        return "wall_clock"
    return None


async def _loop(
    protocol: Protocol[Any],
    agents: Mapping[str, Agent],
    bounds: Bounds,
    judge: TerminationJudge,
    log: Trajectory,
    t0: float,
    box: list[Any],
) -> Termination:
    state = box[0]
    rnd_now = protocol.round_of(state)  # the state's round; refreshed after each transition
    rule_judge = isinstance(judge, RuleJudge)
    noted = {role: _has_notes(agent) for role, agent in agents.items()}
    now_ = {role: acts_now(agent) for role, agent in agents.items()}  # asked without await
    bounded = bounds.max_offers is not None or bounds.wall_clock is not None
    max_rounds = bounds.max_rounds if bounds.max_rounds is not None else 1 << 62
    events = log.events  # the round's move events are appended here directly
    # routine rounds in one frame, where the protocol has such a loop and nothing outside
    # it could tell (see Protocol.fused)
    fused = protocol.fused(agents, bounds.max_rounds) if (
        not bounded and type(judge) is RuleJudge and all(now_.values())
        and not any(noted.values())) else None
    while True:
        if fused is not None:
            state = box[0] = fused(state, events, t0)
            rnd_now = protocol.round_of(state)
        roles = protocol.to_move(state)
        if len(roles) == 1:
            role = roles[0]
            move = _ask_now(protocol, state, role, agents[role], bounds, log, t0, noted[role]) \
                if now_[role] else \
                await _ask(protocol, state, role, agents[role], bounds, log, t0, noted[role])
            moves: dict[str, Move] = {role: move}
            rnd = rnd_now
            now = time.monotonic() - t0
            events.append(Event(len(events), rnd, role, "move", move.to_dict(), None, None, {},
                                now))
        else:
            got = _ask_all_now([(protocol, state, r, agents[r], bounds, log, t0, noted[r])
                                for r in roles]) if all(now_[r] for r in roles) else \
                await _ask_all([_ask(protocol, state, r, agents[r], bounds, log, t0,
                                     noted[r]) for r in roles])
            moves = dict(zip(roles, got, strict=True))
            rnd = rnd_now
            now = time.monotonic() - t0
            for role, move in moves.items():
                log.add(rnd, role, "move", move=move.to_dict(), t=now)
        state, notes = protocol.apply(state, moves)
        box[0] = state
        for note in notes:
            log.add(rnd, note.party, "note", reason=note.name, data=dict(note.data), t=now)
        proposed = protocol.termination(state)
        if proposed is not None and proposed.status in ("agreement", "completed"):
            return proposed  # an agreement (or a game's outcome) reached within bounds stands
        if bounded:  # the offer counters too
            prog = protocol.progress(state)
            rnd_now = prog.round
        else:
            rnd_now = protocol.round_of(state)
        if proposed is None:
            which = "max_rounds" if rnd_now > max_rounds else \
                _bound_hit(prog, bounds, t0) if bounded else None
            if which is not None:
                return Termination("no_deal", "bound_hit", None, which)
            if rule_judge:
                continue  # the rule judge cannot disagree with the protocol; skip the call
        verdict = await _consult(judge, protocol.public_view(state), proposed, bounds, log,
                                 rnd, t0)
        if not rule_judge:
            log.add(rnd, None, "note", reason="judge", data={
                "judge": judge.name, "decision": verdict.decision, "why": verdict.reason})
        if proposed is not None:
            return proposed
        if verdict.decision == "no_deal":
            return Termination("no_deal", "judge", None, verdict.reason)


async def run_episode(
    protocol: Protocol[Any],
    agents: Mapping[str, Agent],
    *,
    bounds: Bounds | None = None,
    judge: TerminationJudge | None = None,
) -> EpisodeResult:
    """Run one episode to a clean end and return its record and trajectory.

    ``agents`` maps every role the protocol may ask (parties, and ``mediator`` when the
    protocol has one) to an agent. Agents are expected to be reset by the caller.
    """
    bounds = bounds or Bounds()
    judge = judge or RuleJudge()
    # a fork plan can only have been set through accord.protocols.fork: not imported, none
    fork = sys.modules.get("accord.protocols.fork")
    if fork is not None and (plan := fork.take()) is not None:
        # a forked episode: replay, then play on
        agents, judge = fork.seat(protocol, agents, judge, plan)
    if _NO_LOOP.get() and not loop_free(agents, judge, bounds) and not _loop_running():
        # run_now stepped us outside any event loop, and this episode waits: it gets one
        import asyncio

        return asyncio.run(_episode(protocol, agents, bounds, judge))
    return await _episode(protocol, agents, bounds, judge)


async def _episode(protocol: Protocol[Any], agents: Mapping[str, Agent], bounds: Bounds,
                   judge: TerminationJudge) -> EpisodeResult:
    """:func:`run_episode` once its agents are seated."""
    log = Trajectory()
    t0 = time.monotonic()
    box: list[Any] = [protocol.initial_state()]
    coro = _loop(protocol, agents, bounds, judge, log, t0, box)
    try:
        if bounds.wall_clock is not None:
            import asyncio

            term = await asyncio.wait_for(coro, timeout=bounds.wall_clock)
        else:
            term = await coro
    except TimeoutError:
        term = Termination("no_deal", "bound_hit", None, "wall_clock")
    except _Failure as failure:
        term = failure.termination
    state = box[0]
    wall = time.monotonic() - t0
    prog = protocol.progress(state)
    # a round whose opening offer is still due has not been played
    rounds = max(0, min(prog.round - int(prog.offer_due), bounds.max_rounds or 1 << 30))
    record = protocol.result(state, term)
    flags = protocol.flags(state, term)
    for role, agent in agents.items():
        for note in agent.drain_notes():
            log.add(rounds_done(protocol, state), role, "note", reason=note["name"],
                    data=dict(note.get("data", {})), t=time.monotonic() - t0)
    for ev in log.of_kind("note"):
        if ev.data.get("flag") and ev.reason:
            per = flags.setdefault(ev.reason, {})
            per[ev.party or "-"] = per.get(ev.party or "-", 0) + 1
    log.add(rounds, term.who, "end", reason=term.reason,
            data={"status": term.status, "detail": term.detail, "flags": flags}, t=wall)
    usage = {role: u for role, a in agents.items() if (u := a.usage())}
    if judge_usage := judge.usage():  # an LLM judge's calls are paid for too
        usage[JUDGE] = judge_usage
    return EpisodeResult(term.status, term.reason, term.who, rounds, record, flags, log, wall,
                         usage, term.detail)
