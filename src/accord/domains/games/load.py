"""Reading and writing games in the JSON / YAML file format of issue 5.

Normal form (``payoffs`` indexed by each player's action index in order; the innermost
list holds one payoff per player)::

    {"type": "normal", "players": ["Alice", "Bob"],
     "actions": [["cooperate", "defect"], ["cooperate", "defect"]],
     "payoffs": [[[3, 3], [0, 5]], [[5, 0], [1, 1]]]}

Extensive form (a decision node names its ``player`` and maps action names to children; a
leaf holds ``payoff``, one number per player)::

    {"type": "extensive", "players": ["Alice", "Bob"],
     "tree": {"player": "Alice", "actions": {
        "choice_1": {"payoff": [0, 0]},
        "choice_2": {"player": "Bob", "actions": {"choice_1": {"payoff": [1, -2]},
                                                   "choice_2": {"payoff": [-1, -1]}}}}}}

Optional keys: ``name``, ``description``, ``notes`` (text) and ``parameters`` (a mapping
``name: default`` or ``name: {default: ..., description: ...}``). A payoff is a number
(``3``, ``-1.5``), an exact fraction string (``"7/2"``) or a linear term in one parameter:
``"jackpot"``, ``"jackpot/2"``, ``"-2*jackpot"``, ``"3/4*jackpot"``. Every error names the
file, the key path and, for YAML, the line.

Files are read by :mod:`accord.core.safeload` (size, depth, alias, number and UTF-8
budgets). Payoffs and parameters are exact, so they are bounded as written: at most
10^15 in magnitude with a denominator of at most 10^15 (``"1e400"`` or ``"1e-400"`` is
refused before any big-number arithmetic).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from accord.core.names import did_you_mean
from accord.core.safeload import MAX_NUMBER, LoadError, clip, load_data, short
from accord.domains.games.model import ExtensiveGame, Game, GameInfo, NormalFormGame
from accord.solvers.game_tree import Decision, Leaf, Node
from accord.solvers.payoff_arrays import exact_array, to_fraction

_KEYS = {
    "normal": {"type", "players", "actions", "payoffs"},
    "extensive": {"type", "players", "tree"},
}
_OPTIONAL = {"name", "description", "notes", "parameters"}
_TERM = re.compile(r"^\s*(?P<sign>[-+]?)\s*(?:(?P<coef>\d+(?:\.\d+)?(?:/\d+)?)\s*\*\s*)?"
                   r"(?P<name>[A-Za-z_]\w*)\s*(?:/\s*(?P<den>\d+(?:\.\d+)?))?\s*$")

KeyPath = tuple[str | int, ...]


#: largest magnitude and largest denominator of an exact payoff or parameter
_MAX_EXACT = int(MAX_NUMBER)
#: a decimal exponent beyond this is refused before ``Fraction`` computes 10**exponent
_MAX_EXPONENT = 30
_EXPONENT = re.compile(r"[eE]\s*[-+]?\s*(\d+)")


class GameFileError(ValueError):
    """A game file (or mapping) that does not follow the format; the message says where."""

    def __init__(self, message: str) -> None:
        super().__init__(clip(message, 1000))


def exact_number(value: Any) -> Fraction:
    """An exact, bounded number: ``to_fraction`` with the magnitude and size rules above.

    Raises ValueError / TypeError with a short message (no input longer than ~200
    characters is echoed).
    """
    if isinstance(value, str):
        text = value.strip()
        if len(text) > 64:
            raise ValueError(f"{short(value)} is too long to be a number")
        m = _EXPONENT.search(text)
        if m and int(m.group(1)) > _MAX_EXPONENT:
            raise ValueError(f"{short(value)} is out of range (at most 1e15 in magnitude, "
                             "denominators at most 1e15)")
    exact = to_fraction(value)
    if abs(exact) > _MAX_EXACT or exact.denominator > _MAX_EXACT:
        raise ValueError(f"{short(value)} is out of range (at most 1e15 in magnitude, "
                         "denominators at most 1e15)")
    return exact


def _fmt(path: KeyPath) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "<top level>"


class _Ctx:
    def __init__(self, source: str, lines: Mapping[KeyPath, int] | None) -> None:
        self.source = source
        self.lines = lines or {}

    def fail(self, path: KeyPath, problem: str) -> GameFileError:
        line = None
        for cut in range(len(path), -1, -1):
            if path[:cut] in self.lines:
                line = self.lines[path[:cut]]
                break
        where = f"{self.source}" + (f", line {line}" if line else "")
        return GameFileError(f"{where}: key '{_fmt(path)}': {problem}")


def _parameters(raw: Any, ctx: _Ctx, given: Mapping[str, Any]) -> dict[str, Fraction]:
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise ctx.fail(("parameters",), "must be a mapping of parameter names to defaults")
    values: dict[str, Fraction] = {}
    for name, spec in raw.items():
        default = spec.get("default") if isinstance(spec, Mapping) else spec
        if isinstance(spec, Mapping) and "default" not in spec:
            raise ctx.fail(("parameters", name), "needs a 'default' value")
        if isinstance(spec, Mapping):
            extra = sorted(str(k) for k in spec if k not in ("default", "description"))
            if extra:
                raise ctx.fail(("parameters", name, extra[0]), "unknown key; a parameter has "
                               "'default' and optional 'description'")
        try:
            values[str(name)] = exact_number(default)
        except (TypeError, ValueError) as exc:
            raise ctx.fail(("parameters", name), str(exc)) from None
    for name, value in given.items():
        if name not in values:
            known = ", ".join(sorted(values)) or "none"
            raise GameFileError(f"{ctx.source}: the game has no parameter {short(name)} "
                                f"(parameters: {known})")
        try:
            values[name] = exact_number(value)
        except (TypeError, ValueError) as exc:
            raise GameFileError(f"{ctx.source}: parameter {short(name)}: {exc}") from None
    return values


def _number(raw: Any, path: KeyPath, ctx: _Ctx, params: Mapping[str, Fraction]) -> Fraction:
    try:
        return exact_number(raw)
    except (TypeError, ValueError) as exc:
        if not isinstance(raw, str) or len(raw) > 64 or "out of range" in str(exc):
            raise ctx.fail(path, str(exc)) from None
    m = _TERM.match(raw)
    if not m or m["name"] not in params:
        known = clip(", ".join(sorted(params)) or "none")
        raise ctx.fail(path, f"{short(raw)} is neither a number nor a term in a parameter "
                             f"(parameters: {known})")
    try:
        value = params[m["name"]] * (exact_number(m["coef"]) if m["coef"] else 1)
        if m["den"]:
            den = exact_number(m["den"])
            if den == 0:
                raise ctx.fail(path, f"{short(raw)} divides by zero")
            value = exact_number(value / den)
        value = exact_number(value)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, GameFileError):
            raise
        raise ctx.fail(path, str(exc)) from None
    return -value if m["sign"] == "-" else value


def _names(raw: Any, path: KeyPath, ctx: _Ctx, what: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or not raw:
        raise ctx.fail(path, f"must be a non-empty list of {what} names")
    for i, name in enumerate(raw):
        if not isinstance(name, str) or not name.strip():
            raise ctx.fail((*path, i), f"{what} name must be a non-empty string, "
                                       f"got {short(name)}")
    dupes = sorted(n for n, k in Counter(raw).items() if k > 1)
    if dupes:
        raise ctx.fail(path, f"duplicate {what} names {short(dupes)}")
    return tuple(raw)


def _payoff_vector(raw: Any, path: KeyPath, ctx: _Ctx, n: int,
                   params: Mapping[str, Fraction]) -> list[Fraction]:
    if not isinstance(raw, list) or len(raw) != n:
        got = f"{len(raw)} values" if isinstance(raw, list) else short(raw)
        raise ctx.fail(path, f"expected a list of {n} payoffs (one per player), got {got}")
    return [_number(v, (*path, i), ctx, params) for i, v in enumerate(raw)]


def _normal(data: Mapping[str, Any], ctx: _Ctx, players: tuple[str, ...], info: GameInfo
            ) -> NormalFormGame:
    n = len(players)
    raw_actions = data["actions"]
    if not isinstance(raw_actions, list) or len(raw_actions) != n:
        raise ctx.fail(("actions",), f"must be a list with one action list per player ({n})")
    actions = tuple(_names(a, ("actions", i), ctx, "action") for i, a in enumerate(raw_actions))

    def level(raw: Any, path: KeyPath, depth: int) -> list[Any]:
        if depth == n:
            return _payoff_vector(raw, path, ctx, n, info.parameters)
        k = len(actions[depth])
        if not isinstance(raw, list) or len(raw) != k:
            got = f"{len(raw)} entries" if isinstance(raw, list) else short(raw)
            raise ctx.fail(path, f"expected {k} entries, one per action of {players[depth]} "
                                 f"({clip(', '.join(actions[depth]))}), got {got}")
        return [level(item, (*path, i), depth + 1) for i, item in enumerate(raw)]

    payoffs = exact_array(level(data["payoffs"], ("payoffs",), 0))
    return NormalFormGame(players, actions, payoffs, info)


def _tree(raw: Any, path: KeyPath, ctx: _Ctx, players: tuple[str, ...],
          params: Mapping[str, Fraction]) -> Node:
    if not isinstance(raw, Mapping):
        raise ctx.fail(path, "a node must be a mapping with 'payoff' or 'player' and 'actions'")
    if "payoff" in raw:
        extra = set(raw) - {"payoff"}
        if extra:
            raise ctx.fail(path, f"a leaf holds only 'payoff'; unexpected "
                                 f"{short(sorted(map(str, extra)))}")
        vec = _payoff_vector(raw["payoff"], (*path, "payoff"), ctx, len(players), params)
        return Leaf(tuple(vec))
    missing = {"player", "actions"} - set(raw)
    if missing:
        raise ctx.fail(path, f"a decision node needs 'player' and 'actions' (missing "
                             f"{sorted(missing)}); a leaf needs 'payoff'")
    extra = set(raw) - {"player", "actions"}
    if extra:
        raise ctx.fail(path, f"unexpected keys {short(sorted(map(str, extra)))} in a "
                             "decision node")
    if raw["player"] not in players:
        raise ctx.fail((*path, "player"), f"{short(raw['player'])} is not one of the "
                                          f"players {short(list(players))}")
    acts = raw["actions"]
    if not isinstance(acts, Mapping) or not acts:
        raise ctx.fail((*path, "actions"), "must be a non-empty mapping of action names to nodes")
    names = tuple(str(a) for a in acts)
    children = tuple(_tree(child, (*path, "actions", str(a)), ctx, players, params)
                     for a, child in acts.items())
    return Decision(players.index(raw["player"]), names, children)


def parse_game(data: Any, *, source: str = "<game>", params: Mapping[str, Any] | None = None,
               lines: Mapping[KeyPath, int] | None = None) -> Game:
    """Build a game from a parsed JSON / YAML mapping; ``params`` override parameter defaults."""
    ctx = _Ctx(source, lines)
    if not isinstance(data, Mapping):
        raise ctx.fail((), f"a game must be a mapping, got {type(data).__name__}")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in _KEYS:
        raise ctx.fail(("type",), f"must be 'normal' or 'extensive', got {short(kind)}")
    missing = _KEYS[kind] - set(data)
    if missing:
        raise ctx.fail((), f"missing required keys {sorted(missing)} for a {kind} game")
    extra = sorted(str(k) for k in set(data) - _KEYS[kind] - _OPTIONAL)
    if extra:
        hint = did_you_mean(extra[0], _KEYS[kind] | _OPTIONAL)
        raise ctx.fail((extra[0],), f"unknown key{hint}; a {kind} game has "
                       f"{sorted(_KEYS[kind])} and optional {sorted(_OPTIONAL)}")
    for key in ("name", "description", "notes"):
        if key in data and not isinstance(data[key], str):
            raise ctx.fail((key,), "must be a string")
    players = _names(data["players"], ("players",), ctx, "player")
    info = GameInfo(str(data.get("name", "")), str(data.get("description", "")).strip(),
                    str(data.get("notes", "")).strip(),
                    _parameters(data.get("parameters"), ctx, params or {}))
    try:
        if kind == "normal":
            return _normal(data, ctx, players, info)
        return ExtensiveGame(players, _tree(data["tree"], ("tree",), ctx, players,
                                            info.parameters), info)
    except GameFileError:
        raise
    except ValueError as exc:  # model invariants (e.g. duplicate action names in a tree)
        raise ctx.fail((), str(exc)) from None


def load_game(path: str | Path, params: Mapping[str, Any] | None = None) -> Game:
    """Read a game from a ``.json``, ``.yaml`` or ``.yml`` file (via core.safeload)."""
    p = Path(path)
    if p.suffix.lower() not in (".json", ".yaml", ".yml"):
        raise GameFileError(f"{p}: unknown game file type {short(p.suffix)}; use .json, "
                            ".yaml, .yml")
    try:
        doc = load_data(p)
    except LoadError as exc:
        at = f", line {exc.line}" if exc.line else ""
        key = f": key '{exc.key_text()}'" if exc.key else ""
        raise GameFileError(f"{exc.source}{at}{key}: {exc.problem}") from None
    return parse_game(doc.data, source=str(p), params=params, lines=doc.lines or None)


def number_out(value: Fraction | int) -> int | float | str:
    """A JSON-ready exact number: int, a float that reads back exactly, or ``"p/q"``."""
    f = to_fraction(value)
    if f.denominator == 1:
        return f.numerator
    as_float = float(f)
    if Fraction(repr(as_float)) == f:
        return as_float
    return f"{f.numerator}/{f.denominator}"


def _dump_tree(node: Node, players: tuple[str, ...]) -> dict[str, Any]:
    if isinstance(node, Leaf):
        return {"payoff": [number_out(v) for v in node.payoff]}
    return {"player": players[node.player],
            "actions": {a: _dump_tree(c, players)
                        for a, c in zip(node.actions, node.children, strict=True)}}


def dump_game(game: Game) -> dict[str, Any]:
    """The game as a mapping in the file format (parameters already substituted)."""
    out: dict[str, Any] = {"type": game.type}
    for key in ("name", "description", "notes"):
        if getattr(game.info, key):
            out[key] = getattr(game.info, key)
    out["players"] = list(game.players)
    if isinstance(game, NormalFormGame):
        out["actions"] = [list(a) for a in game.actions]
        flat = np.vectorize(number_out, otypes=[object])(game.payoffs)
        out["payoffs"] = flat.tolist()
    else:
        out["tree"] = _dump_tree(game.tree, game.players)
    return out


def save_game(game: Game, path: str | Path) -> None:
    """Write a game as JSON (``.json``) or YAML (``.yaml`` / ``.yml``)."""
    p = Path(path)
    data = dump_game(game)
    if p.suffix.lower() == ".json":
        p.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    elif p.suffix.lower() in (".yaml", ".yml"):
        p.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    else:
        raise GameFileError(f"{p}: unknown game file type {p.suffix!r}; use .json, .yaml, .yml")
