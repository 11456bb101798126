"""What a conformance check needs to exercise a protocol: a :class:`ProtocolKit`.

A domain (built in or third-party) hands :func:`accord.testing.check_protocol` one kit per
protocol it ships, the way PettingZoo environments are handed to ``api_test``: how to make
a fresh protocol, how to draw a random legal move and a random illegal one for what a role
observes, and which objects are private to each role. The kit is plain data and pure
functions; the check itself lives in :mod:`accord.testing.conformance`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from accord.core.moves import Move
from accord.protocols.base import Observation, Protocol
from accord.protocols.engine import EpisodeResult

#: a random move for an observation, drawn from the generator
MoveSampler = Callable[[Observation, np.random.Generator], Move]


def reachable(obj: Any, depth: int = 0) -> Iterator[Any]:
    """Every object reachable from ``obj`` through dataclass fields and containers (bounded
    depth): what a privacy check walks over an observation."""
    yield obj
    if depth > 6:
        return
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            yield from reachable(getattr(obj, f.name), depth + 1)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from reachable(k, depth + 1)
            yield from reachable(v, depth + 1)
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for v in obj:
            yield from reachable(v, depth + 1)


ProtocolT = TypeVar("ProtocolT", bound=Protocol[Any])


def observation_check(kind: type[ProtocolT], check: Callable[[ProtocolT, str, Observation], None]
                      ) -> Callable[[Protocol[Any], str, Observation], None]:
    """A kit's ``check_observation`` from a check written for one protocol class."""
    def run(protocol: Protocol[Any], role: str, obs: Observation) -> None:
        assert isinstance(protocol, kind), f"expected a {kind.__name__}"
        check(protocol, role, obs)
    return run


def result_check(kind: type[ProtocolT], check: Callable[[ProtocolT, EpisodeResult], None]
                 ) -> Callable[[Protocol[Any], EpisodeResult], None]:
    """A kit's ``check_result`` from a check written for one protocol class."""
    def run(protocol: Protocol[Any], res: EpisodeResult) -> None:
        assert isinstance(protocol, kind), f"expected a {kind.__name__}"
        check(protocol, res)
    return run


def no_secrets(protocol: Protocol[Any], role: str) -> Sequence[object]:
    """The default privacy hook: the protocol holds nothing private per role."""
    return ()


@dataclass(frozen=True)
class ProtocolKit:
    """How to exercise one protocol.

    * ``make(i)``: a fresh protocol for episode ``i`` (vary its settings with ``i`` so the
      check covers them: mediator on and off, modes, caps);
    * ``legal(obs, rng)``: a random move the protocol must accept from that observation;
    * ``illegal(obs, rng)``: a random move it must refuse (``None``: only the generic
      illegal moves, a :class:`~accord.core.moves.Malformed` reply, are used);
    * ``private(protocol, role)``: the objects only ``role`` may ever observe (utility
      functions, value vectors, hidden information); the check fails when any other role's
      observation reaches one of them;
    * ``check_observation(protocol, role, obs)`` and ``check_result(protocol, result)``:
      optional domain invariants, raising ``AssertionError`` with a message;
    * ``max_rounds``: the round bound episodes run under;
    * ``roles(protocol)``: every role that moves, when that is more than the parties;
    * ``refuses_malformed(obs)``: whether an unparseable reply must be refused from that
      observation (default: always; a protocol that forwards raw text unchecked in some
      states, like task exchange's private first turn, says where it does not);
    * ``error_reasons``: termination reasons with which the *protocol itself* may end an
      episode with status ``error`` (default none: an error must come from exhausted
      retries or a crash); ``check_result`` should vet such endings.
    """

    name: str
    make: Callable[[int], Protocol[Any]]
    legal: MoveSampler
    illegal: MoveSampler | None = None
    private: Callable[[Protocol[Any], str], Sequence[object]] = no_secrets
    check_observation: Callable[[Protocol[Any], str, Observation], None] | None = None
    check_result: Callable[[Protocol[Any], EpisodeResult], None] | None = None
    max_rounds: int = 12
    #: every role that moves (default ``protocol.parties``; add non-party roles such as a
    #: mediator here)
    roles: Callable[[Protocol[Any]], Sequence[str]] | None = None
    refuses_malformed: Callable[[Observation], bool] | None = None
    error_reasons: frozenset[str] = frozenset()

    def movers(self, protocol: Protocol[Any]) -> Sequence[str]:
        """The roles that need an agent in ``protocol``."""
        return protocol.parties if self.roles is None else self.roles(protocol)


__all__ = ["MoveSampler", "ProtocolKit", "no_secrets", "observation_check", "reachable",
           "result_check"]
