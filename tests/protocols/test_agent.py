"""The agent base class: its generator is the one ``reset`` was given, or
``default_rng(0)`` made on first use."""

from __future__ import annotations

import numpy as np

from accord.core.moves import Accept, Move
from accord.protocols.agent import Agent
from accord.protocols.base import Observation


class _Drawing(Agent):
    async def act(self, observation: Observation) -> Move:
        return Accept()


def test_reset_without_a_generator_draws_like_default_rng_0() -> None:
    agent = _Drawing()
    agent.reset()
    assert "_rng" in vars(agent) and vars(agent)["_rng"] is None  # not made until used
    got = agent.rng.random(5)
    assert np.array_equal(got, np.random.default_rng(0).random(5))
    assert agent.rng is agent.rng  # one generator, its stream goes on
    agent.reset()  # a new episode starts the default stream again
    assert np.array_equal(agent.rng.random(5), got)


def test_reset_with_a_generator_and_assignment_use_that_generator() -> None:
    agent = _Drawing()
    gen = np.random.default_rng([3, 1])
    agent.reset(gen)
    assert agent.rng is gen
    other = np.random.default_rng(9)
    agent.rng = other
    assert agent.rng is other


def test_an_agent_never_reset_still_has_the_default_generator() -> None:
    assert np.array_equal(_Drawing().rng.random(2), np.random.default_rng(0).random(2))
