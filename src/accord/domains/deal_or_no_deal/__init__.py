"""The ``deal-or-no-deal`` domain (seed 003, section 5): human dialogues over books, hats and
balls, allocation negotiation, the Bayesian workflow agent, envy-freeness and Pareto metrics,
the human baseline and the workflow-adoption meta-game.

The data (Lewis et al., 2017; CC BY-NC 4.0) is read from a path - ``--data``, ``ACCORD_DATA``
or the per-user folder filled by ``accord dond download`` - and never shipped.

Public face (imported lazily, on first use):

- the domain: ``DOMAIN`` (registered as ``deal-or-no-deal``) and ``DealOrNoDealDomain``;
- data: ``Datapoint``, ``Outcome``, ``load_split``, ``load_datapoints``, ``load_selection``
  (the paper's hardest-first selection), ``download``, ``dataset_stats``,
  ``DataFormatError`` and ``DataNotFoundError``; ``list_scenarios`` and ``scenarios_hint``
  (the dialogue ids, read without importing the domain: what ``accord scenarios`` asks);
- the protocol: ``DondProtocol``, ``DondState`` and ``DondObservation``;
- agents built by hand: ``BayesianWorkflowAgent``, ``GreedyAgent``, ``HumanReplayAgent``
  (agents from specs go through ``DOMAIN``);
- running and metrics from records: ``play_datapoint``, ``episode_metrics``,
  ``outcome_metrics``, ``human_metrics`` and ``estimation_metrics``.

Everything else - allocation rules (:mod:`.rules`), deal tags (:mod:`.deal_tag`), the
meta-game (:mod:`.meta`), the human table (:mod:`.human_table`), checksums (:mod:`.fetch`),
the LLM agents (:mod:`.llm`) - is imported from its submodule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accord._lazy import lazy_exports

# each name's module is imported on first use (the same names as the imports below)
__getattr__, __dir__ = lazy_exports(__name__, {
    ".baselines": ("GreedyAgent", "HumanReplayAgent"),
    ".domain": ("DOMAIN", "DealOrNoDealDomain"),
    ".episode": ("load_datapoints", "play_datapoint"),
    ".fetch": ("download",),
    ".listing": ("list_scenarios", "scenarios_hint"),
    ".load": ("DataFormatError", "Datapoint", "Outcome", "load_split"),
    ".location": ("DataNotFoundError",),
    ".metrics": ("episode_metrics", "estimation_metrics", "human_metrics", "outcome_metrics"),
    ".protocol": ("DondObservation", "DondProtocol", "DondState"),
    ".selection": ("load_selection",),
    ".stats": ("dataset_stats",),
    ".workflow": ("BayesianWorkflowAgent",),
})

if TYPE_CHECKING:
    from accord.domains.deal_or_no_deal.baselines import GreedyAgent, HumanReplayAgent
    from accord.domains.deal_or_no_deal.domain import DOMAIN, DealOrNoDealDomain
    from accord.domains.deal_or_no_deal.episode import load_datapoints, play_datapoint
    from accord.domains.deal_or_no_deal.fetch import download
    from accord.domains.deal_or_no_deal.listing import list_scenarios, scenarios_hint
    from accord.domains.deal_or_no_deal.load import DataFormatError, Datapoint, Outcome, load_split
    from accord.domains.deal_or_no_deal.location import DataNotFoundError
    from accord.domains.deal_or_no_deal.metrics import (
        episode_metrics,
        estimation_metrics,
        human_metrics,
        outcome_metrics,
    )
    from accord.domains.deal_or_no_deal.protocol import DondObservation, DondProtocol, DondState
    from accord.domains.deal_or_no_deal.selection import load_selection
    from accord.domains.deal_or_no_deal.stats import dataset_stats
    from accord.domains.deal_or_no_deal.workflow import BayesianWorkflowAgent

__all__ = [
    "DOMAIN",
    "BayesianWorkflowAgent",
    "DataFormatError",
    "DataNotFoundError",
    "Datapoint",
    "DealOrNoDealDomain",
    "DondObservation",
    "DondProtocol",
    "DondState",
    "GreedyAgent",
    "HumanReplayAgent",
    "Outcome",
    "dataset_stats",
    "download",
    "episode_metrics",
    "estimation_metrics",
    "human_metrics",
    "list_scenarios",
    "load_datapoints",
    "load_selection",
    "load_split",
    "outcome_metrics",
    "play_datapoint",
    "scenarios_hint",
]
