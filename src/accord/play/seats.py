"""Who sits where: the seats of a scenario in line-up order, and hot-seat play.

A line-up with two or more ``human`` agents (``accord run ... --agents human,human``) is
*hot-seat* play: the people share one terminal and take turns at the keyboard. Each of
their turns then starts with a hand-over that names whose seat it is ("Seat 2, seller:
your turn; pass the keyboard to seller") after the screen was cleared of the previous
person's private view, so one person's preferences are never on screen while the other
sits there (:class:`accord.play.terminal.TerminalSeat` does the clearing and the
hand-over; this module only knows seats and words).

A seat's number is its position in the line-up, counted from 1: the ``N``-th agent of
``--agents`` plays the ``N``-th role of :func:`roles_of`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def roles_of(domain: str, scenario: str, data: str | None = None) -> tuple[str, ...]:
    """The seats (roles) of a scenario, in line-up order."""
    if domain == "bargaining":
        from accord.domains.bargaining import resolve_scenario

        return tuple(resolve_scenario(scenario).party_names)
    if domain == "deal-or-no-deal":
        from accord.domains.deal_or_no_deal.protocol import ROLES

        return ROLES
    if domain == "task-exchange":
        from accord.domains.task_exchange.load import get_scenario

        return tuple(get_scenario(scenario).roles)
    if domain == "deliberation":
        from accord.domains.deliberation.catalog import shipped_instance
        from accord.domains.deliberation.domain import parse_scenario

        return tuple(shipped_instance(*parse_scenario(scenario, {})).agents)
    from accord.domains.games.catalog import resolve_game

    return tuple(resolve_game(scenario).players)


def people_in(agents: Sequence[Any]) -> list[int]:
    """Positions (0-based) of the ``human`` agents in a line-up of agent specs."""
    return [i for i, a in enumerate(agents) if getattr(a, "kind", None) == "human"]


def person_seats(domain: str, scenario: str, agents: Sequence[Any],
                 data: str | None = None) -> dict[str, int]:
    """``{role: seat number}`` (1-based line-up position) of every person in ``agents``;
    empty when the scenario's roles cannot be listed here (an installed domain, a file
    that fails to load): a seat is then numbered in the order it first moves."""
    people = people_in(agents)
    if not people:
        return {}
    try:
        roles = roles_of(domain, scenario, data)
    except Exception:  # naming seats is a courtesy: the episode itself reports bad input
        return {}
    if len(roles) != len(agents):
        return {}
    return {roles[i]: i + 1 for i in people}


def seat_name(role: str, number: int | None) -> str:
    """How a seat is named to people: ``Seat 2, seller`` (``seller`` without a number)."""
    return role if number is None else f"Seat {number}, {role}"


def handover_text(role: str, number: int | None) -> str:
    """The line that hands the keyboard over to ``role``'s person."""
    return (f"{seat_name(role, number)}: your turn; pass the keyboard to {role}. "
            f"Only {role} should look at the screen until the next hand-over.")


def lineup_seats(agents: Sequence[Any], seats: Mapping[str, int]) -> dict[int, str]:
    """``{0-based position: role}`` of the people in ``agents`` from :func:`person_seats`
    (for the stored line-up label, ``human (buyer) vs human (seller)``)."""
    people = set(people_in(agents))
    return {n - 1: role for role, n in seats.items() if n - 1 in people}


__all__ = ["handover_text", "lineup_seats", "people_in", "person_seats", "roles_of",
           "seat_name"]
