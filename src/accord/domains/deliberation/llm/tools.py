"""The scaffold's side of the tools: dispatching tool calls and the paper's automatic mode.

Tool use is ``call`` (the model asks for a tool with ``<TOOL>{...}</TOOL>`` in the
planning and decision steps and gets ``<TOOL_RESULT>{...}</TOOL_RESULT>`` back) or
``auto`` (as in the paper's prompts: the Solver and Calculator run on the agent's
estimate before those steps and their outputs are part of the prompt). Both tools always
work on the agent's *estimated* state (:mod:`accord.domains.deliberation.agent_tools`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accord.domains.deliberation.agent_tools import calculator_tool, solver_tool
from accord.domains.deliberation.agents.knowledge import estimate as code_estimate
from accord.domains.deliberation.llm.replies import ToolCall
from accord.domains.deliberation.protocol import DeliberationObservation

TOOL_USES: tuple[str, ...] = ("call", "auto")
"""How tools reach the model when an episode has ``tools`` on."""


def run_tool(call: ToolCall, shared: Mapping[str, Any], estimate: Mapping[str, Any]
             ) -> dict[str, Any]:
    """Run one tool call on the estimate (the calculator's ``proposal`` is optional)."""
    if call.name == "solver":
        return solver_tool(shared, estimate)
    proposal = call.args.get("proposal")
    if isinstance(proposal, Mapping) and "menu_proposal" in proposal:
        proposal = proposal["menu_proposal"]
    elif isinstance(proposal, Mapping) and isinstance(proposal.get("allocation"), Mapping):
        proposal = proposal["allocation"]
    return calculator_tool(shared, estimate, proposal)


def auto_tools(shared: Mapping[str, Any], estimate: Mapping[str, Any],
               proposal: Any = None) -> list[dict[str, Any]]:
    """The outputs the paper puts in a prompt: Solver, then Calculator (of ``proposal``)."""
    return [solver_tool(shared, estimate), calculator_tool(shared, estimate, proposal)]


def fallback_estimate(obs: DeliberationObservation) -> dict[str, Any]:
    """An estimate from the agent's own observation only (when the model gave none)."""
    return code_estimate(obs, [], None)
