"""accord: negotiation and deliberation between agents.

LLM agents, game-theoretic workflow agents executed in code, classic concession
strategies and people negotiate through one engine with typed moves, private
utilities, BATNA-anchored walk-away, bounded runs and full trajectory logs.
"""

from accord._version import __version__

__all__ = ["__version__"]
