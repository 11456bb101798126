"""NegotiationArena games (Bianchi et al., 2024; ``github.com/vinid/NegotiationArena``) as
accord bargaining scenarios.

NegotiationArena keeps a game's parameters in the arguments of its game class (set in its
``runner/*.py`` scripts) and writes them, serialised, into every log it makes: the first
entry of a ``game_state.json``'s ``game_state`` list is ``{"current_iteration": "START",
"settings": {...}}``. This importer reads those settings from a ``game_state.json`` (or a
file of the same shape holding just ``{"class": ..., "settings": {...}}``, or the game
arguments at the top level as the runner scripts pass them)::

    {"class": "BuySellGame", "players": [{"agent_name": "Player RED"}, ...],
     "game_state": [{"current_iteration": "START", "settings": {
        "player_goals": [
          {"_type": "goal", "_value": {"_type": "seller_goal",
                                       "_value": {"_type": "valuation", "_value": {"X": 40}}}},
          {"_type": "goal", "_value": {"_type": "buyer_goal",
                                       "_value": {"_type": "valuation", "_value": {"X": 60}}}}],
        "player_initial_resources": [{"_type": "resource", "_value": {"X": 1}},
                                     {"_type": "resource", "_value": {"ZUP": 1000}}]}}]}

* **Buy-sell** (``BuySellGame``): the seller's cost of production ``c`` and the buyer's
  willingness to pay ``w`` for the one object; the buyer holds ``B`` ZUP. One issue,
  ``price``, the integers 0..B (the game trades in whole ZUP and the buyer cannot pay
  more than it has). NegotiationArena scores a deal by the change in each player's
  valuation of its resources: ``p - c`` for the seller, ``w - p`` for the buyer, 0
  without a deal. accord's utilities are those surpluses on a common scale, shifted so
  that the BATNA is the value of keeping what one has: seller ``p / B`` with BATNA
  ``c / B``, buyer ``(B - p) / B`` with BATNA ``(B - w) / B`` (utility minus BATNA is
  the game's own outcome divided by B, so the Nash point and every comparison with the
  BATNA are the game's).
* **Trading** (``TradingGame``): initial resources per player and a goal per player. The
  outcome is the allocation of every resource between the two players, so the scenario is
  an item division over counts (accord's ``allocation`` issues, as Deal or No Deal uses):
  one issue per resource, the units the first player ends with (0..total). A
  ``resource_goal`` (hold at least these amounts) is scored as NegotiationArena scores it,
  1 when reached and 0 otherwise (a ``table`` utility over the outcomes); a
  ``maximisation_goal`` ("acquire as many resources as possible") as the number of units
  held (an ``allocation`` utility, every unit worth 1). The BATNA is the utility of the
  initial resources (no trade). accord's Deal-or-No-Deal domain is not used: it is a
  different game (three item types, private values summing to 10, its own dialogue
  protocol); the trading game is two players exchanging proposals, which is what the
  bargaining protocol runs.

Players are named after NegotiationArena's agent names without ``Player `` (``RED``,
``BLUE``), as its trades name them.
"""

from __future__ import annotations

import math
import os
from itertools import product
from pathlib import Path
from typing import Any

from accord.formats.base import FormatError, Imported, read_json

#: the money resource of NegotiationArena (``negotiationarena.constants.MONEY_TOKEN``)
MONEY = "ZUP"
#: the agent names NegotiationArena gives its two players
DEFAULT_PLAYERS = ("Player RED", "Player BLUE")
#: the most price values (ZUP) a buy-sell import lists
MAX_PRICES = 10_000
GAMES = ("BuySellGame", "TradingGame")
LOG_NAME = "game_state.json"


def log_file(path: str) -> Path:
    """The JSON file at ``path``, or the ``game_state.json`` in folder ``path``."""
    p = Path(path)
    if p.is_dir():
        p = p / LOG_NAME
    if not p.is_file():
        raise FormatError(str(p), "<file>", "no such file" + (
            f" (a folder must hold a {LOG_NAME})" if p.name == LOG_NAME else ""))
    return p


def load_document(path: Path) -> dict[str, Any]:
    """The parsed JSON object of a NegotiationArena file."""
    doc = read_json(path)
    if not isinstance(doc, dict):
        raise FormatError(str(path), "<root>", f"expected a JSON object, got "
                          f"{type(doc).__name__}")
    return doc


def typed(src: str, where: str, value: Any, kind: str) -> Any:
    """The ``_value`` of NegotiationArena's ``{"_type": kind, "_value": ...}``."""
    if not isinstance(value, dict) or value.get("_type") != kind or "_value" not in value:
        raise FormatError(src, where, f"expected {{\"_type\": \"{kind}\", \"_value\": ...}}, "
                          f"got {str(value)[:60]!r}")
    return value["_value"]


def amounts(src: str, where: str, value: Any) -> dict[str, int]:
    """A resource dict ``{"X": 1, "ZUP": 40}`` of whole non-negative amounts."""
    if not isinstance(value, dict) or not value:
        raise FormatError(src, where, "expected a non-empty mapping of resource amounts")
    out: dict[str, int] = {}
    for k, v in value.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                or v < 0 or v != int(v):
            raise FormatError(src, f"{where}.{k}", f"expected a whole amount >= 0, got "
                              f"{str(v)[:30]!r}")
        out[str(k)] = int(v)
    return out


def resources(src: str, where: str, value: Any) -> dict[str, int]:
    """A serialised ``Resources`` object."""
    return amounts(src, f"{where}._value", typed(src, where, value, "resource"))


def goal(src: str, where: str, value: Any) -> tuple[str, Any]:
    """(goal type, its payload) of a serialised goal."""
    inner = typed(src, where, value, "goal")
    if not isinstance(inner, dict) or not isinstance(inner.get("_type"), str):
        raise FormatError(src, f"{where}._value", "expected a typed goal")
    return inner["_type"], inner.get("_value")


def settings_of(src: str, doc: dict[str, Any]) -> dict[str, Any]:
    """The game's settings: the START entry of ``game_state``, else ``settings``, else the
    top-level game arguments."""
    states = doc.get("game_state")
    if isinstance(states, list) and states:
        first = states[0]
        if not isinstance(first, dict) or not isinstance(first.get("settings"), dict):
            raise FormatError(src, "game_state[0].settings", "missing: the first entry of a "
                              "log is the START state with the game's settings")
        return dict(first["settings"])
    if isinstance(doc.get("settings"), dict):
        return dict(doc["settings"])
    return dict(doc)


def player_names(src: str, doc: dict[str, Any]) -> tuple[str, str]:
    """The two players' names as accord parties (``Player RED`` -> ``RED``)."""
    players = doc.get("players")
    names = list(DEFAULT_PLAYERS)
    if isinstance(players, list) and len(players) == 2:
        for i, p in enumerate(players):
            name = p.get("agent_name") if isinstance(p, dict) else None
            if not isinstance(name, str) or not name.strip():
                raise FormatError(src, f"players[{i}].agent_name", "missing player name")
            names[i] = name
    elif players is not None:
        raise FormatError(src, "players", "expected the two players")
    short = [n.removeprefix("Player ").strip() or n for n in names]
    if short[0] == short[1]:
        raise FormatError(src, "players", f"both players are named {short[0]!r}")
    return short[0], short[1]


def _two(src: str, settings: dict[str, Any], *keys: str) -> tuple[str, list[Any]]:
    for key in keys:
        if key in settings:
            value = settings[key]
            if not isinstance(value, list) or len(value) != 2:
                raise FormatError(src, key, "expected one entry per player (two)")
            return key, value
    raise FormatError(src, keys[0], "missing")


def buy_sell(src: str, settings: dict[str, Any], names: tuple[str, str]) -> dict[str, Any]:
    """The price scenario of a buy-sell game (see the module docstring)."""
    gkey, goals = _two(src, settings, "player_goals")
    rkey, initial = _two(src, settings, "player_initial_resources",
                         "player_starting_resources")
    kinds = [goal(src, f"{gkey}[{i}]", g) for i, g in enumerate(goals)]
    roles = {k: i for i, (k, _) in enumerate(kinds)}
    if set(roles) != {"seller_goal", "buyer_goal"}:
        raise FormatError(src, gkey, f"a buy-sell game has one seller_goal and one "
                          f"buyer_goal, got {[k for k, _ in kinds]}")
    s, b = roles["seller_goal"], roles["buyer_goal"]
    stock = [resources(src, f"{rkey}[{i}]", r) for i, r in enumerate(initial)]
    goods = [k for k, v in stock[s].items() if k != MONEY and v > 0]
    if len(goods) != 1 or stock[s][goods[0]] != 1:
        raise FormatError(src, f"{rkey}[{s}]", f"the seller must hold exactly one object "
                          f"(accord imports the one-object game), got {stock[s]}")
    item = goods[0]
    vals = [amounts(src, f"{gkey}[{i}]._value._value._value",
                    typed(src, f"{gkey}[{i}]._value._value", kinds[i][1], "valuation"))
            for i in (s, b)]
    for i, v in zip((s, b), vals, strict=True):
        if item not in v:
            raise FormatError(src, f"{gkey}[{i}]._value._value._value",
                              f"no valuation of the object {item!r}")
    cost, wtp = vals[0][item], vals[1][item]
    budget = stock[b].get(MONEY, 0)
    if budget < 1:
        raise FormatError(src, f"{rkey}[{b}].{MONEY}", "the buyer holds no money")
    if budget > MAX_PRICES:
        raise FormatError(src, f"{rkey}[{b}].{MONEY}", f"{budget} ZUP: at most {MAX_PRICES} "
                          "price values are listed")
    prices = list(range(budget + 1))
    seller, buyer = names[s], names[b]
    desc = (f"NegotiationArena buy-sell game: {seller} sells one {item} that cost {cost} "
            f"{MONEY} to produce; {buyer} will pay at most {wtp} {MONEY} and holds {budget}. "
            f"Utilities are the game's surplus divided by {budget}, shifted so the BATNA is "
            "the value of keeping what one has.")
    return {"name": f"negotiationarena-buysell-{item}-{cost}-{wtp}", "description": desc,
            "issues": {"price": prices},
            "parties": {
                seller: {"batna": cost / budget, "utility": {
                    "type": "linear_additive", "weights": {"price": 1.0},
                    "values": {"price": {p: p / budget for p in prices}}}},
                buyer: {"batna": (budget - wtp) / budget, "utility": {
                    "type": "linear_additive", "weights": {"price": 1.0},
                    "values": {"price": {p: (budget - p) / budget for p in prices}}}}}}


def trading(src: str, settings: dict[str, Any], names: tuple[str, str]
            ) -> tuple[dict[str, Any], list[str]]:
    """The allocation scenario of a trading game and notes (see the module docstring)."""
    gkey, goals = _two(src, settings, "player_goals")
    rkey, initial = _two(src, settings, "player_initial_resources",
                         "player_starting_resources")
    stock = [resources(src, f"{rkey}[{i}]", r) for i, r in enumerate(initial)]
    items = sorted(set(stock[0]) | set(stock[1]))
    totals = {k: stock[0].get(k, 0) + stock[1].get(k, 0) for k in items}
    size = math.prod(t + 1 for t in totals.values())
    if size > 1_000_000:
        raise FormatError(src, rkey, f"{size:,} allocations; at most 1,000,000")
    issues = {k: list(range(totals[k] + 1)) for k in items}
    parties: dict[str, Any] = {}
    notes: list[str] = []
    for i, g in enumerate(goals):
        kind, payload = goal(src, f"{gkey}[{i}]", g)
        mine = {k: stock[i].get(k, 0) for k in items}
        if kind == "resource_goal":
            want = amounts(src, f"{gkey}[{i}]._value._value", payload)
            unknown = set(want) - set(items)
            if unknown:
                raise FormatError(src, f"{gkey}[{i}]._value._value", f"goal names resources "
                                  f"nobody holds: {sorted(unknown)}")

            def held(combo: tuple[int, ...], side: int = i) -> dict[str, int]:
                return {k: (v if side == 0 else totals[k] - v)
                        for k, v in zip(items, combo, strict=True)}

            table = {",".join(f"{k}={v}" for k, v in zip(items, combo, strict=True)): 1.0
                     for combo in product(*issues.values())
                     if all(held(combo)[k] >= n for k, n in want.items())}
            batna = 1.0 if all(mine[k] >= n for k, n in want.items()) else 0.0
            parties[names[i]] = {"batna": batna, "utility": {"type": "table", "default": 0.0,
                                                            "table": table}}
            notes.append(f"{names[i]}'s goal (hold at least {want}) scores 1 when reached "
                         "and 0 otherwise, as NegotiationArena scores it.")
        elif kind == "maximisation_goal":
            parties[names[i]] = {"batna": float(sum(mine.values())), "utility": {
                "type": "allocation", "counts": totals, "unit_values": dict.fromkeys(items, 1.0),
                "side": i}}
            notes.append(f"{names[i]}'s goal (as many resources as possible) is scored as "
                         "the number of units held, every resource alike.")
        else:
            raise FormatError(src, f"{gkey}[{i}]._value._type", f"goal {kind!r} is not "
                              "imported (resource_goal and maximisation_goal are)")
    desc = (f"NegotiationArena trading game: {names[0]} starts with {stock[0]}, {names[1]} "
            f"with {stock[1]}; an outcome is how many units of each resource {names[0]} "
            f"ends with ({names[1]} has the rest).")
    return {"name": "negotiationarena-trading-" + "-".join(
        f"{k}{totals[k]}" for k in items), "description": desc, "issues": issues,
        "parties": parties}, notes


def scenario_data(path: Path, doc: dict[str, Any]) -> Imported:
    """The accord scenario of the game a NegotiationArena document describes."""
    src = str(path)
    game = doc.get("class")
    if game not in GAMES:
        raise FormatError(src, "class", f"expected one of {list(GAMES)}, got "
                          f"{str(game)[:40]!r} (the ultimatum and simple games are not "
                          "imported)")
    settings = settings_of(src, doc)
    names = player_names(src, doc)
    if game == "BuySellGame":
        return Imported(buy_sell(src, settings, names), (
            "Prices are whole ZUP from 0 to the buyer's money; utilities are the game's "
            "surplus over the BATNA divided by that money.",))
    data, notes = trading(src, settings, names)
    return Imported(data, tuple(notes))


class NegotiationArenaImporter:
    """NegotiationArena buy-sell and trading games, from a ``game_state.json`` (a log, or
    a file of the same shape with the settings only) or the folder holding one."""

    name = "negotiationarena"
    description = "NegotiationArena buy-sell and trading games (game_state.json settings)"

    def read(self, path: str) -> Imported:
        p = log_file(os.fspath(path))
        return scenario_data(p, load_document(p))
