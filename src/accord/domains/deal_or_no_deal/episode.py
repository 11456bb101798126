"""Running one Deal-or-No-Deal episode on a datapoint, and finding datapoints by id.

:func:`play_datapoint` is the per-episode function the CLI and the experiment runner share:
it builds the protocol and the agents, runs :func:`accord.protocols.engine.run_episode` and
attaches each workflow agent's belief trace to the record (``record["beliefs"]``) for the
estimation metrics - the code workflow's and the LLM workflow's alike.

LLM agents get their settings from ``ctx`` (``llm``: cache path and mode, timeout,
concurrency; ``episode_id``: the cache scope). Without an ``episode_id`` one is derived
from the datapoint id, counts, agent specs, rounds, opener and seed - never from the
values, since the id is sent to model providers - so a rerun hits its cache entries.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from accord.agents.spec import AgentSpec
from accord.domains.deal_or_no_deal.agents import make_agents
from accord.domains.deal_or_no_deal.load import Datapoint
from accord.domains.deal_or_no_deal.protocol import ROLES, DondProtocol
from accord.domains.deal_or_no_deal.rules import datapoint_difficulty
from accord.domains.deal_or_no_deal.selection import load_selection
from accord.domains.deal_or_no_deal.workflow import BayesianWorkflowAgent
from accord.domains.params import DEFAULT_MAX_RETRIES, auto_stagnation
from accord.protocols.engine import Bounds, EpisodeResult, run_episode

FIRST_CHOICES: tuple[str, ...] = ("alice", "bob", "data")
"""Who opens: a role, or ``data`` for whoever spoke first in the human dialogue."""


def load_datapoints(data: str | os.PathLike[str] | None = None, split: str = "test"
                    ) -> list[Datapoint]:
    """Unique datapoints of ``split`` at the resolved data location (cached per file)."""
    return load_selection(data, split, "unique")


def find_datapoint(points: Sequence[Datapoint], ident: str) -> Datapoint:
    """The datapoint with id ``ident`` (``test/17``), with a clear error otherwise."""
    for dp in points:
        if dp.id == ident:
            return dp
    split = points[0].id.split("/")[0] if points else "?"
    raise KeyError(f"no datapoint {ident!r}; ids run {split}/0 .. {split}/{len(points) - 1}")


def first_mover(dp: Datapoint, first: str) -> str:
    """Resolve the ``first`` parameter for a datapoint."""
    if first not in FIRST_CHOICES:
        raise ValueError(f"first must be one of {', '.join(FIRST_CHOICES)}, got {first!r}")
    return dp.first_speaker if first == "data" else first


def episode_key(dp: Datapoint, agents: Sequence[AgentSpec | str], rounds: int, seed: int,
                first: str) -> str:
    """The episode id (:func:`accord.domains.ids.episode_id`) of a library call that gave
    none: the spec the domain would run for these arguments (no private values in it)."""
    from accord.agents.spec import parse_agent_spec
    from accord.domains.base import EpisodeSpec
    from accord.domains.ids import episode_id

    return episode_id(EpisodeSpec("deal-or-no-deal", dp.id,
                                  tuple(parse_agent_spec(a) for a in agents),
                                  {"rounds": rounds, "first": first}, seed))


async def play_datapoint(dp: Datapoint, agents: Sequence[AgentSpec | str], *, rounds: int = 20,
                         seed: int = 0, first: str = "alice",
                         max_retries: int = DEFAULT_MAX_RETRIES,
                         ctx: Mapping[str, Any] | None = None,
                         stagnation_rounds: int | None = None) -> EpisodeResult:
    """Negotiate one datapoint with ``agents`` = (alice's spec, bob's spec).

    ``stagnation_rounds``: K of the message-only stagnation rule (``None``: seed 002's 3
    with an LLM party, else off; :func:`~accord.domains.params.auto_stagnation`).

    ``ctx`` holds LLM settings (``llm``) and the episode id (``episode_id``), see above.
    """
    opener = first_mover(dp, first)
    protocol = DondProtocol(dp.counts, {"alice": dp.alice, "bob": dp.bob}, rounds=rounds,
                            first=opener, scenario=dp.id,
                            stagnation_rounds=auto_stagnation(stagnation_rounds, agents))
    context: dict[str, Any] = {**(ctx or {}), "max_retries": max_retries}
    if not context.get("episode_id"):
        context["episode_id"] = episode_key(dp, agents, rounds, seed, opener)
    built = make_agents(agents, dp, seed, context)
    result = await run_episode(protocol, built,
                               bounds=Bounds(max_rounds=rounds, max_retries=max_retries))
    result.record["difficulty"] = datapoint_difficulty(dp)
    result.record["beliefs"] = {role: agent.trace() for role, agent in built.items()
                                if isinstance(agent, BayesianWorkflowAgent)}
    result.record["agents"] = {role: str(spec) for role, spec in zip(ROLES, agents, strict=True)}
    return result

