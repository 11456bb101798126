"""The one agent interface (DESIGN.md principle 4).

LLM, workflow, concession, replay and human agents are interchangeable: each
implements ``async act(observation) -> move`` and ``reset``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from accord.core.moves import Move
from accord.protocols.base import Observation


class AgentQuit(Exception):
    """Raised by an agent whose operator ended the episode (a person leaving their seat).

    The engine records it as ``no_deal`` with reason ``quit`` naming the role, not as an
    error: nothing went wrong, somebody chose to stop.
    """


class Agent(ABC):
    """A negotiating party (or a mediator): sees observations, returns moves."""

    #: registry name of the agent kind, e.g. ``boulware``
    name: str = "agent"
    #: in a forked episode (:mod:`accord.protocols.fork`), the agent acts on the parent's
    #: replayed turns (its move is not used) so its own state is what it would have been;
    #: ``False`` for agents that must not be asked again (a person)
    replays_turns: bool = True

    def reset(self, rng: np.random.Generator | None = None) -> None:
        """Forget everything from a previous episode; ``rng`` drives any randomness
        (without one, ``np.random.default_rng(0)``)."""
        self._rng = rng  # None: the default generator, made when first used
        self._entropy: tuple[int, ...] | None = None

    def reset_seeded(self, *entropy: int) -> None:
        """``reset(np.random.default_rng([*entropy]))``: how the domains seed each party
        (``entropy`` is the episode's seed and the party's index). An agent whose class
        keeps this base class's :meth:`reset` (which only stores the generator) gets the
        same generator made when it first asks for :attr:`rng`: most code agents never
        draw, and a seeded generator costs about 35 us, a tenth of a short episode."""
        if type(self).reset is Agent.reset:
            self._rng = None
            self._entropy = entropy
        else:
            self.reset(np.random.default_rng(list(entropy)))

    @property
    def rng(self) -> np.random.Generator:
        """The generator :meth:`reset` was given (or :meth:`reset_seeded`'s, made now), or
        ``np.random.default_rng(0)`` made on first use: a fresh generator costs ~20 us, and
        every agent is reset once when built and again with its episode's generator (most
        never draw from the first)."""
        got: np.random.Generator | None = getattr(self, "_rng", None)
        if got is None:
            entropy = getattr(self, "_entropy", None)
            got = self._rng = np.random.default_rng(0 if entropy is None else list(entropy))
        return got

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self._rng = value

    @abstractmethod
    async def act(self, observation: Observation) -> Move:
        """The agent's move for this observation."""

    def drain_notes(self) -> list[dict[str, Any]]:
        """Events the agent wants logged since the last call (guard findings, LLM calls).

        Each is ``{"name": str, "data": {...}}``; ``"flag": True`` also counts it on the
        episode record's flags under ``name``. Default: none.
        """
        return []

    def usage(self) -> dict[str, Any]:
        """Resource usage for this episode (token counts for LLM agents); empty by default."""
        return {}

    def describe(self) -> str:
        """A short label for transcripts."""
        return self.name


class CodeAgent(Agent):
    """An agent that decides in code, without waiting for anything: its move is
    :meth:`act_now`'s, and :meth:`act` only hands that back.

    The engine asks such an agent directly (no coroutine, no await per turn) as long as
    its class keeps this :meth:`act`; a subclass that overrides ``act`` is asked through
    it, like any other agent. The moves, the log and the record are the same either way.
    """

    @abstractmethod
    def act_now(self, observation: Observation) -> Move:
        """The agent's move for this observation, decided now."""

    async def act(self, observation: Observation) -> Move:
        return self.act_now(observation)


def acts_now(agent: Agent) -> bool:
    """Whether the engine may call ``agent.act_now`` instead of awaiting ``agent.act``: a
    :class:`CodeAgent` whose class keeps :meth:`CodeAgent.act` (an instance attribute
    ``act``, a test's patch, counts as an override)."""
    return (isinstance(agent, CodeAgent) and type(agent).act is CodeAgent.act
            and "act" not in getattr(agent, "__dict__", ()))
