"""The person's view of a classic game: the whole game (complete information), cheap talk,
then their action. Payoffs are public in these games, so the view shows the full table or
tree as :func:`~accord.domains.games.describe.render_game` prints it for the LLM players.
"""

from __future__ import annotations

from typing import Any

from accord.agents.human.agent import HumanView
from accord.agents.human.replies import reply_to_move
from accord.agents.human.seat import Reply
from accord.core.moves import Move
from accord.domains.games.describe import render_game
from accord.domains.games.protocol import GameObservation
from accord.protocols.base import Observation


def _obs(obs: Observation) -> GameObservation:
    if not isinstance(obs, GameObservation) or obs.game is None:
        raise TypeError(f"the games human view needs a GameObservation, got "
                        f"{type(obs).__name__}")
    return obs


def _no_package(raw: Any) -> str:
    return "the classic games have no packages: send a message or choose an action"


class GamesView(HumanView):
    """The game, the person's player, the talk so far, and the legal actions."""

    domain = "games"

    def view(self, obs: Observation) -> dict[str, Any]:
        o = _obs(obs)
        game = o.game
        assert game is not None
        return {
            "domain": self.domain, "role": o.role, "game": game.name,
            "players": list(game.players), "player_index": o.player_index,
            "description": render_game(game), "phase": o.phase, "actions": list(o.actions),
            "negotiation_round": o.negotiation_round,
            "negotiation_rounds": o.negotiation_rounds,
            "messages": [m.to_dict() for m in o.messages],
            "history": [{"player": p, "action": a} for p, a in o.history],
        }

    def move(self, obs: Observation, reply: Reply) -> Move:
        return reply_to_move(reply, _no_package)
