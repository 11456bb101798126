"""Utility-aware task decomposition and exchange between two agents (seed 000).

Importing this package registers the ``task-exchange`` domain. Public pieces: the
scenario model and loader, the reply parser, proposal validation, the protocol, the
Figure 7 prompt renderers, the code, scripted and LLM agents, the LLM scenario generators,
metrics and the Figure 2 plot.
"""

from __future__ import annotations

from accord.domains.base import register_domain
from accord.domains.task_exchange.code_agents import UtilityAwareAgent, selfish_agent
from accord.domains.task_exchange.domain import (
    AGENT_KINDS,
    DEFAULT_RETRIES,
    AgentFactory,
    TaskExchangeDomain,
    build_agent,
    build_protocol,
    episode_key,
    play,
)
from accord.domains.task_exchange.generation import (
    build_scenario,
    parse_description,
    parse_score,
    scenario_to_yaml,
    universe_to_yaml,
)
from accord.domains.task_exchange.generators import (
    GenerationError,
    generate_descriptions,
    generate_raw_scores,
    generate_scenario,
    load_preferences,
)
from accord.domains.task_exchange.llm_agent import TaskExchangeLLMAgent, build_llm_agent
from accord.domains.task_exchange.loader import (
    builtin_scenarios,
    get_scenario,
    load_scenario,
    load_task_list,
    load_universe,
)
from accord.domains.task_exchange.masks import complement, format_mask, parse_mask
from accord.domains.task_exchange.metrics import (
    episode_metrics,
    initial_row,
    l2_to_front,
    pareto_front,
    scenario_front,
    table1_row,
    table2_row,
)
from accord.domains.task_exchange.parser import (
    format_proposal,
    parse_assignment,
    parse_reply,
    strip_consider,
)
from accord.domains.task_exchange.plot import proposal_path, render_trajectories_png
from accord.domains.task_exchange.prompts import (
    render_describe_prompt,
    render_describe_request,
    render_prompt,
    render_score_request,
    render_system_prompt,
    render_turn_prompt,
    setup_block,
    state_block,
)
from accord.domains.task_exchange.protocol import (
    STRATEGIES,
    HistoryEntry,
    Proposal,
    TaskExchangeObservation,
    TaskExchangeProtocol,
    TaskExchangeState,
)
from accord.domains.task_exchange.scenario import (
    AgentProfile,
    AtomicTask,
    MainTask,
    PrivateView,
    Scenario,
    ScenarioError,
    TaskUniverse,
    normalise_scores,
)
from accord.domains.task_exchange.scripted import ScriptedAgent, parse_script
from accord.domains.task_exchange.tables import STRATEGY_LABELS, format_tables, paper_tables
from accord.domains.task_exchange.validation import (
    PATTERN_TITLES,
    PATTERNS,
    Violation,
    check_assignment,
)

DOMAIN = register_domain(TaskExchangeDomain())
"""The registered ``task-exchange`` domain instance."""

__all__ = [
    "AGENT_KINDS",
    "DEFAULT_RETRIES",
    "DOMAIN",
    "PATTERNS",
    "PATTERN_TITLES",
    "STRATEGIES",
    "STRATEGY_LABELS",
    "AgentFactory",
    "AgentProfile",
    "AtomicTask",
    "GenerationError",
    "HistoryEntry",
    "MainTask",
    "PrivateView",
    "Proposal",
    "Scenario",
    "ScenarioError",
    "ScriptedAgent",
    "TaskExchangeDomain",
    "TaskExchangeLLMAgent",
    "TaskExchangeObservation",
    "TaskExchangeProtocol",
    "TaskExchangeState",
    "TaskUniverse",
    "UtilityAwareAgent",
    "Violation",
    "build_agent",
    "build_llm_agent",
    "build_protocol",
    "build_scenario",
    "builtin_scenarios",
    "check_assignment",
    "complement",
    "episode_key",
    "episode_metrics",
    "format_mask",
    "format_proposal",
    "format_tables",
    "generate_descriptions",
    "generate_raw_scores",
    "generate_scenario",
    "get_scenario",
    "initial_row",
    "l2_to_front",
    "load_preferences",
    "load_scenario",
    "load_task_list",
    "load_universe",
    "normalise_scores",
    "paper_tables",
    "pareto_front",
    "parse_assignment",
    "parse_description",
    "parse_mask",
    "parse_reply",
    "parse_score",
    "parse_script",
    "play",
    "proposal_path",
    "render_describe_prompt",
    "render_describe_request",
    "render_prompt",
    "render_score_request",
    "render_system_prompt",
    "render_trajectories_png",
    "render_turn_prompt",
    "scenario_front",
    "scenario_to_yaml",
    "selfish_agent",
    "setup_block",
    "state_block",
    "strip_consider",
    "table1_row",
    "table2_row",
    "universe_to_yaml",
]
