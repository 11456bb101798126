"""The ``deal-or-no-deal`` domain (seed 003, section 5): human dialogues over books, hats and
balls, allocation negotiation, the Bayesian workflow agent, envy-freeness and Pareto metrics,
the human baseline and the workflow-adoption meta-game.

The data (Lewis et al., 2017; CC BY-NC 4.0) is read from a path - ``--data``, ``ACCORD_DATA``
or the per-user folder filled by ``accord dond download`` - and never shipped.

Public face (imported lazily, on first use):

- the domain: ``DOMAIN`` (registered as ``deal-or-no-deal``) and ``DealOrNoDealDomain``;
- data: ``Datapoint``, ``Outcome``, ``load_split``, ``load_datapoints``, ``load_selection``
  (the paper's hardest-first selection), ``download``, ``dataset_stats``,
  ``DataFormatError`` and ``DataNotFoundError``;
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

#: public name -> the submodule that defines it (imported on first use)
_EXPORTS = {
    "DOMAIN": "domain",
    "DealOrNoDealDomain": "domain",
    "Datapoint": "load",
    "Outcome": "load",
    "DataFormatError": "load",
    "DataNotFoundError": "location",
    "load_split": "load",
    "load_datapoints": "episode",
    "load_selection": "selection",
    "download": "fetch",
    "dataset_stats": "stats",
    "DondProtocol": "protocol",
    "DondObservation": "protocol",
    "DondState": "protocol",
    "GreedyAgent": "baselines",
    "HumanReplayAgent": "baselines",
    "BayesianWorkflowAgent": "workflow",
    "play_datapoint": "episode",
    "episode_metrics": "metrics",
    "outcome_metrics": "metrics",
    "human_metrics": "metrics",
    "estimation_metrics": "metrics",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from accord.domains.deal_or_no_deal.baselines import GreedyAgent, HumanReplayAgent
    from accord.domains.deal_or_no_deal.domain import DOMAIN, DealOrNoDealDomain
    from accord.domains.deal_or_no_deal.episode import load_datapoints, play_datapoint
    from accord.domains.deal_or_no_deal.fetch import download
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
    "load_datapoints",
    "load_selection",
    "load_split",
    "outcome_metrics",
    "play_datapoint",
]
