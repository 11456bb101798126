"""Shipped test helpers: protocol conformance checks and (with the llm extra) the
OpenAI-compatible stub server."""

from accord.testing.conformance import (
    ChaosAgent,
    ConformanceError,
    ConformanceReport,
    check_protocol,
)

__all__ = ["ChaosAgent", "ConformanceError", "ConformanceReport", "check_protocol"]
