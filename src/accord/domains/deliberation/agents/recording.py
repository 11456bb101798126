"""What deliberation agents record for the metrics: state estimates and tool calls.

Any agent (code or LLM scaffold) that mixes in :class:`DeliberationRecorder` has its
estimates (for HR and NMAE_pub) and tool outputs (for Tool NR and compliance) copied into
the episode record by the domain after the episode.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any


class DeliberationRecorder:
    """Mixin holding per-episode estimate and tool-call logs."""

    estimates: list[dict[str, Any]]
    tool_calls: list[dict[str, Any]]

    def clear_records(self) -> None:
        """Start a new episode."""
        self.estimates = []
        self.tool_calls = []

    def record_estimate(self, round_: int, estimate: Mapping[str, Any]) -> None:
        """Log the agent's estimate of the state at ``round_``."""
        self.estimates.append({"round": round_, "estimate": copy.deepcopy(dict(estimate))})

    def record_tool(self, round_: int, output: Mapping[str, Any]) -> None:
        """Log one tool output (``{"tool": "solver" | "calculator", ...}``)."""
        self.tool_calls.append({"round": round_, **copy.deepcopy(dict(output))})

    def last_solver_decision(self) -> Any:
        """The decision of the most recent successful Solver call, or None."""
        for call in reversed(getattr(self, "tool_calls", [])):
            if call.get("tool") == "solver" and "decision" in call:
                return call["decision"]
        return None
