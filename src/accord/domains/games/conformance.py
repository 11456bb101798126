"""The conformance kit of the classic games (:class:`~accord.protocols.kit.ProtocolKit`).

Episodes cycle through every catalog game (normal-form games played simultaneously,
extensive-form games played move by move) with 0 to 3 cheap-talk rounds, the first speaker
alternating, and a cheap-talk length limit in some episodes.

Random legal moves: messages of any length within the limit during the talk, any of the
mover's legal actions during play. Random illegal moves: an action, an empty or overlong
message, or another kind of move during the talk; a message, an action that is not the
mover's (another player's, an unknown one, an empty name) or another kind of move during
play. The games are of complete information: every player sees the whole game and the
public past, so no object is private to a player and the privacy hook is empty (the
observation check instead asserts that each player is handed the game itself, its own
index and only messages already sent).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from accord.core.moves import Accept, Action, Message, Move, Offer
from accord.domains.games.catalog import catalog_names, load_catalog_game
from accord.domains.games.model import NormalFormGame
from accord.domains.games.protocol import GameObservation, GameProtocol
from accord.protocols.base import Observation, Protocol
from accord.protocols.engine import EpisodeResult
from accord.protocols.kit import ProtocolKit, observation_check, result_check

TALK_ROUNDS = (0, 1, 2, 3)
"""Cheap-talk rounds the episodes cycle through."""

MESSAGE_LIMITS = (None, 60)
"""Cheap-talk length limits the episodes alternate between."""

WORDS = ("let", "us", "both", "cooperate", "I", "will", "defect", "trust", "me", "deal")


def _text(rng: np.random.Generator, limit: int | None) -> str:
    text = " ".join(str(w) for w in rng.choice(WORDS, size=int(rng.choice((1, 4, 30)))))
    return text if limit is None else text[:limit].strip() or "ok"


def legal_move(obs: Observation, rng: np.random.Generator) -> Move:
    """A random move the play protocol accepts from ``obs``."""
    assert isinstance(obs, GameObservation)
    if obs.phase == "negotiation":
        return Message(_text(rng, obs.max_message_chars))
    return Action(str(rng.choice(obs.actions)))


def _not_mine(obs: GameObservation, rng: np.random.Generator) -> str:
    others: list[str] = ["", "ACTION_1", "no-such-action"]
    game = obs.game
    if isinstance(game, NormalFormGame):
        others += [a for i, acts in enumerate(game.actions) if i != obs.player_index
                   for a in acts if a not in obs.actions]
    return str(rng.choice(others))


def illegal_move(obs: Observation, rng: np.random.Generator) -> Move:
    """A random move the play protocol must refuse from ``obs``."""
    assert isinstance(obs, GameObservation)
    choice = int(rng.integers(3))
    if obs.phase == "negotiation":
        if choice == 0:
            return Action(str(rng.choice(("cooperate", "defect", "stag"))))
        if choice == 1:
            limit = obs.max_message_chars
            if limit is not None and rng.random() < 0.5:
                return Message("x" * (limit + 1 + int(rng.integers(50))))
            return Message(str(rng.choice(("", "  ", "\n"))))
        return Offer({"deal": 1}) if rng.random() < 0.5 else Accept()
    if choice == 0:
        return Message(_text(rng, None))
    if choice == 1:
        return Action(_not_mine(obs, rng))
    return Accept() if rng.random() < 0.5 else Offer({"action": str(rng.choice(obs.actions))})


def check_observation(protocol: GameProtocol, role: str, obs: Observation) -> None:
    """Complete information: the game itself, the player's own index, the public past."""
    assert isinstance(obs, GameObservation), f"{role} got {type(obs).__name__}"
    if obs.game is not protocol.game:
        raise AssertionError(f"{role} is not shown the game being played")
    if protocol.parties[obs.player_index] != role:
        raise AssertionError(f"{role} is told it is player {obs.player_index}")
    if obs.phase == "play" and not obs.actions:
        raise AssertionError(f"{role} must act but is offered no action")
    if obs.phase == "negotiation" and obs.actions:
        raise AssertionError(f"{role} is offered actions during the cheap talk")
    if len(obs.messages) > protocol.rounds * len(protocol.parties):
        raise AssertionError(f"{role} sees more messages than the talk allows")


def check_result(protocol: GameProtocol, res: EpisodeResult) -> None:
    """A completed game records the whole talk, a legal profile or path and its payoffs."""
    rec = res.record
    if res.status == "error":
        return
    if res.status != "completed" or not rec["completed"]:
        raise AssertionError(f"a game ended with {res.status}/{res.reason} before its outcome")
    if len(rec["messages"]) != protocol.rounds * len(protocol.parties):
        raise AssertionError(f"{len(rec['messages'])} cheap-talk messages recorded for "
                             f"{protocol.rounds} round(s)")
    game = protocol.game
    if isinstance(game, NormalFormGame):
        profile = tuple(rec["profile"])
        for i, action in enumerate(profile):
            if action not in game.actions[i]:
                raise AssertionError(f"{action!r} is not an action of player {i}")
        payoff = game.payoff(profile)
    else:
        payoff = game.payoff(tuple(rec["path"]))
    if [float(v) for v in rec["payoffs"].values()] != [float(v) for v in payoff]:
        raise AssertionError(f"recorded payoffs {rec['payoffs']} are not the outcome's {payoff}")


def kit(games: Sequence[str] | None = None) -> ProtocolKit:
    """The kit for the play protocol on ``games`` (default: the whole catalog)."""
    names = list(games) if games is not None else catalog_names()
    if not names:
        raise ValueError("the games kit needs at least one game")
    loaded = {n: load_catalog_game(n) for n in names}

    def make(i: int) -> Protocol[Any]:
        game = loaded[names[i % len(names)]]
        return GameProtocol(game, negotiation_rounds=TALK_ROUNDS[i % len(TALK_ROUNDS)],
                            first_speaker=(i // 2) % len(game.players),
                            max_message_chars=MESSAGE_LIMITS[(i // 3) % len(MESSAGE_LIMITS)])

    return ProtocolKit(
        name="games", make=make, legal=legal_move, illegal=illegal_move,
        max_rounds=max(TALK_ROUNDS) + 12,
        check_observation=observation_check(GameProtocol, check_observation),
        check_result=result_check(GameProtocol, check_result))


__all__ = ["check_observation", "check_result", "illegal_move", "kit", "legal_move"]
