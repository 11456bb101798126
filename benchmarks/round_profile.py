"""Where one round of a code-agent negotiation spends its CPU (issue 16, goal 1).

An episode is run once with recording wrappers around the protocol and the agents; every
input each step saw (states, observations, moves) is kept. Each step is then replayed on
its recorded inputs many times over and timed alone (CPU time, ``time.process_time``), so
the parts add up to a breakdown of the round without a profiler's distortion:

* ``observe``: the protocol builds the mover's observation;
* ``agent: utility lookups``: the agent's own utility of the offer on the table (an array
  lookup: the utility of every outcome is evaluated once per scenario);
* ``agent: target search``: the outcome it offers next (binary search in the sorted
  utilities and the near-target window);
* ``agent: rest of act``: targets, the acceptance rule and building the move objects;
* ``validate``: the protocol's legality check of the move;
* ``log``: the move's dict and its trajectory event;
* ``apply``: the transition (offer records, the next round's state);
* ``bookkeeping``: ``to_move``, ``termination``, ``progress`` and the bounds check;
* ``engine glue``: the rest of the measured round (the coroutine calls, loop control).

Used by ``bench_core.py``; run alone with ``python benchmarks/round_profile.py``.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Callable, Mapping
from typing import Any

from accord.agents.concession import NegotiatorAgent
from accord.core.moves import Move, Offer, Reject
from accord.core.scenario import Scenario
from accord.core.trajectory import Trajectory
from accord.domains.bargaining import build_agents
from accord.protocols import Bounds, run_episode
from accord.protocols.alternating import AlternatingConfig, AlternatingOffers
from accord.protocols.engine import _bound_hit
from accord.protocols.negotiation import NegotiationObservation

PARTS = ("observe", "agent: utility lookups", "agent: target search", "agent: rest of act",
         "validate", "log", "apply", "bookkeeping")


class _Recording(AlternatingOffers):
    """The protocol, keeping every input of observe / validate / apply."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.observed: list[tuple[Any, str]] = []
        self.validated: list[tuple[Any, str, Move]] = []
        self.applied: list[tuple[Any, Mapping[str, Move]]] = []
        self.recording = True  # off for the replays, which call the same methods

    def observe(self, state: Any, role: str) -> Any:
        if self.recording:
            self.observed.append((state, role))
        return super().observe(state, role)

    def validate(self, state: Any, role: str, move: Move) -> Any:
        if self.recording:
            self.validated.append((state, role, move))
        return super().validate(state, role, move)

    def apply(self, state: Any, moves: Mapping[str, Move]) -> Any:
        if self.recording:
            self.applied.append((state, dict(moves)))
        return super().apply(state, moves)


def _episode(scenario: Scenario, max_rounds: int, protocol_cls: type = AlternatingOffers
             ) -> tuple[Any, dict[str, Any], Any]:
    protocol = protocol_cls(scenario, AlternatingConfig(max_rounds=max_rounds,
                                                        stagnation_rounds=0))
    agents = build_agents(scenario, ["boulware", "boulware"], 0, {"episode_id": "bench"})
    res = asyncio.run(run_episode(protocol, agents, bounds=Bounds(max_rounds=max_rounds)))
    return protocol, agents, res


def _cpu_per_call(fn: Callable[[], Any], calls: int, repeat: int) -> list[float]:
    """CPU seconds per recorded call, one sample per replay of all ``calls`` calls."""
    fn()
    out = []
    for _ in range(repeat):
        c0 = time.process_time()
        fn()
        out.append((time.process_time() - c0) / max(1, calls))
    return out


def _run_act(agent: Any, obs: Any) -> Move:
    """The agent's coroutine driven to its end without an event loop (it never awaits)."""
    coro = agent.act(obs)
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]
    raise RuntimeError("a concession agent awaited something")


def breakdown(scenario: Scenario, max_rounds: int = 100, repeat: int = 7,
              inner: int = 20) -> dict[str, Any]:
    """Per-round CPU of each part (medians over ``repeat`` samples, seconds) and the
    measured whole round, for Boulware vs Boulware on ``scenario``."""
    protocol, agents, res = _episode(scenario, max_rounds, _Recording)
    rounds = max(1, res.rounds)
    protocol.recording = False
    acts = [(agents[role], protocol.observe(state, role)) for state, role in protocol.observed]
    # the agent's own calls, split out of act: utility of the table, and the target search
    lookups = [(a, o) for a, o in acts if o.phase == "respond"]
    searches: list[tuple[NegotiatorAgent, NegotiationObservation, float]] = []
    for agent, obs in acts:
        move = _run_act(agent, obs)
        if isinstance(move, Offer):
            searches.append((agent, obs, agent.target(obs)))
        elif isinstance(move, Reject) and move.counter is not None:
            searches.append((agent, obs, agent.next_target(obs)))
    moves = [m for _, _, m in protocol.validated]

    def many(body: Callable[[], Any]) -> Callable[[], None]:
        def run() -> None:
            for _ in range(inner):
                body()
        return run

    def observe() -> None:
        for state, role in protocol.observed:
            protocol.observe(state, role)

    def act() -> None:
        for agent, obs in acts:
            _run_act(agent, obs)

    def lookup() -> None:
        for agent, obs in lookups:
            agent.utility_of(obs, obs.utility)

    def search() -> None:
        for agent, obs, target in searches:
            agent.choose(obs, target)

    def validate() -> None:
        for state, role, move in protocol.validated:
            protocol.validate(state, role, move)

    def log() -> None:
        t = Trajectory()
        for state, role, move in protocol.validated:
            t.add(state.round, role, "move", move=move.to_dict(), t=0.0)

    def apply() -> None:
        for state, mv in protocol.applied:
            protocol.apply(state, mv)

    t0 = time.monotonic()

    def bookkeeping() -> None:
        bounds = Bounds(max_rounds=max_rounds)
        for state, _ in protocol.applied:
            protocol.to_move(state)
            protocol.termination(state)
            _bound_hit(protocol.progress(state), bounds, t0)

    per: dict[str, float] = {}
    for name, fn, calls in (
            ("observe", observe, len(protocol.observed)), ("act", act, len(acts)),
            ("agent: utility lookups", lookup, len(lookups)),
            ("agent: target search", search, len(searches)),
            ("validate", validate, len(moves)), ("log", log, len(moves)),
            ("apply", apply, len(protocol.applied)),
            ("bookkeeping", bookkeeping, len(protocol.applied))):
        per_call = statistics.median(_cpu_per_call(many(fn), calls * inner, repeat))
        per[name] = per_call * calls / rounds  # per round
    per["agent: rest of act"] = max(0.0, per.pop("act") - per["agent: utility lookups"]
                                    - per["agent: target search"])
    whole = []
    for _ in range(repeat):
        c0 = time.process_time()
        for _ in range(max(1, inner // 4)):
            _episode(scenario, max_rounds)
        whole.append((time.process_time() - c0) / max(1, inner // 4) / rounds)
    return {"parts": {k: per[k] for k in PARTS}, "round": statistics.median(whole),
            "rounds": rounds, "offers": len(searches)}


def print_breakdown(scenario: Scenario, floor: float, label: str, repeat: int = 7) -> None:
    """Print the breakdown table for ``scenario`` (``floor``: seconds per round spent
    evaluating utilities the direct way, from ``bench_core.utility_floor``)."""
    got = breakdown(scenario, repeat=repeat)
    whole = got["round"]
    parts = dict(got["parts"])
    parts["engine glue (rest of the round)"] = max(0.0, whole - sum(parts.values()))
    print(f"\n### where a round goes, {label}: {got['rounds']} rounds, {got['offers']} offers; "
          f"whole episode CPU per round {whole * 1e6:.1f} us (incl. building protocol and "
          f"agents)")
    for name, sec in parts.items():
        print(f"  {name:<34} {sec * 1e6:7.2f} us  {100 * sec / whole:5.1f}%")
    print(f"  {'floor: 2 x utility(package)':<34} {floor * 1e6:7.2f} us  "
          f"{100 * floor / whole:5.1f}% (evaluating one offer's utility for each party)")


if __name__ == "__main__":
    from bench_core import negotiation_scenario, utility_floor

    sc = negotiation_scenario()
    print_breakdown(sc, utility_floor(sc), "10^4 outcomes")
