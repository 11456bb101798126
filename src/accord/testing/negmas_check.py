"""Cross-check of accord's analysis against NegMAS's (needs the ``accord[negmas]`` extra).

Two comparisons per scenario:

1. **Same utilities, two analyses.** Each party's utility and BATNA are handed to NegMAS
   as a ``LinearAdditiveUtilityFunction`` with ``reserved_value`` = BATNA
   (:func:`accord.agents.negmas_adapter.negmas_ufun`); NegMAS's ``pareto_frontier`` and
   ``nash_points`` are then compared with :func:`accord.domains.bargaining.analyze`: the
   set of Pareto utility vectors, and the Nash point.
2. **NegMAS's own reading of the Genius files** (``Scenario.from_genius_folder``): whether
   its utilities equal accord's outcome by outcome (up to one positive factor per party),
   and whether the Pareto-optimal outcomes are the same.

Reservation handling differs by design, and the comparison says where it matters: NegMAS's
``nash_points`` uses ``max(reserved value, lowest utility)`` as each party's disagreement
point and searches the whole frontier, where accord uses the BATNA itself and only the
individually rational outcomes (a package below a party's BATNA is one it would walk away
from). :func:`compare` therefore also computes accord's Nash point with NegMAS's
disagreement point, which must agree with NegMAS's whenever the frontier has an
individually rational point.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from accord.core.pareto import canonical_utilities, pareto_indices
from accord.core.scenario import Scenario
from accord.core.solutions import nash_point

#: decimals utility vectors are compared at
DECIMALS = 9


def _vectors(rows: Any) -> set[tuple[float, ...]]:
    return {tuple(round(float(x), DECIMALS) for x in row) for row in rows}


@dataclass
class Comparison:
    """One scenario compared with NegMAS (utilities rounded to 9 decimals)."""

    name: str
    outcomes: int
    frontier_size: int
    frontier_equal: bool
    #: the frontiers differ only where float noise breaks a tie: every accord point is
    #: NegMAS's, and each extra NegMAS point is weakly dominated (within 1e-9) by one of
    #: accord's (accord rounds utilities to 12 significant decimals before comparing)
    frontier_ties_only: bool
    nash_equal: bool
    #: accord's Nash point with NegMAS's disagreement point max(BATNA, lowest utility)
    nash_equal_same_disagreement: bool
    accord_nash: tuple[float, ...] | None
    negmas_nash: list[tuple[float, ...]]
    accord_seconds: float
    negmas_seconds: float
    #: NegMAS's own Genius reader: utilities proportional to accord's per party, and the
    #: same Pareto-optimal outcomes (None when no folder was given)
    loader_proportional: bool | None = None
    loader_pareto_equal: bool | None = None
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return dict(self.__dict__)


def negmas_analysis(scenario: Scenario) -> tuple[set[tuple[float, ...]],
                                                 list[tuple[float, ...]], float]:
    """NegMAS's Pareto utility vectors and Nash points of ``scenario``'s utilities and
    BATNAs (at time 0), and the seconds NegMAS took."""
    from negmas.preferences import nash_points, pareto_frontier

    from accord.agents.negmas_adapter import negmas_ufun

    made = [negmas_ufun(p.utility, scenario.space, p.batna) for p in scenario.parties]
    os_ = made[0][0]
    ufuns = [u for _, u in made]
    t0 = time.perf_counter()
    front, _ = pareto_frontier(ufuns, issues=os_.issues)
    nash = nash_points(ufuns, front, outcome_space=os_)
    seconds = time.perf_counter() - t0
    return _vectors(front), sorted(_vectors(v for v, _ in nash)), seconds


def _negmas_loader(folder: Path, scenario: Scenario) -> tuple[bool, bool, str | None]:
    """(proportional utilities, same Pareto outcomes, a note) for NegMAS's own reading."""
    from negmas.inout import Scenario as NegmasScenario

    try:
        ns = NegmasScenario.from_genius_folder(folder, ignore_discount=True)
    except Exception as exc:  # NegMAS's reader fails in its own ways
        return False, False, f"NegMAS's Genius reader cannot read it: {exc}"
    if ns is None:
        return False, False, "NegMAS could not read the folder"
    by_name = {u.name: u for u in ns.ufuns}
    names = list(scenario.party_names)
    if sorted(by_name) != sorted(names):
        return False, False, f"NegMAS names the parties {sorted(by_name)}"
    order = [str(i.name) for i in ns.outcome_space.issues]
    own = scenario.utility_matrix
    theirs = np.empty_like(own)
    for k in range(scenario.space.size):
        pkg = scenario.space.package(k)
        outcome = tuple(pkg[n] for n in order)
        for j, name in enumerate(names):
            theirs[k, j] = float(by_name[name](outcome))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(own == 0, np.nan, theirs / own)
    lo, hi = np.nanmin(ratio, axis=0), np.nanmax(ratio, axis=0)
    proportional = bool(np.allclose(lo, hi, rtol=1e-9) and np.all(lo > 0)
                        and np.allclose(theirs[own == 0], 0.0))
    mine = set(pareto_indices(canonical_utilities(own)).tolist())
    other = set(pareto_indices(canonical_utilities(theirs)).tolist())
    note = None
    if not proportional:
        note = ("NegMAS's Genius reader gives other utilities than Genius's rules (a "
                "discrete issue's evaluations are not divided by the issue's largest one, "
                "or the weights are not scaled to sum 1)")
    return proportional, mine == other, note


def compare(scenario: Scenario, folder: str | Path | None = None) -> Comparison:
    """Compare accord's analysis of ``scenario`` with NegMAS's (see the module docstring);
    ``folder`` is the Genius folder it was imported from, to also check NegMAS's reader."""
    from accord.domains.bargaining import analyze

    t0 = time.perf_counter()
    data = analyze(scenario)
    accord_seconds = time.perf_counter() - t0
    names = list(scenario.party_names)
    # NegMAS's frontier is of the rational outcomes only (at or above every reserved
    # value); accord lists every Pareto-optimal outcome and marks the rational ones
    mine = _vectors([p["utilities"][n] for n in names] for p in data["pareto"]
                    if p["individually_rational"])
    front, nash, negmas_seconds = negmas_analysis(scenario)
    accord_nash = None if data["nash"] is None else tuple(
        round(float(data["nash"]["utilities"][n]), DECIMALS) for n in names)
    u = canonical_utilities(scenario.utility_matrix)
    d = np.maximum(scenario.batnas, u.min(axis=0))
    same_d = nash_point(u, d)
    same_d_vec = None if same_d is None else tuple(round(float(x), DECIMALS) for x in u[same_d])
    notes: list[str] = []
    if accord_nash not in nash and same_d_vec in nash:
        notes.append("the Nash points differ only by the disagreement point: NegMAS uses "
                     "max(reserved value, lowest utility), accord the BATNA")
    elif accord_nash is None and nash and same_d_vec not in nash:
        notes.append("no outcome is individually rational: accord reports no Nash point, "
                     "NegMAS one of the frontier")
    extra = front - mine
    ties = not (mine - front) and all(
        any(all(a >= b - 1e-9 for a, b in zip(m, x, strict=True)) for m in mine)
        for x in extra)
    if extra and ties:
        notes.append(f"{len(extra)} NegMAS frontier point(s) are weakly dominated by an "
                     "accord point once float noise is rounded away (e.g. 0.55 against "
                     "0.5499999999999999)")
    # no rational outcome: neither side has a Nash point, which is agreement too
    nash_equal = accord_nash in nash or (accord_nash is None and not nash)
    same_d_equal = same_d_vec in nash or (same_d_vec is None and not nash)
    out = Comparison(scenario.name, scenario.space.size, len(mine), mine == front, ties,
                     nash_equal, same_d_equal, accord_nash, nash,
                     accord_seconds, negmas_seconds, notes=notes)
    if folder is not None:
        prop, same, note = _negmas_loader(Path(folder), scenario)
        out.loader_proportional, out.loader_pareto_equal = prop, same
        if note:
            out.notes.append(note)
    return out


__all__ = ["DECIMALS", "Comparison", "compare", "negmas_analysis"]
