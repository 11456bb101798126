"""LLM players for the classic games with chain-of-thought prompting (seed 003, 4.3 and 6).

Agent kind ``llm`` (``llm:MODEL?temperature=1&personality=witty&prompt=5``). One append-only
session per player and episode (:class:`~accord.agents.llm_support.LLMSession`):

* the **system prompt** (set once): the personality line of section 6.3 when asked for,
  the role, the game's description and its payoff table (:func:`~accord.domains.games.
  describe.render_game`) or tree, how the episode goes (k rounds of cheap talk in the
  configured order, then simultaneous or sequential play), the reply format, the
  non-negotiable rules at the start and again at the end. The catalog name and notes are
  not shown (the notes state the equilibria), and no machine-readable block either: a real
  endpoint gets text only (issue 14). The rule "nothing anyone says binds anybody" is
  accord's addition, not the seed's: it is shown only with the option ``cheap_talk=true``;
* each **negotiation turn** appends the other players' new messages, quoted as inert data
  (:func:`~accord.agents.guards.quote_counterpart`), and asks for ``<THINK>`` then
  ``<MESSAGE>``;
* each **action turn** appends the remaining messages (and in a sequential game the moves
  so far and the current node), the legal actions, and asks for ``<THINK>`` then one
  ``<ACTION>``; the prompt variant of section 6.5 (option ``prompt=1..6``) is the last
  text of every action prompt;
* a **retry** (the protocol refused the move: unreadable reply, unknown action) appends the
  protocol's targeted feedback (and the strategy, the actions and the variant again).

Prompts carry no state block: the ``games`` stub policy reads the same text a model does.
Private ``<THINK>`` text is stripped before anything leaves the agent: only the ``<MESSAGE>`` body
reaches the other players, and the ``llm_call`` notes (and ``Malformed.raw``) hold the
public part of each reply only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from accord.agents import structured as st
from accord.agents.llm_base import LLMAgent, check_model_spec
from accord.agents.llm_base import llm_client as base_client
from accord.agents.spec import AgentSpec, AgentSpecError
from accord.core.moves import Action, Malformed, Message, Move
from accord.domains.games.describe import render_game
from accord.domains.games.llm.prompts import (
    Strategy,
    node_name,
    personality_line,
    prompt_variant,
    quoted,
    render_prompt,
)
from accord.domains.games.llm.replies import parse_action, parse_talk
from accord.domains.games.model import Game, NormalFormGame
from accord.domains.games.protocol import GameObservation
from accord.llm import GenerationConfig, LLMClient
from accord.protocols.base import Observation
from accord.protocols.engine import DEFAULT_MAX_RETRIES

#: agent options of the LLM kinds besides the generation options
LLM_OPTIONS = frozenset({"personality", "prompt", "cheap_talk"})
#: the model the "needs a model" error suggests
EXAMPLE = "openai/gpt-4o"


def game_observation(observation: Observation) -> GameObservation:
    """The observation as a :class:`GameObservation` holding the game (``TypeError`` if not)."""
    if not isinstance(observation, GameObservation) or observation.game is None:
        raise TypeError(f"games LLM agents need a GameObservation with the game, got "
                        f"{type(observation).__name__}")
    return observation


class LLMGameAgent(LLMAgent):
    """A chain-of-thought LLM player (see the module docstring)."""

    name = "llm"
    #: which workflow the system prompt announces (``None``: plain chain of thought)
    workflow_kind: str | None = None

    def __init__(self, client: LLMClient, config: GenerationConfig, *, episode: str | None,
                 personality: str | None = None, prompt: int = 0,
                 max_retries: int = DEFAULT_MAX_RETRIES, cheap_talk: bool = False) -> None:
        self.cheap_talk = bool(cheap_talk)
        self.personality = personality
        self.personality_text = personality_line(personality)
        self.prompt_number = int(prompt or 0)
        self.variant_text = prompt_variant(self.prompt_number)
        super().__init__(client, config, episode=episode, max_retries=max_retries)

    def reset(self, rng: np.random.Generator | None = None) -> None:
        """Forget the session, the notes and what was already shown."""
        super().reset(rng)
        self.strategy: Strategy | None = None
        self._seen = 0
        self._played = False

    def describe(self) -> str:
        """``llm:<model>`` plus the section-6 options in use."""
        extra = [f"personality={self.personality}"] if self.personality else []
        extra += [f"prompt={self.prompt_number}"] if self.prompt_number else []
        extra += ["cheap_talk"] if self.cheap_talk else []
        return f"{self.name}:{self.client.model}" + (f"({', '.join(extra)})" if extra else "")

    # -- prompts ------------------------------------------------------------------------
    def system_prompt(self, obs: GameObservation) -> str:
        """The session's fixed system prompt for this player and game."""
        game = obs.game
        assert game is not None
        players = list(game.players)
        first = players.index(obs.first_speaker) if obs.first_speaker in players else 0
        return render_prompt(
            "system.jinja", personality_line=self.personality_text, role=obs.role,
            others=[p for p in players if p != obs.role], description=game.info.description,
            board=render_game(game), normal=isinstance(game, NormalFormGame),
            rounds=obs.negotiation_rounds, order=players[first:] + players[:first],
            workflow=self.workflow_kind, cheap_talk=self.cheap_talk)

    def _common(self, obs: GameObservation) -> dict[str, Any]:
        here = None
        if self.strategy is not None and obs.phase == "play":
            here = self.strategy.plan.get(node_name(obs.node))
        return {"strategy": None if self.strategy is None else self.strategy.view(obs.role),
                "here": here}

    def turn_prompt(self, obs: GameObservation) -> str:
        """This call's user message: a retry with feedback, a talk turn or an action turn."""
        game = obs.game
        assert game is not None
        play = obs.phase != "negotiation"
        variant = self.variant_text if play else None
        if obs.feedback is not None:
            return render_prompt("feedback.jinja", reason=obs.feedback.reason,
                                 feedback=obs.feedback.feedback, attempt=obs.attempt,
                                 max_attempts=self.attempts(obs),
                                 phase=obs.phase,
                                 actions=list(obs.actions), variant=variant, **self._common(obs))
        news = quoted(obs.messages[self._seen:], obs.role)
        self._seen = len(obs.messages)
        if not play:
            return render_prompt(
                "talk.jinja", round=obs.negotiation_round, rounds=obs.negotiation_rounds,
                news=news, first=not obs.messages,
                others=[p for p in game.players if p != obs.role], **self._common(obs))
        first_action, self._played = not self._played, True
        return render_prompt(
            "act.jinja", rounds=obs.negotiation_rounds, news=news, first_action=first_action,
            normal=isinstance(game, NormalFormGame), moves=list(obs.history),
            node=node_name(obs.node), actions=list(obs.actions), variant=variant,
            **self._common(obs))

    def check(self, observation: Observation) -> GameObservation:
        return game_observation(observation)

    def call_lead(self, obs: GameObservation) -> dict[str, Any]:
        return {"call": "talk" if obs.phase == "negotiation" else "action"}

    def parse(self, text: str, obs: GameObservation) -> Move:
        if obs.phase == "negotiation":
            return parse_talk(text)
        return parse_action(text, obs.actions)

    def reply_schema(self, obs: GameObservation) -> Mapping[str, Any]:
        """Structured output: a message in a talk round; one of the legal actions to play."""
        if obs.phase == "negotiation":
            return st.obj({"message": st.text()})
        return st.obj({"action": st.enum(list(obs.actions))})

    def structured_move(self, data: Mapping[str, Any], obs: GameObservation) -> Move:
        if obs.phase == "negotiation":
            text = data.get("message")
            if not isinstance(text, str) or not text.strip():
                return Malformed("empty_message", "Your message is empty; write something "
                                 "to the other players.", raw=str(data)[:200])
            return Message(text.strip())
        action = data.get("action")
        if action not in obs.actions:
            return Malformed("illegal_action", f"{str(action)[:40]!r} is not one of your "
                             f"actions: {', '.join(map(str, obs.actions))}.",
                             raw=str(data)[:200])
        return Action(str(action))


def llm_client(spec: AgentSpec, ctx: Mapping[str, Any]) -> tuple[LLMClient, GenerationConfig]:
    """The model client and generation config of an ``llm``-style spec (usage errors clear)."""
    return base_client(spec, ctx.get("llm"), LLM_OPTIONS, example=EXAMPLE)


def llm_options(spec: AgentSpec) -> dict[str, Any]:
    """The section-6 options of a spec, checked (``AgentSpecError`` names the problem)."""
    personality = spec.options.get("personality")
    prompt = spec.options.get("prompt", 0)
    cheap_talk = spec.options.get("cheap_talk", False)
    if not isinstance(cheap_talk, bool):
        raise AgentSpecError(f"agent {spec}: cheap_talk must be true or false, got "
                             f"{cheap_talk!r}")
    try:
        personality_line(None if personality is None else str(personality))
        prompt_variant(prompt)
    except ValueError as exc:
        raise AgentSpecError(f"agent {spec}: {exc}") from None
    return {"personality": None if personality in (None, "") else str(personality),
            "prompt": int(prompt or 0), "cheap_talk": cheap_talk}


def check_llm_spec(spec: AgentSpec) -> None:
    """Validate an LLM spec without building a client (for config validation)."""
    if not spec.arg:  # the missing model first, then the section-6 options
        check_model_spec(spec, LLM_OPTIONS, example=EXAMPLE)
    llm_options(spec)
    check_model_spec(spec, LLM_OPTIONS, example=EXAMPLE)


def make_llm_agent(spec: AgentSpec, game: Game, player: int, ctx: Mapping[str, Any]
                   ) -> LLMGameAgent:
    """Factory of kind ``llm``: ``llm:MODEL[?temperature=..&personality=..&prompt=1..6]``."""
    opts = llm_options(spec)
    client, config = llm_client(spec, ctx)
    return LLMGameAgent(client, config, episode=ctx.get("episode_id") or None,
                        max_retries=int(ctx.get("max_retries", DEFAULT_MAX_RETRIES)), **opts)


__all__ = [
    "LLM_OPTIONS",
    "LLMGameAgent",
    "check_llm_spec",
    "game_observation",
    "llm_client",
    "llm_options",
    "make_llm_agent",
]
