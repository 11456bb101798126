"""Seed 002's stagnation rule, as pure functions over the offer record.

The seed: "if no agent moves further than ε on any issue for K consecutive rounds,
force WALK or escalate to mediator", walking first: "if an agent's best available offer
is below its BATNA after K consecutive rounds without improvement, the stagnation
detector fires and that agent WALKs"; only when nobody walks does the (optional)
mediator surface a package.

How far a proposer *moved* in a round (its offer against its own previous offer) is
measured one of two ways (:data:`MEASURES`):

``utility``
    the concession in the proposer's own utility, ``u(previous) - u(current)``
    (accord's original detector; a move that raises the proposer's utility is no
    concession);
``issues``
    the seed's wording, "on any issue": the largest ordinal distance over the issues,
    ``max_i |pos_i(current) - pos_i(previous)| / (len(values_i) - 1)``, so each issue's
    distance is in [0, 1] whatever its number of values (one step on a three-valued issue
    is 0.5). Any change of value on any issue counts, in either direction.

A round is stagnant when its proposer moved by no more than ``epsilon``. The detector
fires after ``rounds`` (K) consecutive stagnant rounds. The Stagnation Scorer role of the
seed may replace the code check with a model's STAGNANT / MOVING verdict on the last K
rounds' offers (see :class:`~accord.protocols.negotiation.StagnationObservation`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from accord.core.moves import Package
from accord.core.outcomes import OutcomeSpace
from accord.core.utility import UtilityFunction
from accord.protocols.negotiation import OfferRecord

MEASURES: tuple[str, ...] = ("utility", "issues")
"""How a proposer's movement between its own offers is measured."""

ORDERS: tuple[str, ...] = ("walk-first", "mediator-first")
"""What the fired detector does first. ``walk-first`` is the seed's order (a party below
its BATNA walks; only otherwise does the mediator suggest). ``mediator-first`` is
accord 0.1's order, kept as a named option to measure what mediation does for deadlocks
in which a party would otherwise walk: the mediator suggests first whenever one is
configured, and nobody walks on stagnation (without a mediator both orders walk)."""

STAGNATION_ROLE = "stagnation"
"""The role name of an external (LLM) Stagnation Scorer in the protocol."""


def check_measure(measure: str) -> str:
    """``measure`` if it is one of :data:`MEASURES`, else a specific :class:`ValueError`."""
    if measure not in MEASURES:
        raise ValueError(f"stagnation measure must be one of {', '.join(MEASURES)}; "
                         f"got {measure!r}")
    return measure


def check_order(order: str) -> str:
    """``order`` if it is one of :data:`ORDERS`, else a specific :class:`ValueError`."""
    if order not in ORDERS:
        raise ValueError(f"stagnation order must be one of {', '.join(ORDERS)}; got {order!r}")
    return order


def issue_distance(space: OutcomeSpace, a: Package, b: Package) -> float:
    """The largest per-issue ordinal distance between packages ``a`` and ``b`` (0..1)."""
    far = 0.0
    for issue in space.issues:
        span = len(issue.values) - 1
        if span <= 0:
            continue
        d = abs(issue.index(a[issue.name]) - issue.index(b[issue.name])) / span
        far = max(far, d)
    return far


def movement(measure: str, space: OutcomeSpace, utility: UtilityFunction,
             previous: Package, current: Package) -> float:
    """How far a proposer moved from ``previous`` to ``current`` under ``measure``."""
    if measure == "issues":
        return issue_distance(space, previous, current)
    return utility(previous) - utility(current)


def previous_of(history: Sequence[OfferRecord], rec: OfferRecord) -> OfferRecord | None:
    """The offer that ``rec``'s party put on the table before ``rec`` (``None`` if first).

    ``rec`` is the last record of ``history``; the search walks back from the one before it
    without copying the history (it is usually a few records back, the history is long)."""
    party = rec.party
    for i in range(len(history) - 2, -1, -1):
        r = history[i]
        if r.party == party and r.source != "mediator":
            return r
    return None


@dataclass(frozen=True)
class Walker:
    """A party whose best available offer is below its BATNA when the detector fires."""

    party: str
    best_available: float
    batna: float


def first_below_batna(parties: Sequence[str], latest: Mapping[str, OfferRecord],
                      utilities: Mapping[str, UtilityFunction],
                      batnas: Mapping[str, float]) -> Walker | None:
    """The first party in turn order whose best offer from the others is below its BATNA.

    "Available" means the latest package each other party put on the table; a party
    with no offer from anybody else has ``-inf`` available.
    """
    for name in parties:
        u = utilities[name]
        offers = [r.package for p, r in latest.items() if p != name]
        best = max((u(pk) for pk in offers), default=float("-inf"))
        if best < batnas[name]:
            return Walker(name, best, batnas[name])
    return None


def window(history: Sequence[OfferRecord], rounds: int) -> tuple[OfferRecord, ...]:
    """The parties' offers of the last ``rounds`` rounds that have offers (mediator
    suggestions left out), oldest first, plus each proposer's offer just before them so
    every move in the window can be compared."""
    own = [r for r in history if r.source != "mediator"]
    if not own:
        return ()
    last_rounds = sorted({r.round for r in own})[-rounds:]
    first = last_rounds[0]
    inside = [r for r in own if r.round >= first]
    before: list[OfferRecord] = []
    for party in dict.fromkeys(r.party for r in inside):
        prev = next((r for r in reversed(own) if r.party == party and r.round < first), None)
        if prev is not None:
            before.append(prev)
    return tuple(sorted(before, key=lambda r: r.round)) + tuple(inside)


def talk_streaks(streaks: Mapping[str, int], party: str, talked: bool) -> dict[str, int]:
    """Each party's count of consecutive message-only turns after ``party``'s move:
    one more when it only talked (no proposal, no answer), back to 0 otherwise.

    The other half of seed 002's rule for domains where a party may talk instead of
    proposing (Deal or No Deal, task exchange, deliberation): a party that only repeats
    messages makes no move either, and after K such turns the rule ends the episode
    (:func:`talk_detail`), as it does for offers that do not move in bargaining."""
    out = dict(streaks)
    out[party] = out.get(party, 0) + 1 if talked else 0
    return out


def talk_detail(party: str, turns: int) -> str:
    """The sentence of a no-deal ended by the message-only rule."""
    return (f"The stagnation rule ended the episode: {party} sent only messages (no proposal "
            f"and no answer to one) for {turns} consecutive turns (set the parameter "
            "stagnation_rounds: 0 to turn the rule off, or raise it).")


__all__ = [
    "MEASURES",
    "ORDERS",
    "STAGNATION_ROLE",
    "Walker",
    "check_measure",
    "check_order",
    "first_below_batna",
    "issue_distance",
    "movement",
    "previous_of",
    "talk_detail",
    "talk_streaks",
    "window",
]
