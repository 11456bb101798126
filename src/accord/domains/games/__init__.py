"""Classic complete-information games with pre-play negotiation (seed 003, sections 3-4, 6).

Game models and files (:mod:`.model`, :mod:`.io`), the catalog (:mod:`.catalog`), named
solutions (:mod:`.analysis`), the cheap-talk-then-play protocol (:mod:`.protocol`), code
agents and their equilibrium selection rule (:mod:`.agents`, :mod:`.selection`), metrics
(:mod:`.metrics`), a PettingZoo-style environment (:mod:`.aec`), LLM players with
chain-of-thought prompting and the LLM workflow agents of section 4.4 (:mod:`.llm_agents`,
:mod:`.llm_workflow`, prompts under ``prompts/``), study helpers and plots over results
stores (:mod:`.studies`) and the ``games`` domain, registered on import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accord._lazy import lazy_exports

#: public name -> the submodule that defines it (imported on first use)
_EXPORTS = {
    "DOMAIN": "domain",
    "AGENT_KINDS": "agents",
    "LLM_AGENT_KINDS": "agents",
    "CatalogEntry": "catalog",
    "ExtensiveGame": "model",
    "FixedAgent": "agents",
    "Game": "model",
    "GameAECEnv": "aec",
    "GameAgent": "agents",
    "GameFileError": "load",
    "GameInfo": "model",
    "GameObservation": "protocol",
    "GameProtocol": "protocol",
    "GameState": "protocol",
    "GamesDomain": "domain",
    "LLMGameAgent": "llm.agents",
    "LLMWorkflowAgent": "llm.workflow",
    "NormalFormGame": "model",
    "NormalPlan": "selection",
    "RandomAgent": "agents",
    "RationalAgent": "agents",
    "Solution": "analysis",
    "Strategy": "llm.prompts",
    "StudyEpisode": "studies",
    "TalkMessage": "protocol",
    "action_distribution": "metrics",
    "action_share": "studies",
    "build_agent": "agents",
    "build_episode": "domain",
    "catalog_entry": "catalog",
    "catalog_names": "catalog",
    "dump_game": "load",
    "episode_metrics": "metrics",
    "load_catalog_game": "catalog",
    "load_game": "load",
    "make_aec_env": "aec",
    "make_agent": "agents",
    "make_llm_agent": "llm.agents",
    "make_llm_workflow": "llm.workflow",
    "number_out": "load",
    "parse_game": "load",
    "personality_line": "llm.prompts",
    "plot_action_distribution": "metrics",
    "plot_action_share": "studies",
    "plot_study": "studies",
    "prompt_variant": "llm.prompts",
    "rate": "metrics",
    "render_game": "describe",
    "resolve_game": "catalog",
    "save_game": "load",
    "select_normal": "selection",
    "select_spe": "selection",
    "solution_json": "analysis",
    "solve_game": "analysis",
    "study_episodes": "studies",
    "study_table": "studies",
    "workflow_correct": "metrics",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from accord.domains.games.aec import GameAECEnv, make_aec_env
    from accord.domains.games.agents import (
        AGENT_KINDS,
        LLM_AGENT_KINDS,
        FixedAgent,
        GameAgent,
        RandomAgent,
        RationalAgent,
        build_agent,
        make_agent,
    )
    from accord.domains.games.analysis import Solution, solution_json, solve_game
    from accord.domains.games.catalog import (
        CatalogEntry,
        catalog_entry,
        catalog_names,
        load_catalog_game,
        resolve_game,
    )
    from accord.domains.games.describe import render_game
    from accord.domains.games.domain import DOMAIN, GamesDomain, build_episode
    from accord.domains.games.llm.agents import LLMGameAgent, make_llm_agent
    from accord.domains.games.llm.prompts import Strategy, personality_line, prompt_variant
    from accord.domains.games.llm.workflow import LLMWorkflowAgent, make_llm_workflow
    from accord.domains.games.load import (
        GameFileError,
        dump_game,
        load_game,
        number_out,
        parse_game,
        save_game,
    )
    from accord.domains.games.metrics import (
        action_distribution,
        episode_metrics,
        plot_action_distribution,
        rate,
        workflow_correct,
    )
    from accord.domains.games.model import ExtensiveGame, Game, GameInfo, NormalFormGame
    from accord.domains.games.protocol import GameObservation, GameProtocol, GameState, TalkMessage
    from accord.domains.games.selection import NormalPlan, select_normal, select_spe
    from accord.domains.games.studies import (
        StudyEpisode,
        action_share,
        plot_action_share,
        plot_study,
        study_episodes,
        study_table,
    )

__all__ = [
    "AGENT_KINDS",
    "DOMAIN",
    "LLM_AGENT_KINDS",
    "CatalogEntry",
    "ExtensiveGame",
    "FixedAgent",
    "Game",
    "GameAECEnv",
    "GameAgent",
    "GameFileError",
    "GameInfo",
    "GameObservation",
    "GameProtocol",
    "GameState",
    "GamesDomain",
    "LLMGameAgent",
    "LLMWorkflowAgent",
    "NormalFormGame",
    "NormalPlan",
    "RandomAgent",
    "RationalAgent",
    "Solution",
    "Strategy",
    "StudyEpisode",
    "TalkMessage",
    "action_distribution",
    "action_share",
    "build_agent",
    "build_episode",
    "catalog_entry",
    "catalog_names",
    "dump_game",
    "episode_metrics",
    "load_catalog_game",
    "load_game",
    "make_aec_env",
    "make_agent",
    "make_llm_agent",
    "make_llm_workflow",
    "number_out",
    "parse_game",
    "personality_line",
    "plot_action_distribution",
    "plot_action_share",
    "plot_study",
    "prompt_variant",
    "rate",
    "render_game",
    "resolve_game",
    "save_game",
    "select_normal",
    "select_spe",
    "solution_json",
    "solve_game",
    "study_episodes",
    "study_table",
    "workflow_correct",
]
