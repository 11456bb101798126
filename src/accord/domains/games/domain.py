"""The ``games`` domain: classic games with optional cheap talk, run from an EpisodeSpec.

``spec.scenario`` is a catalog name (``accord games list``) or a path to a game file.
``spec.params`` may hold ``negotiation_rounds`` (default 0), ``first_speaker`` (a player
name or index; default the first player), ``max_message_chars``, and any parameter the
game declares (``jackpot`` for ``golden-balls``). ``spec.agents`` gives one agent per
player in player order, or a single agent used for every player. ``spec.seed`` seeds a
``numpy.random.Generator`` whose independent children drive the agents.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from accord.domains.base import Domain, EpisodeSpec, RunContext
from accord.domains.games.agents import AGENT_KINDS, GameAgent, build_agent
from accord.domains.games.catalog import catalog_names, resolve_game
from accord.domains.games.io import GameFileError
from accord.domains.games.metrics import episode_metrics
from accord.domains.games.model import Game
from accord.domains.games.protocol import GameProtocol
from accord.protocols.engine import EpisodeResult, run_episode

EPISODE_PARAMS = ("negotiation_rounds", "first_speaker", "max_message_chars")


def build_episode(spec: EpisodeSpec) -> tuple[GameProtocol, dict[str, GameAgent], Game]:
    """The protocol, the reset agents (by player) and the game for one episode spec."""
    params = dict(spec.params)
    rounds = int(params.pop("negotiation_rounds", 0) or 0)
    first = params.pop("first_speaker", None)
    max_chars = params.pop("max_message_chars", None)
    try:
        game = resolve_game(spec.scenario, params)
    except GameFileError as exc:
        if "has no parameter" in str(exc):
            raise GameFileError(f"{exc}; episode parameters are {', '.join(EPISODE_PARAMS)}"
                                ) from None
        raise
    n = len(game.players)
    specs = list(spec.agents)
    if len(specs) == 1:
        specs *= n
    if len(specs) != n:
        raise ValueError(f"{spec.scenario} has {n} players ({', '.join(game.players)}) but "
                         f"{len(spec.agents)} agents were given")
    rngs = np.random.default_rng(spec.seed).spawn(n)
    agents: dict[str, GameAgent] = {}
    for i, (player, agent_spec) in enumerate(zip(game.players, specs, strict=True)):
        agent = build_agent(agent_spec, game, i)
        agent.reset(rngs[i])
        agents[player] = agent
    protocol = GameProtocol(game, negotiation_rounds=rounds, first_speaker=first,
                            max_message_chars=None if max_chars is None else int(max_chars))
    return protocol, agents, game


class GamesDomain(Domain):
    """Classic complete-information games (seed 003, sections 4 and 6)."""

    name = "games"

    def scenarios(self) -> list[str]:
        return catalog_names()

    def agent_kinds(self) -> list[str]:
        return list(AGENT_KINDS)

    async def run_episode(self, spec: EpisodeSpec, ctx: RunContext) -> EpisodeResult:
        protocol, agents, _ = build_episode(spec)
        return await run_episode(protocol, agents)

    def metrics(self, spec: EpisodeSpec, result: EpisodeResult) -> dict[str, Any]:
        return dict(episode_metrics(result.record))
