"""The person's view of a classic game: the whole game (complete information), cheap talk,
then their action. Payoffs are public in these games, so the view shows the full table or
tree as :func:`~accord.domains.games.describe.render_game` prints it for the LLM players.
"""

from __future__ import annotations

from typing import Any

from accord.agents.human.agent import HumanView
from accord.agents.human.brief import Cell, make_brief, table
from accord.agents.human.replies import reply_to_move
from accord.agents.human.seat import Reply
from accord.core.moves import Move
from accord.domains.games.describe import fmt_number, render_game
from accord.domains.games.model import ExtensiveGame, Game, NormalFormGame
from accord.domains.games.protocol import GameObservation
from accord.protocols.base import Observation


def _obs(obs: Observation) -> GameObservation:
    if not isinstance(obs, GameObservation) or obs.game is None:
        raise TypeError(f"the games human view needs a GameObservation, got "
                        f"{type(obs).__name__}")
    return obs


def _no_package(raw: Any) -> str:
    return "the classic games have no packages: send a message or choose an action"


def payoff_tables(game: Game, me: int) -> list[dict[str, Any]]:
    """The game's payoffs as tables, the person's own payoff marked in every cell.

    Two players: the payoff matrix (rows: the first player's actions, columns: the
    second's), each cell ``{"you": ..., "other": ...}``. More players, or a sequential
    game: one row per profile or play path with every player's payoff.
    """
    players = game.players
    if isinstance(game, NormalFormGame) and len(players) == 2:
        rows_a, cols_a = game.actions
        other = players[1 - me]
        rows: list[list[Cell]] = []
        for i, r in enumerate(rows_a):
            row: list[Cell] = [r]
            for j in range(len(cols_a)):
                pay = game.payoff((i, j))
                row.append({"you": fmt_number(pay[me]), "other": fmt_number(pay[1 - me])})
            rows.append(row)
        return [table(f"Payoffs: rows are {players[0]}'s actions, columns {players[1]}'s; "
                      f"each cell shows your payoff ({players[me]}) first, then {other}'s",
                      [f"{players[0]} \\ {players[1]}", *cols_a], rows, "payoffs")]
    if isinstance(game, NormalFormGame):
        from itertools import product

        prows: list[list[Cell]] = []
        for prof in product(*(range(len(a)) for a in game.actions)):
            pay = game.payoff(prof)
            prows.append([", ".join(game.profile_names(prof)),
                          *[{"you": fmt_number(x), "other": ""} if k == me else fmt_number(x)
                            for k, x in enumerate(pay)]])
        return [table("Payoffs of every profile (your column marked)",
                      ["profile", *players], prows, "payoffs")]
    assert isinstance(game, ExtensiveGame)
    from accord.solvers.game_tree import leaves

    lrows: list[list[Cell]] = []
    for path, leaf in leaves(game.tree):
        lrows.append([" then ".join(path) or "-",
                      *[{"you": fmt_number(x), "other": ""} if k == me else fmt_number(x)
                        for k, x in enumerate(leaf.payoff)]])
    return [table("Payoffs at the end of every play (moves in order; your column marked)",
                  ["play", *players], lrows, "payoffs")]


class GamesView(HumanView):
    """The game, the person's player, the talk so far, and the legal actions."""

    domain = "games"

    def view(self, obs: Observation) -> dict[str, Any]:
        o = _obs(obs)
        game = o.game
        assert game is not None
        others = [p for p in game.players if p != o.role]
        brief = make_brief(
            game.name or "Game", game.info.description or "A game of complete information: "
            "every player knows every payoff.",
            [("You are", o.role), ("Against", ", ".join(others)),
             ("Cheap-talk rounds", f"{o.negotiation_rounds} (messages bind nothing)"),
             ("Payoffs", "public: everyone sees this table")],
            payoff_tables(game, o.player_index))
        return {
            "brief": brief,
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
