"""The ``human`` agent: a person takes a seat in any episode (terminal or browser).

:class:`HumanAgent` asks a :class:`Seat` for each move through a domain's
:class:`HumanView`; the protocol validates the person's moves like any other agent's.
"""

from __future__ import annotations

from accord.agents.human.agent import HumanAgent, HumanView, seat_from
from accord.agents.human.seat import Reply, Seat, SeatClosed, Turn

__all__ = ["HumanAgent", "HumanView", "Reply", "Seat", "SeatClosed", "Turn", "seat_from"]
