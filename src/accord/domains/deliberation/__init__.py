"""Deliberative collaboration under partial observability (seed 001).

Menu design with numeric or semantic observations and leader-based task allocation:
databases and instances as data files, the ILP optimum, observations, the deliberation
protocol (Algorithm 1), code agents, the LLM agent scaffold (section 3), baselines, tools
and metrics, and the study's tables and analyses from a results store (Tables 2, 3 and 7,
the NMAE_pub-NR correlations: ``accord results STORE --layout deliberation``). Importing
this package registers the ``deliberation`` domain.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accord._lazy import lazy_exports

#: public name -> the submodule that defines it (imported on first use)
_EXPORTS = {
    "DOMAIN": "domain",
    "MODES": "domain",
    "SETTINGS": "load",
    "AgentContext": "domain",
    "DataError": "errors",
    "DeliberationDomain": "domain",
    "DeliberationObservation": "protocol",
    "DeliberationProtocol": "protocol",
    "DeliberationRecorder": "agents",
    "DeliberationState": "protocol",
    "Feasibility": "rewards",
    "Instance": "load",
    "InstanceError": "errors",
    "LLMDeliberator": "llm",
    "MenuDatabase": "database",
    "MenuInstance": "load",
    "NaiveAgent": "agents",
    "Optimum": "ilp",
    "SharingAgent": "agents",
    "TaskInstance": "load",
    "TeamworkDatabase": "database",
    "Utterance": "protocol",
    "analyses": "analysis",
    "build_protocol": "domain",
    "calculator_tool": "agent_tools",
    "check_decision": "rewards",
    "check_observations": "observations",
    "correlations": "stats",
    "deliberation_layout": "layout",
    "dump_instance": "load",
    "episode_metrics": "metrics",
    "estimate_instance": "agent_tools",
    "format_analyses": "layout",
    "gap_pairs": "analysis",
    "generate_setting": "generator",
    "greedy_feasible_subset": "metrics",
    "hallucination_rate": "metrics",
    "instance_count": "catalog",
    "instance_paths": "catalog",
    "instance_to_dict": "load",
    "load_instance": "load",
    "load_menu_database": "database",
    "load_teamwork_database": "database",
    "menu_reward": "rewards",
    "nmae_correlations": "analysis",
    "nmae_public": "metrics",
    "normalized_adjusted_reward": "metrics",
    "normalized_reward": "metrics",
    "ols": "stats",
    "optimum": "ilp",
    "parse_instance": "load",
    "private_observation": "observations",
    "proposal_normalizer": "protocol",
    "register_agent_kind": "domain",
    "resolve_instance": "domain",
    "reward": "rewards",
    "same_decision": "metrics",
    "sample_observation_spec": "observations",
    "select_menu_instances": "generator",
    "select_task_instances": "generator",
    "shared_info": "observations",
    "shipped_instance": "catalog",
    "solver_tool": "agent_tools",
    "table2": "analysis",
    "table3": "analysis",
    "table7": "analysis",
    "task_reward": "rewards",
    "valid_ratio": "metrics",
    "write_setting": "generator",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from accord.domains.deliberation.agent_tools import (
        calculator_tool,
        estimate_instance,
        solver_tool,
    )
    from accord.domains.deliberation.agents import DeliberationRecorder, NaiveAgent, SharingAgent
    from accord.domains.deliberation.analysis import (
        analyses,
        gap_pairs,
        nmae_correlations,
        table2,
        table3,
        table7,
    )
    from accord.domains.deliberation.catalog import instance_count, instance_paths, shipped_instance
    from accord.domains.deliberation.database import (
        MenuDatabase,
        TeamworkDatabase,
        load_menu_database,
        load_teamwork_database,
    )
    from accord.domains.deliberation.domain import (
        DOMAIN,
        MODES,
        AgentContext,
        DeliberationDomain,
        build_protocol,
        register_agent_kind,
        resolve_instance,
    )
    from accord.domains.deliberation.errors import DataError, InstanceError
    from accord.domains.deliberation.generator import (
        generate_setting,
        select_menu_instances,
        select_task_instances,
        write_setting,
    )
    from accord.domains.deliberation.ilp import Optimum, optimum
    from accord.domains.deliberation.layout import deliberation_layout, format_analyses
    from accord.domains.deliberation.llm import LLMDeliberator
    from accord.domains.deliberation.load import (
        SETTINGS,
        Instance,
        MenuInstance,
        TaskInstance,
        dump_instance,
        instance_to_dict,
        load_instance,
        parse_instance,
    )
    from accord.domains.deliberation.metrics import (
        episode_metrics,
        greedy_feasible_subset,
        hallucination_rate,
        nmae_public,
        normalized_adjusted_reward,
        normalized_reward,
        same_decision,
        valid_ratio,
    )
    from accord.domains.deliberation.observations import (
        check_observations,
        private_observation,
        sample_observation_spec,
        shared_info,
    )
    from accord.domains.deliberation.protocol import (
        DeliberationObservation,
        DeliberationProtocol,
        DeliberationState,
        Utterance,
        proposal_normalizer,
    )
    from accord.domains.deliberation.rewards import (
        Feasibility,
        check_decision,
        menu_reward,
        reward,
        task_reward,
    )
    from accord.domains.deliberation.stats import correlations, ols

__all__ = [
    "DOMAIN",
    "MODES",
    "SETTINGS",
    "AgentContext",
    "DataError",
    "DeliberationDomain",
    "DeliberationObservation",
    "DeliberationProtocol",
    "DeliberationRecorder",
    "DeliberationState",
    "Feasibility",
    "Instance",
    "InstanceError",
    "LLMDeliberator",
    "MenuDatabase",
    "MenuInstance",
    "NaiveAgent",
    "Optimum",
    "SharingAgent",
    "TaskInstance",
    "TeamworkDatabase",
    "Utterance",
    "analyses",
    "build_protocol",
    "calculator_tool",
    "check_decision",
    "check_observations",
    "correlations",
    "deliberation_layout",
    "dump_instance",
    "episode_metrics",
    "estimate_instance",
    "format_analyses",
    "gap_pairs",
    "generate_setting",
    "greedy_feasible_subset",
    "hallucination_rate",
    "instance_count",
    "instance_paths",
    "instance_to_dict",
    "load_instance",
    "load_menu_database",
    "load_teamwork_database",
    "menu_reward",
    "nmae_correlations",
    "nmae_public",
    "normalized_adjusted_reward",
    "normalized_reward",
    "ols",
    "optimum",
    "parse_instance",
    "private_observation",
    "proposal_normalizer",
    "register_agent_kind",
    "resolve_instance",
    "reward",
    "same_decision",
    "sample_observation_spec",
    "select_menu_instances",
    "select_task_instances",
    "shared_info",
    "shipped_instance",
    "solver_tool",
    "table2",
    "table3",
    "table7",
    "task_reward",
    "valid_ratio",
    "write_setting",
]
