"""Classic complete-information games with pre-play negotiation (seed 003, sections 3-4, 6).

Public face (imported lazily, on first use):

- the domain: ``DOMAIN`` (registered as ``games``) and ``GamesDomain``;
- games and files: ``Game``, ``NormalFormGame``, ``ExtensiveGame``, ``load_game``,
  ``parse_game``, ``save_game``, ``GameFileError``; the catalog: ``catalog_names``,
  ``load_catalog_game``, ``resolve_game``;
- the cheap-talk-then-play protocol: ``GameProtocol``, ``GameState``, ``GameObservation``,
  and a PettingZoo-style environment: ``make_aec_env``;
- agents built by hand: ``RationalAgent``, ``RandomAgent``, ``FixedAgent`` (agents from
  specs go through ``DOMAIN``);
- solutions and metrics: ``solve_game``, ``Solution``, ``episode_metrics``,
  ``action_distribution``.

Everything else - equilibrium selection (:mod:`.selection`), rendering (:mod:`.describe`),
the LLM players, prompts and workflow agents (:mod:`.llm`), study helpers and plots over
results stores (:mod:`.studies`) - is imported from its submodule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accord._lazy import lazy_exports

#: public name -> the submodule that defines it (imported on first use)
_EXPORTS = {
    "DOMAIN": "domain",
    "GamesDomain": "domain",
    "Game": "model",
    "NormalFormGame": "model",
    "ExtensiveGame": "model",
    "GameFileError": "load",
    "load_game": "load",
    "parse_game": "load",
    "save_game": "load",
    "catalog_names": "catalog",
    "load_catalog_game": "catalog",
    "resolve_game": "catalog",
    "GameProtocol": "protocol",
    "GameObservation": "protocol",
    "GameState": "protocol",
    "RationalAgent": "agents",
    "RandomAgent": "agents",
    "FixedAgent": "agents",
    "Solution": "analysis",
    "solve_game": "analysis",
    "episode_metrics": "metrics",
    "action_distribution": "metrics",
    "make_aec_env": "aec",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from accord.domains.games.aec import make_aec_env
    from accord.domains.games.agents import FixedAgent, RandomAgent, RationalAgent
    from accord.domains.games.analysis import Solution, solve_game
    from accord.domains.games.catalog import catalog_names, load_catalog_game, resolve_game
    from accord.domains.games.domain import DOMAIN, GamesDomain
    from accord.domains.games.load import GameFileError, load_game, parse_game, save_game
    from accord.domains.games.metrics import action_distribution, episode_metrics
    from accord.domains.games.model import ExtensiveGame, Game, NormalFormGame
    from accord.domains.games.protocol import GameObservation, GameProtocol, GameState

__all__ = [
    "DOMAIN",
    "ExtensiveGame",
    "FixedAgent",
    "Game",
    "GameFileError",
    "GameObservation",
    "GameProtocol",
    "GameState",
    "GamesDomain",
    "NormalFormGame",
    "RandomAgent",
    "RationalAgent",
    "Solution",
    "action_distribution",
    "catalog_names",
    "episode_metrics",
    "load_catalog_game",
    "load_game",
    "make_aec_env",
    "parse_game",
    "resolve_game",
    "save_game",
    "solve_game",
]
