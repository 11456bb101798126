"""The ``deal-or-no-deal`` domain (seed 003, section 5): human dialogues over books, hats and
balls, allocation negotiation, the Bayesian workflow agent, envy-freeness and Pareto metrics,
the human baseline and the workflow-adoption meta-game.

The data (Lewis et al., 2017; CC BY-NC 4.0) is read from a path - ``--data``, ``ACCORD_DATA``
or the per-user folder filled by ``accord dond download`` - and never shipped.
"""

from __future__ import annotations

from accord.domains.base import register_domain
from accord.domains.deal_or_no_deal.agents import AGENT_KINDS, make_agent, make_agents
from accord.domains.deal_or_no_deal.baselines import GreedyAgent, HumanReplayAgent
from accord.domains.deal_or_no_deal.dataset import (
    ITEMS,
    DataFormatError,
    Datapoint,
    Outcome,
    Turn,
    View,
    load_split,
    pair_views,
    parse_line,
    read_views,
)
from accord.domains.deal_or_no_deal.deal_tag import (
    DealTagError,
    find_deal,
    format_deal,
    format_deal_body,
    package_of,
    parse_deal_body,
    share_of,
)
from accord.domains.deal_or_no_deal.domain import DealOrNoDealDomain
from accord.domains.deal_or_no_deal.episode import (
    episode_key,
    find_datapoint,
    load_datapoints,
    play_datapoint,
    select,
)
from accord.domains.deal_or_no_deal.fetch import (
    ChecksumError,
    FetchReport,
    download,
    expected_sums,
    parse_sha256sums,
    sha256_file,
    verify_dir,
    verify_file,
)
from accord.domains.deal_or_no_deal.llm_agents import (
    LLMWorkflowAgent,
    RawLLMAgent,
    make_llm_workflow,
    make_raw_llm,
    proposal_rows,
)
from accord.domains.deal_or_no_deal.llm_core import DondChat, partner_events, state_block
from accord.domains.deal_or_no_deal.llm_replies import parse_reply, value_leaks
from accord.domains.deal_or_no_deal.location import (
    ENV_VAR,
    DataNotFoundError,
    data_root,
    dataset_dir,
    split_file,
)
from accord.domains.deal_or_no_deal.meta import (
    STRATEGIES,
    MetaGameSolution,
    payoff_matrix,
    payoffs_from_episodes,
    solve_meta_game,
)
from accord.domains.deal_or_no_deal.metrics import (
    best_baseline,
    difficulty_table,
    episode_metrics,
    estimation_by_round,
    estimation_metrics,
    human_baseline,
    human_difficulty_table,
    human_metrics,
    indistinguishable_set,
    outcome_metrics,
)
from accord.domains.deal_or_no_deal.protocol import DondObservation, DondProtocol, DondState
from accord.domains.deal_or_no_deal.rules import (
    Best,
    admits_envy_free,
    allocations,
    best,
    best_allocations,
    complement,
    difficulty,
    envy_free_allocations,
    hardest,
    is_envy_free,
    is_pareto_optimal,
    utility,
)
from accord.domains.deal_or_no_deal.stats import dataset_stats
from accord.domains.deal_or_no_deal.workflow import (
    BayesianWorkflowAgent,
    WorkflowState,
    render_belief,
)

DOMAIN = register_domain(DealOrNoDealDomain())

__all__ = [
    "AGENT_KINDS",
    "DOMAIN",
    "ENV_VAR",
    "ITEMS",
    "STRATEGIES",
    "BayesianWorkflowAgent",
    "Best",
    "ChecksumError",
    "DataFormatError",
    "DataNotFoundError",
    "Datapoint",
    "DealOrNoDealDomain",
    "DealTagError",
    "DondChat",
    "DondObservation",
    "DondProtocol",
    "DondState",
    "FetchReport",
    "GreedyAgent",
    "HumanReplayAgent",
    "LLMWorkflowAgent",
    "MetaGameSolution",
    "Outcome",
    "RawLLMAgent",
    "Turn",
    "View",
    "WorkflowState",
    "admits_envy_free",
    "allocations",
    "best",
    "best_allocations",
    "best_baseline",
    "complement",
    "data_root",
    "dataset_dir",
    "dataset_stats",
    "difficulty",
    "difficulty_table",
    "download",
    "envy_free_allocations",
    "episode_key",
    "episode_metrics",
    "estimation_by_round",
    "estimation_metrics",
    "expected_sums",
    "find_datapoint",
    "find_deal",
    "format_deal",
    "format_deal_body",
    "hardest",
    "human_baseline",
    "human_difficulty_table",
    "human_metrics",
    "indistinguishable_set",
    "is_envy_free",
    "is_pareto_optimal",
    "load_datapoints",
    "load_split",
    "make_agent",
    "make_agents",
    "make_llm_workflow",
    "make_raw_llm",
    "outcome_metrics",
    "package_of",
    "pair_views",
    "parse_deal_body",
    "parse_line",
    "parse_reply",
    "parse_sha256sums",
    "partner_events",
    "payoff_matrix",
    "payoffs_from_episodes",
    "play_datapoint",
    "proposal_rows",
    "read_views",
    "render_belief",
    "select",
    "sha256_file",
    "share_of",
    "solve_meta_game",
    "split_file",
    "state_block",
    "utility",
    "value_leaks",
    "verify_dir",
    "verify_file",
]
