"""Voting rules of multi-party bargaining: who must say yes, whose yes counts, who is bound.

A round's package passes when at least ``k`` parties say yes (the proposer's offer is its
own yes) and every *required* party (a veto holder) is among them. Under a *threshold*
rule a yes counts only if the package gives the voter at least its minimum (LLM-Deliberation:
"You cannot accept any deal with a score less than" the minimum); a yes below it is void.
A party with a *unanimity bonus* (LLM-Deliberation's p1 gets 10 points when every party
agrees) meets its minimum with the bonus added when every other party's yes counts.
A passed package binds the parties whose yes counted (``binding="accepters"``, the default:
a partial deal is never imposed on a party that rejected it) or everyone
(``binding="all"``: the vote decides for all, as in LLM-Deliberation's games). Pure
functions over plain data; :mod:`accord.protocols.alternating` calls them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

#: how a passed deal binds: the parties whose yes counted, or every party
BINDINGS = ("accepters", "all")


@dataclass(frozen=True, slots=True)
class Tally:
    """One vote on one package: ``valid`` yes votes, ``void`` ones (below the voter's
    minimum), the required parties without a valid yes, and whether the package passed."""

    valid: tuple[str, ...]
    void: tuple[str, ...]
    missing_required: tuple[str, ...]
    passed: bool


def tally(parties: Sequence[str], yes: Sequence[str], k: int, required: Sequence[str],
          minimums: Mapping[str, float], utility: Callable[[str], float],
          bonus: Mapping[str, float] | None = None) -> Tally:
    """The vote on a package: ``yes`` are the parties that said yes (the proposer
    included), ``k`` the valid yes votes needed, ``required`` the parties whose valid yes
    is needed, ``minimums`` per-party minimum utilities a yes must meet, ``utility(p)``
    party ``p``'s utility of the package and ``bonus`` per-party unanimity bonuses.
    Parties are listed in ``parties`` order."""
    said = set(yes)
    valid: list[str] = []
    void: list[str] = []
    for p in parties:
        if p not in said:
            continue
        floor = minimums.get(p)
        if floor is not None and utility(p) < floor:
            void.append(p)
        else:
            valid.append(p)
    if bonus and void and len(valid) == len(parties) - 1:
        # every other party's yes counts: the deal is unanimous if p's does, so p's
        # bonus is part of its score
        p = void[0]
        if p in bonus and utility(p) + bonus[p] >= minimums[p]:
            void = []
            valid = [q for q in parties if q in said]
    ok = set(valid)
    missing = tuple(r for r in required if r not in ok)
    return Tally(tuple(valid), tuple(void), missing, len(valid) >= k and not missing)


def bound_parties(parties: Sequence[str], valid: Sequence[str], binding: str
                  ) -> tuple[str, ...]:
    """Who a passed deal binds, in ``parties`` order."""
    if binding == "all":
        return tuple(parties)
    ok = set(valid)
    return tuple(p for p in parties if p in ok)


def check_rules(parties: Sequence[str], required: Sequence[str],
                minimums: Mapping[str, float], binding: str, opener: str | None) -> None:
    """``ValueError`` naming the rule that does not fit the parties."""
    known = set(parties)
    listed = ", ".join(parties)
    for r in required:
        if r not in known:
            raise ValueError(f"required acceptor {r!r} is not a party ({listed})")
    if len(set(required)) != len(required):
        raise ValueError(f"required acceptors {list(required)} name a party twice")
    for p in minimums:
        if p not in known:
            raise ValueError(f"threshold of {p!r}: not a party ({listed})")
    if binding not in BINDINGS:
        raise ValueError(f"binding must be one of {', '.join(BINDINGS)}, got {binding!r}")
    if opener is not None and opener not in known:
        raise ValueError(f"opener {opener!r} is not a party ({listed})")


__all__ = ["BINDINGS", "Tally", "bound_parties", "check_rules", "tally"]
