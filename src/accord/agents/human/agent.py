"""The ``human`` agent: a person's moves through the same engine as every other agent.

:class:`HumanAgent` is an ordinary :class:`~accord.protocols.agent.Agent`: the engine asks
it to act, validates what it returns, logs it, retries it with the protocol's feedback and
applies the bounds and the judge. It only translates: observation -> :class:`Turn` (through
a domain :class:`HumanView`) -> the person's reply from a :class:`Seat` -> typed move.
A person who leaves ends the episode through :class:`~accord.protocols.agent.AgentQuit`,
recorded as ``no_deal`` with reason ``quit`` naming their role.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any

from accord.agents.human.seat import Reply, Seat, SeatClosed, Turn
from accord.core.moves import Move
from accord.protocols.agent import Agent, AgentQuit
from accord.protocols.base import Observation


class HumanView(ABC):
    """A domain's rendering of its observation for a person, and reading of their reply."""

    #: the ``domain`` key of every view (picks the terminal / page layout)
    domain: str = ""

    @abstractmethod
    def view(self, obs: Observation) -> dict[str, Any]:
        """The person's private view: JSON-ready, nothing private of any other party."""

    def evaluate(self, obs: Observation) -> Callable[[Mapping[str, Any]], float | None] | None:
        """A scorer of candidate packages for this person, or ``None`` (default)."""
        return None

    @abstractmethod
    def move(self, obs: Observation, reply: Reply) -> Move:
        """The typed move for the person's reply (``Malformed`` when it cannot be read)."""


class HumanAgent(Agent):
    """A person at a :class:`Seat`, playing one role through a domain's :class:`HumanView`."""

    name = "human"
    #: a fork's replayed turns are not put to the person again (they read the transcript)
    replays_turns = False

    def __init__(self, seat: Seat, adapter: HumanView) -> None:
        self.seat = seat
        self.adapter = adapter
        self.reset()

    def turn(self, obs: Observation) -> Turn:
        """The :class:`Turn` shown to the person for ``obs``."""
        fb = None if obs.feedback is None else {"reason": obs.feedback.reason,
                                                 "feedback": obs.feedback.feedback}
        return Turn(self.adapter.domain, obs.role, obs.round, tuple(obs.legal),
                    self.adapter.view(obs), fb, obs.attempt, self.adapter.evaluate(obs))

    async def act(self, observation: Observation) -> Move:
        """Ask the person; a closed seat ends the episode as ended by the person."""
        try:
            reply = await self.seat.ask(self.turn(observation))
        except SeatClosed as exc:
            raise AgentQuit(str(exc) or "the person left the negotiation") from None
        return self.adapter.move(observation, reply)

    def describe(self) -> str:
        return "human (a person)"


def seat_from(ctx: Mapping[str, Any]) -> Seat:
    """The seat handed down in an agent factory's context, with a clear error without one."""
    seat = ctx.get("seat")
    if not isinstance(seat, Seat):
        raise ValueError("agent 'human' needs a person at a seat: use it from `accord run` "
                         "in a terminal or from the play page (`accord.play.web`); it cannot "
                         "run unattended in `accord bench`")
    return seat
