"""The seat a person sits in: one interface, one implementation per front end.

A :class:`~accord.agents.human.agent.HumanAgent` turns each observation into a
:class:`Turn` (the person's *private* view as plain data, the feedback on their last
attempt, the legal move kinds) and awaits a :class:`Seat` for the person's reply. The
terminal (:mod:`accord.play.terminal`) and the browser (:mod:`accord.play.web`)
each implement :meth:`Seat.ask`; neither builds moves or validates them -- the agent turns
the reply into a typed move and the protocol validates it like any other agent's.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


class SeatClosed(Exception):
    """The person left (end of input, interrupt, closed page): the episode ends, recorded."""


@dataclass(frozen=True)
class Turn:
    """What a person is shown when asked to move.

    ``view`` is JSON-ready data holding only this role's private view and public history
    (never another party's utility, values or BATNA); its ``domain`` key names the layout
    (``bargaining``, ``deal-or-no-deal``, ``games``). ``feedback`` is the protocol's
    ``{"reason", "feedback"}`` on the previous attempt in this turn, or ``None``.
    ``evaluate`` scores a candidate package for this role (``None`` when the domain has
    no package), so a front end can show the utility of a package while it is built.
    """

    domain: str
    role: str
    round: int
    legal: tuple[str, ...]
    view: Mapping[str, Any]
    feedback: Mapping[str, Any] | None = None
    attempt: int = 1
    evaluate: Callable[[Mapping[str, Any]], float | None] | None = field(
        default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (without ``evaluate``) for web pages and logs."""
        return {"domain": self.domain, "role": self.role, "round": self.round,
                "legal": list(self.legal), "view": dict(self.view),
                "feedback": None if self.feedback is None else dict(self.feedback),
                "attempt": self.attempt}


Reply = Mapping[str, Any]
"""A person's answer: ``{"kind": ..., ...}`` with the move's fields as plain data, e.g.
``{"kind": "offer", "package": {...}, "message": "..."}``, ``{"kind": "accept"}``,
``{"kind": "reject", "counter": {...} | None}``, ``{"kind": "walk"}``,
``{"kind": "message", "text": "..."}``, ``{"kind": "action", "action": "C"}``."""


class Seat(ABC):
    """Where a person's moves come from (a terminal, a browser page)."""

    @abstractmethod
    async def ask(self, turn: Turn) -> Reply:
        """Show ``turn`` to the person and return their reply; raise :class:`SeatClosed`
        when the person leaves."""
