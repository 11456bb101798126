"""The LLM agent scaffold of the deliberation benchmark and its agent kinds.

Agent kinds (registered with :func:`~accord.domains.deliberation.domain.register_agent_kind`):

* ``llm:MODEL`` - the four-module scaffold; it plays whatever the episode's mode asks:
  deliberation (partial observations), ``oracle`` (merged observations) or
  ``centralized`` (one agent, one decision), e.g.
  ``llm:openai/gpt-4.1-mini?temperature=0.3``;
* ``llm-centralized:MODEL`` and ``llm-oracle:MODEL`` - the same agent, naming the
  baseline so the mode is inferred without ``params.mode``.

Options (after ``?``): generation options (``temperature``, ``max_tokens``, ``top_p``,
``seed``), ``tool_use`` (``call``: the model calls the tools with ``<TOOL>{...}</TOOL>``;
``auto``: the tools run on its estimate and their outputs are in the prompts, as in the
paper) and ``max_tool_calls`` (per planning / decision step, default 3). Tools are on
when the episode has ``tools: true`` (``--tools``).
"""

from __future__ import annotations

from collections.abc import Mapping

from accord.agents.base import Agent
from accord.agents.llm_base import check_model_spec, llm_client
from accord.agents.spec import AgentSpec, AgentSpecError
from accord.domains.deliberation.domain import AgentContext, register_agent_kind
from accord.domains.deliberation.llm.agent import LLMDeliberator
from accord.domains.deliberation.llm.prompts import MODULES, dump, system_prompt
from accord.domains.deliberation.llm.replies import (
    Plan,
    ToolCall,
    Verdict,
    parse_estimate,
    parse_message,
    parse_plan,
    parse_verdict,
)
from accord.domains.deliberation.llm.tools import TOOL_USES, auto_tools, run_tool

AGENT_OPTIONS: tuple[str, ...] = ("tool_use", "max_tool_calls")
"""Spec options that configure the scaffold rather than the model."""


def _agent_options(spec: AgentSpec) -> tuple[str, int]:
    check_model_spec(spec, AGENT_OPTIONS)  # the model first, then the scaffold's options
    tool_use = str(spec.options.get("tool_use", "call"))
    if tool_use not in TOOL_USES:
        raise AgentSpecError(f"{spec}: tool_use must be {' or '.join(TOOL_USES)}, got "
                             f"{tool_use!r}")
    calls = spec.options.get("max_tool_calls", 3)
    if isinstance(calls, bool) or not isinstance(calls, int) or calls < 0:
        raise AgentSpecError(f"{spec}: max_tool_calls must be a whole number >= 0, got {calls!r}")
    return tool_use, calls


def check_spec(spec: AgentSpec) -> None:
    """Raise :class:`AgentSpecError` when an LLM agent spec cannot work (no I/O)."""
    _agent_options(spec)


def build_agent(spec: AgentSpec, ctx: AgentContext) -> Agent:
    """An :class:`LLMDeliberator` from its spec, with the run's LLM settings and episode id."""
    tool_use, calls = _agent_options(spec)
    client, config = llm_client(spec, ctx.run.llm, AGENT_OPTIONS)
    return LLMDeliberator(client, config, episode=ctx.run.episode_id or None,
                          tool_use=tool_use, max_tool_calls=calls)


KINDS: Mapping[str, str | None] = {"llm": None, "llm-centralized": "centralized",
                                   "llm-oracle": "oracle"}
"""The LLM agent kinds and the episode mode each implies (None: any)."""

for _kind, _mode in KINDS.items():
    register_agent_kind(_kind, build_agent, mode=_mode, check=check_spec)

__all__ = [
    "AGENT_OPTIONS",
    "KINDS",
    "MODULES",
    "TOOL_USES",
    "LLMDeliberator",
    "Plan",
    "ToolCall",
    "Verdict",
    "auto_tools",
    "build_agent",
    "check_spec",
    "dump",
    "parse_estimate",
    "parse_message",
    "parse_plan",
    "parse_verdict",
    "run_tool",
    "system_prompt",
]
