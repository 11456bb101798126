"""accord: negotiation and deliberation between agents.

LLM agents, game-theoretic workflow agents executed in code, classic concession
strategies and people negotiate through one engine with typed moves, private
utilities, BATNA-anchored walk-away, bounded runs and full trajectory logs.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("accord")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+source"

__all__ = ["__version__"]
