"""Classic complete-information games with pre-play negotiation (seed 003, sections 3-4, 6).

Public face (imported lazily, on first use):

- the domain: ``DOMAIN`` (registered as ``games``) and ``GamesDomain``;
- games and files: ``Game``, ``NormalFormGame``, ``ExtensiveGame``, ``load_game``,
  ``parse_game``, ``save_game``, ``GameFileError``; the catalog: ``catalog_names``,
  ``load_catalog_game``, ``resolve_game``; ``list_scenarios`` (the catalog names, read
  without importing the domain: what ``accord scenarios`` asks);
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

# each name's module is imported on first use (the same names as the imports below)
__getattr__, __dir__ = lazy_exports(__name__, {
    ".aec": ("make_aec_env",),
    ".agents": ("FixedAgent", "RandomAgent", "RationalAgent"),
    ".analysis": ("Solution", "solve_game"),
    ".catalog": ("catalog_names", "load_catalog_game", "resolve_game"),
    ".domain": ("DOMAIN", "GamesDomain"),
    ".listing": ("list_scenarios",),
    ".load": ("GameFileError", "load_game", "parse_game", "save_game"),
    ".metrics": ("action_distribution", "episode_metrics"),
    ".model": ("ExtensiveGame", "Game", "NormalFormGame"),
    ".protocol": ("GameObservation", "GameProtocol", "GameState"),
})

if TYPE_CHECKING:
    from accord.domains.games.aec import make_aec_env
    from accord.domains.games.agents import FixedAgent, RandomAgent, RationalAgent
    from accord.domains.games.analysis import Solution, solve_game
    from accord.domains.games.catalog import catalog_names, load_catalog_game, resolve_game
    from accord.domains.games.domain import DOMAIN, GamesDomain
    from accord.domains.games.listing import list_scenarios
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
    "list_scenarios",
    "load_catalog_game",
    "load_game",
    "make_aec_env",
    "parse_game",
    "resolve_game",
    "save_game",
    "solve_game",
]
