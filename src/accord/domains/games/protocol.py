"""The play protocol for classic games: optional cheap talk, then simultaneous or sequential play.

Phases (seed 003, sections 4 and 6):

1. ``negotiation``: ``k`` rounds of pre-play cheap talk. In each round every player sends
   one :class:`~accord.core.moves.Message`, one after the other, starting with the
   configured first speaker (``first_speaker``; by default the first player). Messages
   bind nothing; each one is visible to everybody once sent (and only then).
2. ``play``: a normal-form game asks every player at once for an
   :class:`~accord.core.moves.Action` (``to_move`` returns all players, the engine asks
   them concurrently and validates each move against the same state, so no one sees
   another's choice before choosing). An extensive-form game asks the mover at the current
   node; everyone sees the path so far (perfect information).
3. ``done``: the outcome is reached. The episode ends with status ``completed`` (play
   completed inside the rules; the record holds the outcome). A game has no agreement to
   reach: whether the players coordinated, played an equilibrium or reached a Pareto-
   optimal outcome is for the metrics (:mod:`accord.domains.games.metrics`) to say.

Invalid moves (a message during play, an unknown action, an empty message, a parse
failure) get an :class:`~accord.protocols.base.Invalid` with targeted feedback, so the
engine's retry loop lets the agent try again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from accord.core.moves import Action, Malformed, Message, Move
from accord.domains.games.load import dump_game, number_out
from accord.domains.games.model import ExtensiveGame, Game, NormalFormGame
from accord.protocols.base import (
    Invalid,
    Note,
    Observation,
    Progress,
    Protocol,
    Termination,
)
from accord.solvers.game_tree import Decision

Phase = Literal["negotiation", "play", "done"]


@dataclass(frozen=True, slots=True)
class TalkMessage:
    """One cheap-talk message: negotiation round (from 1), speaker and text."""

    round: int
    speaker: str
    text: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"round": self.round, "speaker": self.speaker, "text": self.text}


@dataclass(frozen=True, slots=True)
class GameState:
    """Protocol state: phase, talk turn, messages so far, choices and (sequential) path."""

    phase: Phase
    turn: int = 0
    messages: tuple[TalkMessage, ...] = ()
    choices: tuple[tuple[str, str], ...] = ()
    path: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GameObservation(Observation):
    """What a player sees: the whole game (complete information), its role and the public past.

    ``phase`` is ``negotiation`` or ``play``; ``legal`` holds the move kind expected now
    (``message`` or ``action``) and ``actions`` the legal action names during play.
    ``messages`` are the cheap-talk messages already sent, ``history`` the (player, action)
    moves already made in a sequential game (``node`` is the current path).
    ``max_message_chars`` is the cheap-talk length limit (``None``: no limit). An LLM agent
    renders ``game`` with :func:`accord.domains.games.describe.render_game`.
    """

    game: Game | None = None
    player_index: int = 0
    phase: str = "play"
    actions: tuple[str, ...] = ()
    negotiation_round: int = 0
    negotiation_rounds: int = 0
    first_speaker: str = ""
    messages: tuple[TalkMessage, ...] = ()
    history: tuple[tuple[str, str], ...] = ()
    node: tuple[str, ...] = ()
    max_message_chars: int | None = None


class GameProtocol(Protocol[GameState]):
    """Cheap talk then play for one catalog or file game (see the module docstring)."""

    def __init__(self, game: Game, *, negotiation_rounds: int = 0,
                 first_speaker: str | int | None = None,
                 max_message_chars: int | None = None) -> None:
        if negotiation_rounds < 0:
            raise ValueError(f"negotiation_rounds must be >= 0, got {negotiation_rounds}")
        self.game = game
        self.parties = tuple(game.players)
        self.rounds = int(negotiation_rounds)
        self.max_message_chars = max_message_chars
        if first_speaker is None:
            first = 0
        elif isinstance(first_speaker, int):
            if not 0 <= first_speaker < len(self.parties):
                raise ValueError(f"first_speaker index {first_speaker} out of range")
            first = first_speaker
        elif first_speaker in self.parties:
            first = self.parties.index(first_speaker)
        else:
            raise ValueError(f"first_speaker {first_speaker!r} is not one of the players "
                             f"{list(self.parties)}")
        self.order = self.parties[first:] + self.parties[:first]

    # -- the state machine -------------------------------------------------------------
    def initial_state(self) -> GameState:
        return GameState("negotiation" if self.rounds else "play")

    def _movers(self, state: GameState) -> tuple[str, ...]:
        if state.phase == "negotiation":
            return (self.order[state.turn % len(self.order)],)
        if state.phase == "play":
            if isinstance(self.game, NormalFormGame):
                return self.parties
            mover = self.game.mover(state.path)
            return (mover,) if mover is not None else ()
        return ()

    def to_move(self, state: GameState) -> tuple[str, ...]:
        return self._movers(state)

    def _legal_actions(self, state: GameState, role: str) -> tuple[str, ...]:
        if state.phase != "play":
            return ()
        if isinstance(self.game, NormalFormGame):
            return self.game.actions[self.game.player_index(role)]
        return self.game.legal(state.path)

    def observe(self, state: GameState, role: str) -> GameObservation:
        index = self.parties.index(role)
        talk_round = state.turn // len(self.order) + 1 if state.phase == "negotiation" else 0
        return GameObservation(
            role=role, round=self.progress(state).round,
            legal=("message",) if state.phase == "negotiation" else
            ("action",) if state.phase == "play" else (),
            game=self.game, player_index=index, phase=state.phase,
            actions=self._legal_actions(state, role), negotiation_round=talk_round,
            negotiation_rounds=self.rounds, first_speaker=self.order[0],
            messages=state.messages,
            history=state.choices if isinstance(self.game, ExtensiveGame) else (),
            node=state.path, max_message_chars=self.max_message_chars)

    def malformed(self, state: GameState, role: str, move: Malformed) -> Invalid | None:
        """An unreadable reply, refused under the one reason ``malformed`` (the parser's own
        reason kept as ``parse_error``): the games' retry prompt names this reason."""
        if role not in self._movers(state):
            return Invalid("not_your_turn", f"It is not {role}'s turn to move.")
        return Invalid("malformed", move.feedback or "Your reply could not be read.",
                       {"parse_error": move.reason})

    def validate(self, state: GameState, role: str, move: Move) -> Invalid | None:
        if role not in self._movers(state):
            return Invalid("not_your_turn", f"It is not {role}'s turn to move.")
        if state.phase == "negotiation":
            rnd = state.turn // len(self.order) + 1
            if not isinstance(move, Message):
                return Invalid("expected_message",
                               f"This is negotiation round {rnd} of {self.rounds}: send a "
                               f"message. You choose your action after the negotiation.",
                               {"got": move.kind})
            if not move.text.strip():
                return Invalid("empty_message", "Your message is empty; write something "
                                                "to the other players.")
            if self.max_message_chars and len(move.text) > self.max_message_chars:
                return Invalid("message_too_long",
                               f"Your message has {len(move.text)} characters; the limit is "
                               f"{self.max_message_chars}.")
            return None
        legal = self._legal_actions(state, role)
        if not isinstance(move, Action):
            return Invalid("expected_action",
                           f"The negotiation is over: choose one action from {list(legal)}.",
                           {"got": move.kind, "legal": list(legal)})
        if move.action not in legal:
            return Invalid("illegal_action",
                           f"{move.action!r} is not one of your actions; choose exactly one "
                           f"of {list(legal)}.", {"legal": list(legal)})
        return None

    def apply(self, state: GameState, moves: Mapping[str, Move]) -> tuple[GameState, list[Note]]:
        if state.phase == "negotiation":
            (speaker, move), = moves.items()
            assert isinstance(move, Message)
            msg = TalkMessage(state.turn // len(self.order) + 1, speaker, move.text)
            turn = state.turn + 1
            done_talking = turn >= self.rounds * len(self.order)
            notes = [Note("negotiation_over")] if done_talking else []
            return replace(state, turn=turn, messages=(*state.messages, msg),
                           phase="play" if done_talking else "negotiation"), notes
        if isinstance(self.game, NormalFormGame):
            choices = tuple((p, _action(moves[p])) for p in self.parties)
            return replace(state, choices=choices, phase="done"), []
        (mover, move), = moves.items()
        path = (*state.path, _action(move))
        finished = not isinstance(self.game.node(path), Decision)
        return replace(state, path=path, choices=(*state.choices, (mover, _action(move))),
                       phase="done" if finished else "play"), []

    def termination(self, state: GameState) -> Termination | None:
        if state.phase == "done":
            return Termination("completed", None, None, "game played to its outcome")
        return None

    def progress(self, state: GameState) -> Progress:
        if state.phase == "negotiation":
            return Progress(state.turn // len(self.order) + 1)
        if state.phase == "play":
            return Progress(self.rounds + 1 + len(state.path))
        return Progress(self.rounds + max(1, len(state.path)))

    # -- records -----------------------------------------------------------------------
    def outcome_payoffs(self, state: GameState) -> dict[str, Any] | None:
        """Payoffs by player once the game is over, else ``None``."""
        if state.phase != "done":
            return None
        if isinstance(self.game, NormalFormGame):
            vec = self.game.payoff(tuple(a for _, a in state.choices))
        else:
            vec = self.game.payoff(state.path)
        return {p: number_out(v) for p, v in zip(self.parties, vec, strict=True)}

    def result(self, state: GameState, termination: Termination) -> dict[str, Any]:
        record: dict[str, Any] = {
            "game": self.game.name or None,
            "type": self.game.type,
            "players": list(self.parties),
            "negotiation_rounds": self.rounds,
            "first_speaker": self.order[0],
            "messages": [m.to_dict() for m in state.messages],
            "completed": state.phase == "done",
            "payoffs": self.outcome_payoffs(state),
            "spec": dump_game(self.game),
        }
        if isinstance(self.game, NormalFormGame):
            record["actions"] = dict(state.choices)
            record["profile"] = [a for _, a in state.choices] if state.choices else None
        else:
            record["moves"] = [{"player": p, "action": a} for p, a in state.choices]
            record["path"] = list(state.path)
        return record

    def public_view(self, state: GameState) -> dict[str, Any]:
        return {"progress": self.progress(state).round, "phase": state.phase,
                "messages": [m.to_dict() for m in state.messages],
                "path": list(state.path),
                "outcome": dict(state.choices) if state.phase == "done" else None}


def _action(move: Move) -> str:
    assert isinstance(move, Action)
    return move.action
