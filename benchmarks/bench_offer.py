"""Issue 30, goals 1 and 2: accord's CPU per offer and per round beside NegMAS and a bare
loop, like for like, in one process (CPU time, ``time.process_time``; the compared
implementations alternate episode by episode so they see the same machine load).

Per offer (two parties, 10^3-10^5 outcomes, the same 100-offer cap on both sides: accord
runs 100 rounds of one offer each, NegMAS's ``SAOMechanism`` 50 steps of two offers):

* cold: nothing cached. accord builds a fresh scenario (every utility evaluated and
  sorted again), the protocol and the agents, and runs the episode; NegMAS builds the
  mechanism and runs it (its negotiators build their tables in the first step);
* steady: accord's engine in a running event loop with the scenario's tables cached (the
  per-episode costs, the record and the event loop's task, still included); NegMAS's steps
  after the first. Beside it, like for like with NegMAS's figure, "after 1st": accord's CPU
  from the opening offer's event to the episode's result, per offer after the opening one
  (the event list notes when its first event arrives; its slower ``append`` is booked to
  accord);
* both cold episodes start from the same drawn numbers (:func:`random_problem`); each
  side's domain objects (NegMAS's issues and utility functions, accord's scenario: its
  outcome space and utility functions) are built from them outside the timing, new, with
  nothing cached: every table is made inside it;
* bare loop: the same two Boulware agents (e = 0.2, the same target curve and acceptance
  rule) on presorted tables in a plain Python loop: no protocol, no observations, no log.
  A floor, not a competitor.

Per round (2, 3 and 5 parties, 10^3 outcomes, 1,000-round cap; accord Boulware agents,
NegMAS Aspiration negotiators): CPU per episode and per round (accord) or step (NegMAS);
and where accord's round goes at each size (self time under cProfile, grouped, scaled to
the measured round: read the shares, cProfile inflates call-heavy code), with the default
stagnation rule (K = 3) on and off, so the cost per extra party shows.

    python benchmarks/bench_offer.py [--quick] [--sizes 3,4,5] [--parties 2,3,5]
                                     [--against TREE]

``--against TREE`` measures another accord checkout (``TREE/src``, e.g. an export of the
commit before a change) beside this one, per offer, alternating repetition by repetition:
the "before" rows, and before/after ratios of the medians. Both trees are then measured
alike, each repetition one child process per tree running this script (two warm-up
episode pairs, then one cold and one steady episode). Each size ends with the cProfile
split of accord's steady episode (self time, grouped as for the rounds below: shares, not
times).

Needs ``negmas`` for the NegMAS columns (``/work/negmas-venv`` has 0.16); without it
accord's figures and the bare loop are printed alone.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import os
import pstats
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from _util import machine
from bench_core import negmas_setup, random_problem

import accord.protocols.engine as engine
from accord.core import LinearAdditiveUtility, OutcomeSpace, Party, Scenario
from accord.domains.bargaining import build_agents
from accord.protocols import Bounds, run_episode
from accord.protocols.alternating import AlternatingConfig, AlternatingOffers

CAP = 100  # offers per episode on both sides
E = 0.2  # Boulware's exponent (accord's ``boulware``)


def scenario(n_issues: int, k: int = 2, seed: int = 1) -> Scenario:
    """``k`` parties, ``n_issues`` issues of 10 values, BATNA 0 (bench_core's problem)."""
    return scenario_of(random_problem(n_issues, 10, k, seed))


def scenario_of(problem: Any) -> Scenario:
    """accord's scenario of a :func:`random_problem` (the numbers NegMAS's issues and
    utility functions are made of: drawing them is no side's work)."""
    names, nv, parties = problem
    space = OutcomeSpace.from_mapping({n: list(range(nv)) for n in names})
    return Scenario(f"bench-{len(parties)}p-1e{len(names)}", space, tuple(
        Party(p, LinearAdditiveUtility(w, s), 0.0)
        for p, (w, s) in zip("abcdefgh", parties, strict=False)))


class _Stamped(list):  # type: ignore[type-arg]
    """An episode's event list that notes the CPU time of its first event (round 1's
    opening offer, logged once the agent made it): where "after the first round" starts.
    Its ``append`` is a Python method, a little slower than ``list.append``: that cost is
    booked to accord, never to its peers."""

    first: float | None = None

    def append(self, item: Any) -> None:
        if self.first is None:
            self.first = time.process_time()
        list.append(self, item)


class _StampedTrajectory(engine.Trajectory):
    """The engine's log with a :class:`_Stamped` event list (installed for accord's
    episodes here; the engine reads and appends ``events`` as it does any list)."""

    def __init__(self, events: list[Any] | None = None) -> None:
        super().__init__(_Stamped(events or ()))


engine.Trajectory = _StampedTrajectory  # type: ignore[misc]


def accord_episode(sc: Scenario, rounds: int, loop: asyncio.AbstractEventLoop,
                   stagnation: int = 0) -> tuple[float, Any]:
    """CPU seconds of building the protocol and Boulware agents and running one episode
    in ``loop``, and the result."""
    return accord_timed(sc, rounds, loop, stagnation)[:2]


def accord_timed(sc: Scenario, rounds: int, loop: asyncio.AbstractEventLoop,
                 stagnation: int = 0) -> tuple[float, Any, float]:
    """:func:`accord_episode`, and the CPU seconds after its first round (from the opening
    offer's event to the result, the record included)."""
    c0 = time.process_time()
    protocol = AlternatingOffers(sc, AlternatingConfig(max_rounds=rounds,
                                                       stagnation_rounds=stagnation))
    agents = build_agents(sc, ["boulware"] * len(sc.parties), 0, {"episode_id": "bench"})
    res = loop.run_until_complete(run_episode(protocol, agents,
                                              bounds=Bounds(max_rounds=rounds)))
    c1 = time.process_time()
    first = res.trajectory.events.first
    return c1 - c0, res, c1 - (first if first is not None else c1)


def offers_of(res: Any) -> int:
    """Offers put on the table: opening offers and counter-offers."""
    return max(1, sum(1 for e in res.trajectory if e.kind == "move" and e.move is not None
                      and (e.move.get("kind") == "offer" or e.move.get("counter"))))


def negmas_episode(issues: Any, ufuns: list[Any], steps: int) -> tuple[float, float, int, int]:
    """One Aspiration SAOMechanism run, stepped: CPU of (building and the first step, the
    other steps), steps and offers."""
    from negmas import AspirationNegotiator, SAOMechanism

    c0 = time.process_time()
    m = SAOMechanism(issues=issues, n_steps=steps)
    for i, u in enumerate(ufuns):
        m.add(AspirationNegotiator(name=f"n{i}"), preferences=u)
    m.step()
    c1 = time.process_time()
    while m.running:
        m.step()
    c2 = time.process_time()
    trace = getattr(m, "extended_trace", None)
    n_steps = max(1, m.state.step)
    return c1 - c0, c2 - c1, n_steps, max(1, len(trace) if trace else 2 * n_steps)


def bare_loop(values: list[np.ndarray], cap: int) -> tuple[float, int]:
    """Two Boulware agents on presorted tables, alternating offers in plain Python: CPU
    seconds (of the loop alone) and offers made. The responder accepts what reaches its
    next round's target, else counters with the first outcome at that target (accord's
    rule, without its choice among near-target outcomes). Each agent's table (its
    utilities sorted, the outcome order) is built outside the timed part, as accord caches
    it per scenario."""
    tables = []
    for v in values:
        order = np.argsort(v, kind="stable")
        su = v[order]
        tables.append((v, order, su, float(su[-1]), max(0.0, float(su[0]))))
    c0 = time.process_time()

    def demand(me: int, t: float) -> float:
        _, _, _, best, floor = tables[me]
        return floor + (best - floor) * (1.0 - min(1.0, t) ** (1.0 / E))

    def choose(me: int, target: float) -> int:
        _, order, su, _, floor = tables[me]
        pos = int(su.searchsorted(max(target - 1e-12, floor)))
        return int(order[min(pos, len(su) - 1)])

    table = choose(0, demand(0, 0.0))  # round 1's opening offer
    offers = 1
    for rnd in range(1, cap + 1):
        resp = rnd % 2  # the responder; its counter-offer is the next round's offer
        ask = demand(resp, rnd / (cap - 1))  # what it would demand next round
        if tables[resp][0].item(table) >= ask - 1e-12 or rnd >= cap:
            break  # accepted (or the cap)
        table = choose(resp, ask)
        offers += 1
    return time.process_time() - c0, offers


def _med(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def _fmt(xs: list[float], scale: float = 1e6, unit: str = "us") -> str:
    if not xs:
        return "-"
    return (f"{_med(xs) * scale:8.1f} {unit} (min {min(xs) * scale:.1f}, "
            f"max {max(xs) * scale:.1f}, n={len(xs)})")


def accord_pair(n_issues: int, warm: Scenario, loop: asyncio.AbstractEventLoop
                ) -> dict[str, float]:
    """One cold and one steady accord episode at 10^``n_issues`` outcomes: CPU per offer of
    the cold one, of the steady one (all of it), of the steady one's rounds after the first
    (per offer after the opening one), and the steady episode's offers. Each timed part
    starts with no garbage pending (:func:`gc.collect` outside the timing), as do NegMAS's
    and the bare loop's: no variant pays for collecting another's garbage, and a
    deterministic child process does not book a full collection to the same episode every
    time. The cold episode's scenario (its outcome space and utility functions, new objects
    with nothing cached) is built outside the timing, as NegMAS's issues and utility
    functions are; its tables are made inside, by the episode."""
    fresh = scenario_of(random_problem(n_issues, 10, 2, 1))  # new objects: nothing cached
    gc.collect()
    c0 = time.process_time()
    _, res = accord_episode(fresh, CAP, loop)
    cold = time.process_time() - c0
    gc.collect()
    cpu_warm, res_warm, after = accord_timed(warm, CAP, loop)
    offers = offers_of(res_warm)
    return {"cold": cold / offers_of(res), "steady": cpu_warm / offers,
            "after": after / max(1, offers - 1), "offers": offers}


def child_pair(n_issues: int) -> None:
    """``--child N``: a warm-up, then one :func:`accord_pair`, printed as JSON (what
    ``--against`` reads from another accord tree)."""
    loop = asyncio.new_event_loop()
    warm = scenario(n_issues)
    for _ in range(2):  # warm-up: numpy's and the interpreter's caches, the tables
        accord_pair(n_issues, warm, loop)
    print(json.dumps(accord_pair(n_issues, warm, loop)))


def other_pair(tree: str, n_issues: int) -> dict[str, float]:
    """:func:`accord_pair` of the accord in ``tree`` (its ``src``), in a child process
    running this script (so both trees are measured by the same code)."""
    env = dict(os.environ, PYTHONPATH=str(Path(tree) / "src"))
    got = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child",
                          str(n_issues)], env=env, capture_output=True, text=True, check=True)
    row: dict[str, float] = json.loads(got.stdout.strip().splitlines()[-1])
    return row


def per_offer(n_issues: int, repeat: int, have_negmas: bool, against: str | None = None
              ) -> dict[str, list[float]]:
    """Part 1 at 10^``n_issues`` outcomes: CPU per offer of each variant, per episode;
    with ``against`` (another accord tree) that tree's accord too, alternating with this
    one repetition by repetition."""
    loop = asyncio.new_event_loop()
    out: dict[str, list[float]] = {k: [] for k in (
        "accord cold", "accord steady", "accord after 1st", "before cold", "before steady",
        "before after 1st", "negmas cold", "negmas steady", "bare")}
    counts: dict[str, list[int]] = {"accord": [], "before": [], "negmas": [], "bare": []}
    problem = random_problem(n_issues, 10, 2, 1)
    warm = scenario(n_issues)
    accord_episode(warm, CAP, loop)  # the scenario's tables, cached from here on
    values = [p.utility.values(warm.space) for p in warm.parties]
    here = str(Path(__file__).resolve().parents[1])
    for k in range(repeat + 1):
        # with a tree to compare, both trees are measured alike: each repetition a child
        # process per tree (the same warm-up), this tree's first
        mine = other_pair(here, n_issues) if against and k else \
            accord_pair(n_issues, warm, loop)
        gc.collect()
        bare, bare_offers = bare_loop(values, CAP)
        neg = None
        if have_negmas:
            issues, ufuns, _ = negmas_setup(problem)
            gc.collect()
            neg = negmas_episode(issues, ufuns, CAP // 2)
        old = other_pair(against, n_issues) if against and k else None
        if not k:
            continue  # warm-up
        for who, row in (("accord", mine), ("before", old)):
            if row is None:
                continue
            out[f"{who} cold"].append(row["cold"])
            out[f"{who} steady"].append(row["steady"])
            if "after" in row:
                out[f"{who} after 1st"].append(row["after"])
            counts[who].append(int(row["offers"]))
        out["bare"].append(bare / max(1, bare_offers))
        counts["bare"].append(bare_offers)
        if neg is not None:
            first, rest, _steps, n_offers = neg
            out["negmas cold"].append((first + rest) / n_offers)
            out["negmas steady"].append(rest / max(1, n_offers - 2))
            counts["negmas"].append(n_offers)
    loop.close()
    print(f"\n## per offer, 2 parties, 10^{n_issues} outcomes, cap {CAP} offers on both "
          f"sides; offers per episode: accord {_med(counts['accord']):.0f}, bare "
          f"{_med(counts['bare']):.0f}" + (f", NegMAS {_med(counts['negmas']):.0f}"
                                            if counts["negmas"] else "")
          + (f"; 'before' is {against}" if against else ""))
    print("  (steady: a whole warm episode per offer, building the protocol and agents "
          "included; after 1st: its rounds after the first per offer after the opening "
          "one, as NegMAS's steady is its steps after the first)")
    for name, xs in out.items():
        if xs:
            print(f"  {name:<16} {_fmt(xs)}")
    for who in ("accord", "before"):
        if not out[f"{who} steady"]:
            continue
        label = "" if who == "accord" else " (before)"
        if out["negmas cold"]:
            cold = _med(out["negmas cold"]) / _med(out[f"{who} cold"])
            steady = _med(out["negmas steady"]) / _med(out[f"{who} steady"])
            after = (f", steady/after 1st {_med(out['negmas steady']) / _med(xs):.1f}x"
                     if (xs := out[f"{who} after 1st"]) else "")
            print(f"  NegMAS / accord{label}: cold/cold {cold:.1f}x, steady/steady "
                  f"{steady:.1f}x (accord's whole episode){after}  (goal >= 20x)")
        print(f"  accord{label} steady / bare loop: "
              f"{_med(out[f'{who} steady']) / _med(out['bare']):.1f}x  (goal <= 10x)")
    if out["before steady"]:
        print(f"  before / after (CPU per offer, medians): cold "
              f"{_med(out['before cold']) / _med(out['accord cold']):.2f}x, steady "
              f"{_med(out['before steady']) / _med(out['accord steady']):.2f}x")
    print("  where accord's steady episode goes (cProfile self time, grouped): " + ", ".join(
        f"{g} {share:.0%}" for g, share in round_split(warm, CAP, 0, 5) if share >= 0.005))
    return out


GROUPS: tuple[tuple[str, Callable[[str, str], bool]], ...] = (
    ("agents' act (concession.py)", lambda f, n: f.endswith("agents/concession.py")),
    ("stagnation bookkeeping", lambda f, n: f.endswith("protocols/stagnation.py")
     or n in ("_stagnation", "_fire") or f.endswith("core/utility.py")),
    ("observations (observe)", lambda f, n: n in ("observe", "_legal")
     or f.endswith("protocols/negotiation.py")),
    ("validation", lambda f, n: n in ("validate", "check_move", "_check_package")),
    ("transition: verdicts, next round", lambda f, n: f.endswith("protocols/alternating.py")
     and n in ("apply", "_verdicts", "_next_round", "_record", "_put", "_evolve", "_evolved",
               "_end", "to_move", "progress", "termination", "round_of")),
    ("per episode: agents, protocol, record", lambda f, n: "domains/bargaining" in f
     or "agents/registry" in f or "agents/kinds" in f or "agents/spec" in f
     or f.endswith("protocols/agent.py") or (f.endswith("protocols/alternating.py") and n in (
         "__init__", "_game_view", "initial_state", "result", "flags", "_deal", "_deal_of"))
     or n in ("default_rng", "inner") or "numpy/random" in f),
    ("trajectory log (events, move dicts)", lambda f, n: f.endswith("core/trajectory.py")
     or f.endswith("core/moves.py")),
    ("engine: turns, concurrency, loop", lambda f, n: f.endswith("protocols/engine.py")
     or "asyncio" in f),
)


def _label(path: str, func: str) -> str:
    return next((g for g, match in GROUPS if match(path, func)), "the rest")


def _booked(stats: dict[Any, Any]) -> dict[str, float]:
    """Self time per group of one profile. A built-in (numpy's searchsorted, dict.update,
    time.monotonic) has no file of its own: its time goes to its callers' groups, in
    proportion to the time each call site spent in it. The benchmark's own clock
    (``time.process_time`` in :func:`accord_episode`) is left out."""
    booked: dict[str, float] = {}
    for (path, _line, func), (_cc, _nc, tottime, _ct, callers) in stats.items():
        if func == "<built-in method time.process_time>":
            continue
        if path == "~" and callers:
            spent = sum(edge[2] for edge in callers.values()) or 1.0
            for (cpath, _cl, cfunc), edge in callers.items():
                label = _label(cpath, cfunc)
                booked[label] = booked.get(label, 0.0) + tottime * edge[2] / spent
            continue
        label = _label(path, func)
        booked[label] = booked.get(label, 0.0) + tottime
    return booked


def round_split(sc: Scenario, rounds: int, stagnation: int, episodes: int, samples: int = 5
                ) -> list[tuple[str, float]]:
    """Shares of accord's episode self time per group (:data:`GROUPS`; the rest last): the
    median over ``samples`` profiles of ``episodes`` episodes each (a profile under load
    books a preemption to whatever ran; the median of several is steadier), normalised."""
    loop = asyncio.new_event_loop()
    shares: dict[str, list[float]] = {}
    for _ in range(samples):
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(episodes):
            accord_episode(sc, rounds, loop, stagnation)
        prof.disable()
        booked = _booked(pstats.Stats(prof).stats)  # type: ignore[attr-defined]
        total = sum(booked.values()) or 1.0
        for g, t in booked.items():
            shares.setdefault(g, []).append(t / total)
    loop.close()
    groups = [g for g, _ in GROUPS] + ["the rest"]
    med = {g: statistics.median(shares[g] + [0.0] * (samples - len(shares[g])))
           if g in shares else 0.0 for g in groups}
    norm = sum(med.values()) or 1.0
    return [(g, med[g] / norm) for g in groups]


def per_round(parties: tuple[int, ...], repeat: int, have_negmas: bool, rounds: int = 1000
              ) -> None:
    """Part 2: per round at each party count, beside NegMAS, and accord's breakdown."""
    print(f"\n## per round, {rounds}-round cap, 10^3 outcomes; CPU per episode and per "
          f"round (NegMAS: per step)")
    loop = asyncio.new_event_loop()
    for k in parties:
        sc = scenario(3, k)
        problem = random_problem(3, 10, k, 1)
        a_ep: dict[int, list[float]] = {0: [], 3: []}
        a_round: dict[int, list[float]] = {0: [], 3: []}
        seen: dict[int, list[int]] = {0: [], 3: []}
        n_ep: list[float] = []
        n_step: list[float] = []
        steps: list[int] = []
        for i in range(repeat + 1):
            got = {}
            for stag in (0, 3):
                got[stag] = accord_episode(sc, rounds, loop, stag)
            neg = None
            if have_negmas:
                issues, ufuns, _ = negmas_setup(problem)
                neg = negmas_episode(issues, ufuns, rounds)
            if not i:
                continue
            for stag, (cpu, res) in got.items():
                a_ep[stag].append(cpu)
                a_round[stag].append(cpu / max(1, res.rounds))
                seen[stag].append(res.rounds)
            if neg is not None:
                first, rest, n, _ = neg
                n_ep.append(first + rest)
                n_step.append((first + rest) / n)
                steps.append(n)
        print(f"{k} parties: accord {_med(seen[0]):.0f} rounds, per episode "
              f"{_fmt(a_ep[0], 1e3, 'ms')}, per round {_fmt(a_round[0])}")
        print(f"           accord with the stagnation rule on (K=3): {_med(seen[3]):.0f} rounds, "
              f"per round {_fmt(a_round[3])}")
        if n_ep:
            print(f"           NegMAS {_med(steps):.0f} steps, per episode "
                  f"{_fmt(n_ep, 1e3, 'ms')}, per step {_fmt(n_step)}")
            print(f"           NegMAS / accord per episode {_med(n_ep) / _med(a_ep[0]):.1f}x "
                  f"(stagnation on: {_med(n_ep) / _med(a_ep[3]):.1f}x); per round/step "
                  f"{_med(n_step) / _med(a_round[0]):.1f}x  (goal at 5 parties: >= 5x)")
        for stag in (0, 3):
            split = round_split(sc, rounds, stag, 2)
            whole = _med(a_round[stag])
            parts = ", ".join(f"{g} {s * whole * 1e6:.1f} us" for g, s in split)
            print(f"           where a round goes (stagnation {'on' if stag else 'off'}): "
                  f"{parts}")
    loop.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer episodes, 10^4 only")
    ap.add_argument("--sizes", default=None, help="issues of 10 values, e.g. 3,4,5")
    ap.add_argument("--parties", default="2,3,5")
    ap.add_argument("--repeat", type=int, default=None)
    ap.add_argument("--against", default=None, metavar="TREE",
                    help="also measure the accord in TREE (a checkout: TREE/src), per offer, "
                         "alternating with this one (the 'before' rows)")
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        child_pair(args.child)
        return
    try:
        import negmas

        have = True
        peer = f"NegMAS {negmas.__version__}"
    except ImportError:
        have, peer = False, "NegMAS not installed"
    print(f"# bench_offer — {machine()}; {peer}")
    print(f"load average at start: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cpus")
    sizes = tuple(int(x) for x in args.sizes.split(",")) if args.sizes else (
        (4,) if args.quick else (3, 4, 5))
    repeat = args.repeat or (5 if args.quick else 9)
    if args.against and not (Path(args.against) / "src" / "accord").is_dir():
        ap.error(f"--against {args.against}: no accord tree there (expected "
                 f"{Path(args.against) / 'src' / 'accord'})")
    for n in sizes:
        per_offer(n, repeat, have, args.against)
    parties = tuple(int(x) for x in args.parties.split(",")) if args.parties else ()
    per_round(parties, max(3, repeat // 2), have)
    print(f"load average at end: {os.getloadavg()[0]:.2f} (1 min)")


if __name__ == "__main__":
    main()
