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
* ``engine loop and the rest``: the measured round minus the parts (the engine's own
  loop, coroutine calls, the end-of-episode record, and what replaying alone misses).

The agent parts are replayed on fresh agents each pass, so their per-episode memos start
empty as in a real episode. The share of the cyclic garbage collector, the building of
protocol and agents and ``asyncio.run``'s new event loop are printed beside.

Used by ``bench_core.py``; run alone with ``python benchmarks/round_profile.py``;
``--sweep`` prints the CPU per round at 100, 1,000 and 5,000 rounds instead (issue 30).
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import time
from collections.abc import Callable, Mapping
from typing import Any

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
    """Per-round CPU of each part (medians over ``repeat`` samples, seconds), the measured
    round (an episode run in a running event loop, divided by its rounds) and the
    per-episode costs around it, for Boulware vs Boulware on ``scenario``."""
    protocol, agents, res = _episode(scenario, max_rounds, _Recording)
    rounds = max(1, res.rounds)
    protocol.recording = False
    turns = [(role, protocol.observe(state, role)) for state, role in protocol.observed]
    # the agent's own calls, split out of act: utility of the table, and the target search
    lookups = [(agents[r], o) for r, o in turns if o.phase == "respond"]
    searches: list[tuple[str, NegotiationObservation, float]] = []
    for role, obs in turns:
        agent = agents[role]
        move = _run_act(agent, obs)
        if isinstance(move, Offer):
            searches.append((role, obs, agent.target(obs)))
        elif isinstance(move, Reject) and move.counter is not None:
            searches.append((role, obs, agent.next_target(obs)))
    moves = [m for _, _, m in protocol.validated]

    def fresh() -> dict[str, Any]:
        """New agents, as each episode has: their per-episode memos start empty."""
        got = build_agents(scenario, ["boulware", "boulware"], 0, {"episode_id": "bench"})
        for role, obs in turns[:2]:
            got[role].prepare(obs)
        return got

    def timed(body: Callable[[Any], Any], calls: int, agents_per_pass: bool = False
              ) -> float:
        """Median CPU seconds per call of ``body`` over ``inner`` passes of ``calls``."""
        out = []
        for k in range(repeat + 1):
            ctx = [fresh() if agents_per_pass else None for _ in range(inner)]
            c0 = time.process_time()
            for c in ctx:
                body(c)
            if k:  # the first sample warms up
                out.append((time.process_time() - c0) / (inner * max(1, calls)))
        return statistics.median(out)

    def observe(_: Any) -> None:
        for state, role in protocol.observed:
            protocol.observe(state, role)

    def act(fresh_agents: dict[str, Any]) -> None:
        for role, obs in turns:
            _run_act(fresh_agents[role], obs)

    def lookup(_: Any) -> None:
        for agent, obs in lookups:
            agent.utility_of(obs, obs.utility)

    def search(fresh_agents: dict[str, Any]) -> None:
        for role, obs, target in searches:
            fresh_agents[role].choose(obs, target)

    def validate(_: Any) -> None:
        for state, role, move in protocol.validated:
            protocol.validate(state, role, move)

    def log(_: Any) -> None:
        t = Trajectory()
        for state, role, move in protocol.validated:
            t.add(state.round, role, "move", move=move.to_dict(), t=0.0)

    def apply(_: Any) -> None:
        for state, mv in protocol.applied:
            protocol.apply(state, mv)

    t0 = time.monotonic()

    def bookkeeping(_: Any) -> None:
        bounds = Bounds(max_rounds=max_rounds)
        for state, _ in protocol.applied:
            protocol.to_move(state)
            protocol.termination(state)
            _bound_hit(protocol.progress(state), bounds, t0)

    per: dict[str, float] = {}
    for name, fn, calls, per_pass in (
            ("observe", observe, len(protocol.observed), False),
            ("act", act, len(turns), True),
            ("agent: utility lookups", lookup, len(lookups), False),
            ("agent: target search", search, len(searches), True),
            ("validate", validate, len(moves), False), ("log", log, len(moves), False),
            ("apply", apply, len(protocol.applied), False),
            ("bookkeeping", bookkeeping, len(protocol.applied), False)):
        per[name] = timed(fn, calls, per_pass) * calls / rounds  # per round
    per["agent: rest of act"] = max(0.0, per.pop("act") - per["agent: utility lookups"]
                                    - per["agent: target search"])
    loop = asyncio.new_event_loop()
    whole: dict[str, list[float]] = {"run": [], "nogc": [], "build": [], "asyncio.run": []}
    n = max(1, inner // 4)
    for _ in range(repeat):
        for key in whole:
            spent = 0.0
            for _ in range(n):
                if key == "nogc":
                    gc.disable()
                c0 = time.process_time()
                protocol = AlternatingOffers(scenario, AlternatingConfig(
                    max_rounds=max_rounds, stagnation_rounds=0))
                agents = build_agents(scenario, ["boulware", "boulware"], 0,
                                      {"episode_id": "bench"})
                c1 = time.process_time()
                coro = run_episode(protocol, agents, bounds=Bounds(max_rounds=max_rounds))
                if key == "asyncio.run":
                    asyncio.run(coro)
                else:
                    loop.run_until_complete(coro)
                c2 = time.process_time()
                gc.enable()
                spent += (c1 - c0) if key == "build" else (c2 - c1)
            whole[key].append(spent / n / rounds)
    loop.close()
    med = {k: statistics.median(v) for k, v in whole.items()}
    return {"parts": {k: per[k] for k in PARTS}, "round": med["run"],
            "gc": max(0.0, med["run"] - med["nogc"]), "build": med["build"],
            "asyncio_run": max(0.0, med["asyncio.run"] - med["run"]),
            "rounds": rounds, "offers": len(searches)}


def print_breakdown(scenario: Scenario, floor: float, label: str, repeat: int = 7) -> None:
    """Print the breakdown table for ``scenario`` (``floor``: seconds per round spent
    evaluating utilities the direct way, from ``bench_core.utility_floor``)."""
    got = breakdown(scenario, repeat=repeat)
    whole = got["round"]
    parts = dict(got["parts"])
    parts["engine loop and the rest"] = max(0.0, whole - sum(parts.values()))
    print(f"\n### where a round goes, {label}: {got['rounds']} rounds, {got['offers']} offers;"
          f" engine CPU per round {whole * 1e6:.1f} us (episode in a running event loop, "
          f"divided by its rounds); parts replayed alone on the episode's recorded inputs")
    for name, sec in parts.items():
        print(f"  {name:<34} {sec * 1e6:7.2f} us  {100 * sec / whole:5.1f}%")
    print(f"  {'(of the round: cyclic GC)':<34} {got['gc'] * 1e6:7.2f} us  "
          f"{100 * got['gc'] / whole:5.1f}% (the round with gc disabled is this much faster)")
    lookups = got["parts"]["agent: utility lookups"]
    print(f"  utility evaluation in the round: the responder's lookup of the table's utility "
          f"{lookups * 1e6:.2f} us = {100 * lookups / whole:.1f}% (every outcome's utility is "
          f"evaluated once per scenario)")
    print(f"  floor: evaluating the offer's utility for each party directly, 2 x "
          f"utility(package): {floor * 1e6:.2f} us = {100 * floor / whole:.1f}% of the round")
    print(f"  outside the round, per round: building protocol and agents "
          f"{got['build'] * 1e6:.2f} us; asyncio.run's new event loop "
          f"{got['asyncio_run'] * 1e6:.2f} us")


def rounds_sweep(scenario: Scenario, lengths: tuple[int, ...] = (100, 1000, 5000),
                 repeat: int = 5) -> dict[tuple[int, int], tuple[float, float, int]]:
    """CPU per round of two boulware agents over episodes of ``lengths`` rounds, stagnation
    off (0) and on (K = 3, the default), median of ``repeat`` episodes: a per-round cost
    that grows with the length is work proportional to the history done every round.

    Returns ``{(rounds, K): (median s per round, spread (max - min) s, rounds played)}``;
    the engine runs in one event loop, the garbage collector collects before each episode,
    and a first, untimed episode of each length builds the scenario's tables.
    """
    loop = asyncio.new_event_loop()
    out: dict[tuple[int, int], tuple[float, float, int]] = {}
    for n in lengths:
        for k in (0, 3):
            per: list[float] = []
            played = 0
            for i in range(repeat + 1):  # the first episode warms the tables: not timed
                protocol = AlternatingOffers(scenario, AlternatingConfig(
                    max_rounds=n, stagnation_rounds=k))
                agents = build_agents(scenario, ["boulware", "boulware"], 0,
                                      {"episode_id": "bench"})
                gc.collect()
                c0 = time.process_time()
                res = loop.run_until_complete(
                    run_episode(protocol, agents, bounds=Bounds(max_rounds=n)))
                spent = time.process_time() - c0
                played = max(1, res.rounds)
                if i:
                    per.append(spent / played)
            out[(n, k)] = (statistics.median(per), max(per) - min(per), played)
    loop.close()
    return out


def print_sweep(scenario: Scenario, lengths: tuple[int, ...] = (100, 1000, 5000),
                repeat: int = 5) -> None:
    """Print :func:`rounds_sweep`'s table."""
    print("\n### CPU per round by episode length (two boulware agents, median of "
          f"{repeat}, spread = max - min)")
    print(f"  {'rounds':>7} {'stagnation':>10} {'played':>7} {'us/round':>9} {'spread':>8}")
    for (n, k), (sec, spread, played) in rounds_sweep(scenario, lengths, repeat).items():
        print(f"  {n:>7} {f'K={k}' if k else 'off':>10} {played:>7} {sec * 1e6:>9.1f} "
              f"{spread * 1e6:>8.1f}")


if __name__ == "__main__":
    import sys

    from bench_core import negotiation_scenario, utility_floor

    sc = negotiation_scenario()
    if "--sweep" in sys.argv:
        print_sweep(sc)
    else:
        print_breakdown(sc, utility_floor(sc), "10^4 outcomes")
