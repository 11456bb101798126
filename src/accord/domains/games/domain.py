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

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import numpy as np
from pydantic import ConfigDict, Field

from accord.agents.base import Agent
from accord.agents.kinds import AgentSettings
from accord.agents.spec import parse_agent_spec
from accord.domains.base import Domain, EpisodeSpec, RunContext, register_domain
from accord.domains.games.agents import AGENT_KINDS, AgentContext, check_for_game
from accord.domains.games.catalog import catalog_names, resolve_game
from accord.domains.games.llm.workflow import LLMWorkflowAgent
from accord.domains.games.load import GameFileError
from accord.domains.games.metrics import episode_metrics
from accord.domains.games.model import Game
from accord.domains.games.outcome import outcome_sentence
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

    ``ctx`` holds the run's settings for the agents (``llm``, ``episode_id``, ``seat``; see
    :class:`~accord.agents.kinds.AgentSettings`); the retry budget is the params'.
    """
    episode, params = _split_params(spec)
    game = _game(spec, params)
    specs = _specs(spec, game)
    settings = AgentSettings.of({"max_retries": episode.max_retries, **dict(ctx or {})})
    rngs = np.random.default_rng(spec.seed).spawn(len(game.players))
    agents: dict[str, Agent] = {}
    for i, (player, agent_spec) in enumerate(zip(game.players, specs, strict=True)):
        agent = AGENT_KINDS.build(agent_spec, AgentContext(game, i, settings))
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
        return AGENT_KINDS.kinds()

    def validate(self, spec: EpisodeSpec) -> None:
        """Check the game, its parameters and the line-up without building LLM clients: a
        kind with a spec check (LLM kinds, ``human``, who needs a seat) is checked, any
        other kind is built once for its player."""
        episode, params = _split_params(spec)
        game = _game(spec, params)
        GameProtocol(game, negotiation_rounds=episode.negotiation_rounds,
                     first_speaker=episode.first_speaker)
        for i, agent_spec in enumerate(_specs(spec, game)):
            entry = AGENT_KINDS.get(agent_spec.kind)
            if entry is None or entry.check is None:
                AGENT_KINDS.build(agent_spec, AgentContext(game, i))  # unknown kinds too
                continue
            AGENT_KINDS.check(agent_spec)
            check_for_game(agent_spec, game)

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

    def layouts(self) -> dict[str, Callable[[list[dict[str, Any]]], tuple[str, Any]]]:
        """``games``: seed 003's Tables 5-8 (:mod:`accord.domains.games.layout`)."""
        from accord.domains.games.layout import games_layout

        return {"games": games_layout}

    def outcome_text(self, summary: Mapping[str, Any]) -> str | None:
        """``Game completed: Alice played opera, Bob played football - miscoordinated,
        ...``: see :func:`accord.domains.games.outcome.outcome_sentence`."""
        return outcome_sentence(summary)


DOMAIN = register_domain(GamesDomain())
