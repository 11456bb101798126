"""NegotiationArena ``game_state.json`` logs written in their exact structure (as
``negotiationarena.game_objects.game.Game.log_state`` and its ``GameEncoder`` write them),
for the importer tests. Their example logs carry no licence, so none is copied here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

RED, BLUE = "Player RED", "Player BLUE"


def res(d: dict[str, int]) -> dict[str, Any]:
    """A serialised ``Resources``."""
    return {"_type": "resource", "_value": dict(d)}


def goal(kind: str, value: Any) -> dict[str, Any]:
    """A serialised goal (``seller_goal``/``buyer_goal`` wrap a valuation)."""
    if kind in ("seller_goal", "buyer_goal"):
        value = {"_type": "valuation", "_value": value}
    return {"_type": "goal", "_value": {"_type": kind, "_value": value}}


def trade(red_gives: dict[str, int], blue_gives: dict[str, int]) -> dict[str, Any]:
    """A serialised ``Trade`` (keys sorted in reverse, RED first, as the class does)."""
    return {"_type": "trade", "_value": {"RED": res(red_gives), "BLUE": res(blue_gives)}}


def _player(name: str) -> dict[str, Any]:
    return {"class": "ChatGPTAgent", "model": "gpt-4-1106-preview", "agent_name": name,
            "prompt_entity_initializer": "system", "run_epoch_time_ms": "1707347676580",
            "conversation": [{"role": "system", "content": "rules"}], "seed": 1,
            "client": "OpenAI", "temperature": 0.7, "max_tokens": 400}


def _turn(i: int, who: int, answer: str, proposal: Any, message: str) -> dict[str, Any]:
    public = {"message": message, "player answer": answer,
              "newly proposed trade": proposal if proposal is not None else "NONE"}
    return {"current_iteration": i, "turn": who,
            "player_public_answer_string": f"<{message}> message </{message}>",
            "player_public_info_dict": public,
            "player_private_info_dict": {"reason": "private reasoning", "proposal count": "1"},
            "player_complete_answer": "<reason>...</reason>",
            "player_state": []}


def buysell_log(prices: list[int | str], *, cost: int = 40, wtp: int = 60,
                budget: int = 1000, end: bool = True) -> dict[str, Any]:
    """A buy-sell log: RED sells X; ``prices`` alternate RED, BLUE, ...; an int is a
    proposal at that price, ``"ACCEPT"``/``"REJECT"`` the final answer."""
    settings = {
        "resources_support_set": res({"X": 0}),
        "player_goals": [goal("seller_goal", {"X": cost}), goal("buyer_goal", {"X": wtp})],
        "player_initial_resources": [res({"X": 1}), res({"ZUP": budget})],
        "player_social_behaviour": ["", ""],
        "player_roles": [f"You are {RED}.", f"You are {BLUE}."],
        "player_valuation": [{"_type": "valuation", "_value": {"X": cost}},
                             {"_type": "valuation", "_value": {"X": wtp}}],
    }
    states: list[dict[str, Any]] = [{"current_iteration": "START", "turn": "None",
                                     "settings": settings}]
    last = None
    for i, p in enumerate(prices):
        who = i % 2
        if isinstance(p, int):
            last = p
            states.append(_turn(i + 1, who, "PROPOSAL", trade({"X": 1}, {"ZUP": p}),
                                f"I propose {p} ZUP."))
        else:
            states.append(_turn(i + 1, who, p, None, f"I say {p}."))
    if end:
        final = prices[-1] if isinstance(prices[-1], str) else "PROPOSAL"
        price = last if final == "ACCEPT" and last is not None else None
        outcome = [0, 0] if price is None else [price - cost, wtp - price]
        states.append({"current_iteration": "END", "turn": "None", "summary": {
            "player_goals": settings["player_goals"],
            "player_initial_resources": settings["player_initial_resources"],
            "proposed_trade": trade({"X": 1}, {"ZUP": last or 0}),
            "player_valuation": settings["player_valuation"],
            "final_response": final, "final_resources": settings["player_initial_resources"],
            "player_outcome": outcome}})
    return {"class": "BuySellGame", "run_epoch_time_ms": "1707347676639",
            "players": [_player(RED), _player(BLUE)], "game_state": states,
            "log_dir": "/logs", "log_path": "/logs/1", "turn": 1, "iterations": 10,
            "current_iteration": len(prices), "game_interface": {
                "class": "BuySellGameDefaultParser"}, "end_tag": "ACCEPT"}


def trading_log(moves: list[tuple[dict[str, int], dict[str, int]] | str],
                goals: tuple[Any, Any] | None = None) -> dict[str, Any]:
    """A trading log (RED starts with X 25, Y 5; BLUE with X 5, Y 25; both want 15 of
    each unless ``goals`` says otherwise); each move is (RED gives, BLUE gives) or a
    final ``"ACCEPT"``/``"REJECT"``."""
    goals = goals or (goal("resource_goal", {"X": 15, "Y": 15}),
                      goal("resource_goal", {"X": 15, "Y": 15}))
    settings = {"resources_support_set": res({"X": 0, "Y": 0}), "player_goals": list(goals),
                "player_initial_resources": [res({"X": 25, "Y": 5}), res({"X": 5, "Y": 25})],
                "player_social_behaviour": ["", ""],
                "player_roles": [f"You are {RED}, start by making a proposal.",
                                 f"You are {BLUE}, start by responding to a trade."]}
    states: list[dict[str, Any]] = [{"current_iteration": "START", "turn": "None",
                                     "settings": settings}]
    for i, m in enumerate(moves):
        if isinstance(m, str):
            states.append(_turn(i + 1, i % 2, m, None, f"I say {m}."))
        else:
            states.append(_turn(i + 1, i % 2, "PROPOSAL", trade(*m), "How about this?"))
    return {"class": "TradingGame", "run_epoch_time_ms": "1707347000000",
            "players": [_player(RED), _player(BLUE)], "game_state": states,
            "iterations": 6, "game_interface": {"class": "TradingGameDefaultParser"}}


def write_log(folder: Path, doc: dict[str, Any]) -> Path:
    """``folder/game_state.json`` (as NegotiationArena names its logs)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "game_state.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path
