"""The agent interface lives beside the protocols (:mod:`accord.protocols.agent`); this
module keeps the old import path ``accord.agents.base.Agent`` working, and offers
``CodeAgent``, the base of agents that decide in code without waiting (the engine asks
them without a coroutine per turn)."""

from accord.protocols.agent import Agent, CodeAgent

__all__ = ["Agent", "CodeAgent"]
