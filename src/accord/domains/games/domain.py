"""The ``games`` domain: classic games with optional cheap talk, run from an EpisodeSpec.

``spec.scenario`` is a catalog name (``accord games list``) or a path to a game file.
``spec.params`` may hold ``negotiation_rounds`` (default 0), ``first_speaker`` (a player
name or index; default the first player), ``max_message_chars``, ``max_retries`` (invalid
attempts allowed per turn, default 5), and any parameter the game declares (``jackpot``
for ``golden-balls``). ``spec.agents`` gives one agent per player in player order, or a
single agent used for every player. ``spec.seed`` seeds a ``numpy.random.Generator`` whose
independent children drive the agents.

LLM agents (``llm:MODEL``, ``llm-workflow:MODEL``) take their settings from the run
context: ``ctx.llm`` (cache path and mode, timeout, concurrency) and ``ctx.episode_id``
(the scope of their cache entries; when empty, a hash of the spec and the repetition).
The record of an episode with workflow agents holds their derived strategies under
``workflow`` (by player), and every record names its agents under ``agents``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from pydantic import ConfigDict, Field

from accord.agents.base import Agent
from accord.agents.spec import AgentSpecError, parse_agent_spec
from accord.domains.base import Domain, EpisodeSpec, RunContext, register_domain
from accord.domains.games.agents import (
    AGENT_KINDS,
    HUMAN_KIND,
    LLM_AGENT_KINDS,
    build_agent,
    make_agent,
)
from accord.domains.games.catalog import catalog_names, resolve_game
from accord.domains.games.llm.agents import check_llm_spec
from accord.domains.games.llm.workflow import LLMWorkflowAgent
from accord.domains.games.load import GameFileError
from accord.domains.games.metrics import episode_metrics
from accord.domains.games.model import Game
from accord.domains.games.protocol import GameProtocol
from accord.domains.ids import episode_id
from accord.domains.params import DomainParams, read_params
from accord.protocols.engine import Bounds, EpisodeResult, run_episode
from accord.protocols.kit import ProtocolKit


class GamesParams(DomainParams):
    """Episode parameters of the games; any other key is a parameter of the game itself
    (e.g. the demand intercept of a parametrised duopoly), checked by the game file."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)

    negotiation_rounds: int = Field(0, ge=0, description="cheap-talk rounds before the "
                                    "action (seed 003, section 4)")
    first_speaker: str | int | None = Field(None, description="who talks first: a player "
                                            "name or index (default the first player)")
    max_message_chars: int | None = Field(None, ge=1, description="longest message kept")


EPISODE_PARAMS = tuple(GamesParams.model_fields)


def episode_key(spec: EpisodeSpec, repeat: int = 0) -> str:
    """The episode id (:func:`accord.domains.ids.episode_id`) when the runner gave none."""
    return episode_id(spec, repeat)


def _split_params(spec: EpisodeSpec) -> tuple[GamesParams, dict[str, Any]]:
    """The episode's own parameters and the game's (the keys GamesParams does not know)."""
    p = read_params(GamesParams, spec.params, "games")
    return p, dict(p.model_extra or {})


def _game(spec: EpisodeSpec, params: Mapping[str, Any]) -> Game:
    try:
        return resolve_game(spec.scenario, params)
    except GameFileError as exc:
        if "has no parameter" in str(exc):
            raise GameFileError(f"{exc}; episode parameters are {', '.join(EPISODE_PARAMS)}"
                                ) from None
        raise


def _specs(spec: EpisodeSpec, game: Game) -> list[Any]:
    n = len(game.players)
    specs = list(spec.agents)
    if len(specs) == 1:
        specs *= n
    if len(specs) != n:
        raise ValueError(f"{spec.scenario} has {n} players ({', '.join(game.players)}) but "
                         f"{len(spec.agents)} agents were given")
    return [parse_agent_spec(s) for s in specs]


def build_episode(spec: EpisodeSpec, ctx: Mapping[str, Any] | None = None
                  ) -> tuple[GameProtocol, dict[str, Agent], Game]:
    """The protocol, the reset agents (by player) and the game for one episode spec.

    ``ctx`` is handed to LLM agents (``llm`` settings, ``episode_id``, ``max_retries``).
    """
    episode, params = _split_params(spec)
    game = _game(spec, params)
    specs = _specs(spec, game)
    context = {"max_retries": episode.max_retries, **dict(ctx or {})}
    rngs = np.random.default_rng(spec.seed).spawn(len(game.players))
    agents: dict[str, Agent] = {}
    for i, (player, agent_spec) in enumerate(zip(game.players, specs, strict=True)):
        agent = make_agent(agent_spec, game, i, context)
        agent.reset(rngs[i])
        agents[player] = agent
    protocol = GameProtocol(game, negotiation_rounds=episode.negotiation_rounds,
                            first_speaker=episode.first_speaker,
                            max_message_chars=episode.max_message_chars)
    return protocol, agents, game


class GamesDomain(Domain):
    """Classic complete-information games (seed 003, sections 4 and 6)."""

    name = "games"
    params_model = GamesParams

    #: ``--max-rounds`` sets the cheap-talk rounds before the action
    run_options: ClassVar[Mapping[str, str]] = {"max_rounds": "negotiation_rounds"}

    def scenarios(self) -> list[str]:
        return catalog_names()

    def conformance_kit(self) -> ProtocolKit:
        """Every catalog game with 0-3 cheap-talk rounds (complete information: nothing is
        private), see :mod:`accord.domains.games.conformance`."""
        from accord.domains.games.conformance import kit

        return kit()

    def agent_kinds(self) -> list[str]:
        return list(AGENT_KINDS + LLM_AGENT_KINDS + (HUMAN_KIND,))

    def validate(self, spec: EpisodeSpec) -> None:
        """Check the game, its parameters and the line-up without building LLM clients."""
        episode, params = _split_params(spec)
        game = _game(spec, params)
        GameProtocol(game, negotiation_rounds=episode.negotiation_rounds,
                     first_speaker=episode.first_speaker)
        for i, agent_spec in enumerate(_specs(spec, game)):
            if agent_spec.kind in LLM_AGENT_KINDS:
                check_llm_spec(agent_spec)
                if agent_spec.kind == "llm-workflow" and game.type == "normal" and len(
                        game.players) != 2:
                    raise AgentSpecError("llm-workflow: the simultaneous-game workflow is "
                                         "defined for two players")
            elif agent_spec.kind != HUMAN_KIND:  # a person needs a seat, given at run time
                build_agent(agent_spec, game, i)

    async def run_episode(self, spec: EpisodeSpec, ctx: RunContext) -> EpisodeResult:
        episode_id = ctx.episode_id or episode_key(spec, int(ctx.extra.get("repeat", 0) or 0))
        protocol, agents, _ = build_episode(spec, {"llm": ctx.llm, "episode_id": episode_id,
                                                   "seat": ctx.extra.get("seat")})
        retries = self.params(spec).max_retries
        result = await run_episode(protocol, agents, bounds=Bounds(max_retries=retries))
        flows = {role: rec for role, a in agents.items()
                 if isinstance(a, LLMWorkflowAgent) and (rec := a.record()) is not None}
        if flows:
            result.record["workflow"] = flows
        result.record["agents"] = {role: a.describe() for role, a in agents.items()}
        return result

    def metrics(self, spec: EpisodeSpec, result: EpisodeResult) -> dict[str, Any]:
        return dict(episode_metrics(result.record))


DOMAIN = register_domain(GamesDomain())
