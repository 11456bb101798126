"""The agent interface lives beside the protocols (:mod:`accord.protocols.agent`); this
module keeps the old import path ``accord.agents.base.Agent`` working."""

from accord.protocols.agent import Agent

__all__ = ["Agent"]
