"""Protocols: explicit state machines over typed moves, the agent interface, and the engine
that runs one episode.

The package face: :class:`Agent` (what every party implements; :class:`CodeAgent` for
one that decides without waiting), :class:`Protocol` and the
step results (:class:`Invalid`, :class:`Termination`, :class:`Progress`, :class:`Note`,
:class:`Observation`), :func:`run_episode` with :class:`Bounds` and
:class:`EpisodeResult`, the termination judge interface, and the alternating-offers
state machine, and the :class:`ProtocolKit` a conformance check exercises a protocol
with. All of it is pure (numpy and the standard library only). The face is lazy (PEP 562,
:func:`accord._lazy.lazy_exports`): a name's module is imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accord._lazy import lazy_exports

# each name's module is imported on first use (the same names as the imports below), so a
# run of one protocol does not load the others nor the conformance kit
__getattr__, __dir__ = lazy_exports(__name__, {
    ".agent": ("Agent", "AgentQuit", "CodeAgent"),
    ".alternating": ("AlternatingConfig", "AlternatingOffers"),
    ".base": ("Invalid", "Note", "Observation", "Progress", "Protocol", "Termination"),
    ".engine": ("Bounds", "EpisodeResult", "run_episode"),
    ".judge": ("JudgeVerdict", "RuleJudge", "TerminationJudge"),
    ".kit": ("ProtocolKit",),
})

if TYPE_CHECKING:
    from accord.protocols.agent import Agent, AgentQuit, CodeAgent
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
    "CodeAgent",
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
