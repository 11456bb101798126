"""Deliberation agents: code agents for offline runs and the recording mixin."""

from accord.domains.deliberation.agents.code_agents import NaiveAgent, SharingAgent
from accord.domains.deliberation.agents.knowledge import (
    Knowledge,
    estimate,
    gather,
    own_facts,
)
from accord.domains.deliberation.agents.recording import DeliberationRecorder
from accord.domains.deliberation.share import pack_messages, parse_share

__all__ = [
    "DeliberationRecorder",
    "Knowledge",
    "NaiveAgent",
    "SharingAgent",
    "estimate",
    "gather",
    "own_facts",
    "pack_messages",
    "parse_share",
]
