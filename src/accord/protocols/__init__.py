"""Protocols: explicit state machines over typed moves, the agent interface, and the engine
that runs one episode.

The package face: :class:`Agent` (what every party implements), :class:`Protocol` and the
step results (:class:`Invalid`, :class:`Termination`, :class:`Progress`, :class:`Note`,
:class:`Observation`), :func:`run_episode` with :class:`Bounds` and
:class:`EpisodeResult`, the termination judge interface, and the alternating-offers
state machine, and the :class:`ProtocolKit` a conformance check exercises a protocol
with. All of it is pure (numpy and the standard library only).
"""

from accord.protocols.agent import Agent, AgentQuit
from accord.protocols.alternating import AlternatingConfig, AlternatingOffers
from accord.protocols.base import Invalid, Note, Observation, Progress, Protocol, Termination
from accord.protocols.engine import Bounds, EpisodeResult, run_episode
from accord.protocols.judge import JudgeVerdict, RuleJudge, TerminationJudge
from accord.protocols.kit import ProtocolKit

__all__ = [
    "Agent",
    "AgentQuit",
    "AlternatingConfig",
    "AlternatingOffers",
    "Bounds",
    "EpisodeResult",
    "Invalid",
    "JudgeVerdict",
    "Note",
    "Observation",
    "Progress",
    "Protocol",
    "ProtocolKit",
    "RuleJudge",
    "Termination",
    "TerminationJudge",
    "run_episode",
]
