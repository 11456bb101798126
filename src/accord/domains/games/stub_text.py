"""How the ``games`` stub policy reads accord's games prompts: as text, like a model.

The system prompt gives the role (``You are Alice, a player in a game against Bob.``) and
the game as :mod:`accord.domains.games.describe` renders it - a payoff table for two
players, one line per profile for more, or an indented game tree - which
:func:`parse_game` turns back into a :class:`StubGame`. The conversation gives the turn
(:func:`parse_state`): the latest prompt that is not a retry says the phase (a
``WORKFLOW STEP``, a ``NEGOTIATION ROUND`` or ``Your turn to choose one action from``), the
nodes of a backward-induction level, the moves so far and the node, the strategy the
workflow derived and the section-6.5 prompt at its end; the talk so far is every quoted
message of the others (``<COUNTERPART_TEXT>``, in the order shown) and this player's own
``<MESSAGE>`` replies. Nothing here imports accord's game code.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from accord.llm.policy import PolicyError, PolicyRequest

Profile = tuple[str, ...]
Vector = tuple[Fraction, ...]


def _num(value: Any) -> Fraction:
    if isinstance(value, bool):
        raise PolicyError(f"games policy: payoff {value!r} is not a number")
    try:
        return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)
    except (TypeError, ValueError, ZeroDivisionError) as exc:
        raise PolicyError(f"games policy: payoff {value!r} is not a number") from exc


def _out(value: Fraction) -> int | float | str:
    if value.denominator == 1:
        return value.numerator
    as_float = float(value)
    if Fraction(repr(as_float)) == value:
        return as_float
    return f"{value.numerator}/{value.denominator}"


@dataclass(frozen=True)
class StubGame:
    """The ``<GAME>`` block: players and, for normal-form games, actions and payoffs by profile."""

    type: str
    players: tuple[str, ...]
    actions: tuple[tuple[str, ...], ...] = ()
    payoffs: Mapping[Profile, Vector] | None = None
    tree: Mapping[str, Any] | None = None

    def profiles(self) -> list[Profile]:
        """Every profile, first player's action varying slowest."""
        return list(itertools.product(*self.actions))

    def payoff(self, profile: Sequence[str]) -> Vector:
        """Payoffs of a normal-form profile."""
        assert self.payoffs is not None
        return self.payoffs[tuple(profile)]


def node_path(name: str) -> Profile:
    """``/a/b`` -> ``("a", "b")``; ``/`` -> ``()``."""
    return tuple(p for p in name.strip().strip("/").split("/") if p)



_ROLE = re.compile(r"^You are (\S+), a player in a game against", re.M)
_CELL = re.compile(r"\(([^()]*)\)")
_NEWS = re.compile(r"^- round (\d+), (\S+): <COUNTERPART_TEXT from=\"[^\"]*\">(.*?)"
                   r"</COUNTERPART_TEXT>", re.M | re.S)
_MESSAGE = re.compile(r"<MESSAGE>(.*?)</MESSAGE>", re.S | re.I)
_STEP = re.compile(r"^WORKFLOW STEP \d+ of \d+: (.*)$", re.M)
_TALK = re.compile(r"^NEGOTIATION ROUND (\d+) of (\d+)\.", re.M)
_ACT = re.compile(r"^Your turn to choose one action from: (.*)\. Reason step by step", re.M)
_AT = re.compile(r"^You are at node (\S+)\.$", re.M)
_NASH_SEEN = re.compile(r"^Equilibrium you found: \((.*)\); your part of it:", re.M)
_PLAN_SEEN = re.compile(r"^Your planned actions: (.*)\.$", re.M)
_RETRY = ("Your previous reply could not be used", "Your answer to workflow step")

#: the six prompts of seed 003, section 6.5, as a model reads them at the end of a prompt
SEED_PROMPTS = {
    1: "Please carefully analyze the negotiation messages, think about whether you can trust "
       "the other player's message, and make your own decision.",
    2: "Please carefully analyze the negotiation messages and make your own decision.",
    3: "Carefully analyze and think about whether you can trust the other player's message, "
       "and then make your own decision.",
    4: "You can choose your own choice regardless what the other player says.",
    5: "You should make your own choice regardless what the other player says.",
    6: "You must make your own choice regardless what the other player says."}


def _section(text: str, start: str, end: str) -> str | None:
    i = text.find(start)
    if i < 0:
        return None
    j = text.find(end, i + len(start))
    return text[i + len(start): j if j >= 0 else len(text)]


def _numbers(inner: str) -> Vector:
    return tuple(_num(x.strip()) for x in inner.split(","))


def _normal_from_text(board: str) -> StubGame:
    lines = [ln for ln in board.strip("\n").splitlines() if ln.strip()]
    if lines and lines[0].startswith("Profiles ("):
        players = tuple(x.strip() for x in lines[0][len("Profiles ("):].split(")")[0].split(","))
        acts: list[list[str]] = [[] for _ in players]
        pays: dict[Profile, Vector] = {}
        for ln in lines[1:]:
            m = re.fullmatch(r"\s*\(([^()]*)\): \(([^()]*)\)\s*", ln)
            if m is None:
                raise PolicyError(f"games policy: cannot read the profile line {ln!r}")
            prof = tuple(x.strip() for x in m.group(1).split(","))
            for i, a in enumerate(prof):
                if a not in acts[i]:
                    acts[i].append(a)
            pays[prof] = _numbers(m.group(2))
        return StubGame("normal", players, tuple(tuple(a) for a in acts), pays)
    if len(lines) < 3 or " \\ " not in lines[0]:
        raise PolicyError("games policy: the payoff table has no 'A \\ B | ...' header")
    head = [c.strip() for c in lines[0].split(" | ")]
    players = tuple(x.strip() for x in head[0].split(" \\ "))
    cols = tuple(head[1:])
    rows: list[str] = []
    pays = {}
    for ln in lines[2:]:
        if ln.startswith("Cells are"):
            break
        parts = [c.strip() for c in ln.split(" | ")]
        if len(parts) != len(cols) + 1:
            raise PolicyError(f"games policy: cannot read the table row {ln!r}")
        rows.append(parts[0])
        for col, cell in zip(cols, parts[1:], strict=True):
            m = _CELL.fullmatch(cell)
            if m is None:
                raise PolicyError(f"games policy: cannot read the cell {cell!r}")
            pays[(parts[0], col)] = _numbers(m.group(1))
    return StubGame("normal", players, (tuple(rows), cols), pays)


def _tree_from_text(board: str) -> StubGame:
    lines = [ln for ln in board.strip("\n").splitlines() if ln.strip()]
    players: list[str] = []
    pos = 0

    def node(depth: int) -> dict[str, Any]:
        nonlocal pos
        line = lines[pos]
        body = line[depth * 2:].split(" -> ", 1)[-1] if depth else line
        pos += 1
        if body.startswith("game ends, payoffs: "):
            pairs = [x.strip().rsplit(" ", 1) for x in body[len("game ends, payoffs: "):]
                     .split(",")]
            if not players:
                players.extend(p for p, _ in pairs)
            return {"payoff": [v for _, v in pairs]}
        m = re.fullmatch(r"(\S+) chooses:", body.strip())
        if m is None:
            raise PolicyError(f"games policy: cannot read the tree line {line!r}")
        out: dict[str, Any] = {"player": m.group(1), "actions": {}}
        indent = "  " * (depth + 1)
        while pos < len(lines) and lines[pos].startswith(indent) and \
                not lines[pos].startswith(indent + " "):
            action = lines[pos][len(indent):].split(" -> ", 1)[0]
            out["actions"][action] = node(depth + 1)
        return out

    tree = node(0)
    return StubGame("extensive", tuple(players), tree=tree)


def parse_game(system: str) -> StubGame:
    """Read the game from the system prompt's text: the payoff table or the game tree."""
    table = _section(system, "\nPayoff table:\n", "\nAll players choose at the same time")
    if table is not None:
        return _normal_from_text(table)
    at = system.find("\nGame tree (")
    tree = None if at < 0 else _section(system[at:], "):\n", "\nPlayers move one after another")
    if tree is not None:
        return _tree_from_text(tree)
    raise PolicyError("games policy: the system prompt shows no payoff table or game tree")


def _kind_of_step(header: str) -> str:
    if "best responses to your actions" in header:
        return "opponent_best_responses"
    if header.startswith("your best responses to"):
        return "own_best_responses"
    if header.startswith("a Nash equilibrium"):
        return "nash"
    if header.startswith("backward induction"):
        return "backward_induction"
    if header.startswith("your strategy"):
        return "plan"
    raise PolicyError(f"games policy: unknown workflow step {header!r}")


def _split_retry(text: str) -> tuple[str, str | None]:
    """``(turn prompt, retry feedback)`` of one user message: a retry comes alone or after
    the turn's prompt it repeats ("TURN\n\nRETRY")."""
    if text.startswith(_RETRY):
        return "", text
    cuts = [i for i in (text.find("\n\n" + lead) for lead in _RETRY) if i >= 0]
    if not cuts:
        return text, None
    return text[:min(cuts)], text[min(cuts) + 2:]


def parse_state(request: PolicyRequest) -> dict[str, Any]:
    """Read the turn from the conversation's text, as a model would.

    The phase comes from the latest prompt that is not a retry (a retry repeats the
    feedback only, sent after the turn's prompt in one message); the talk so far from
    every quoted message of the others and this player's own ``<MESSAGE>`` replies, in
    conversation order.
    """
    system = request.system()
    role = _ROLE.search(system)
    if role is None:
        raise PolicyError("games policy: the system prompt does not say 'You are NAME, a "
                          "player in a game against ...'")
    me = role.group(1)
    users = [str(m.get("content", "")) for m in request.messages if m.get("role") == "user"]
    if not users:
        raise PolicyError("games policy: no user message to answer")
    # a retry is sent with the turn's prompt ("TURN\n\nRETRY"), or alone
    split = [_split_retry(u) for u in users]
    turns = [turn for turn, _ in split if turn and not turn.startswith(_RETRY)]
    last_retry = split[-1][1]
    if not turns:
        raise PolicyError("games policy: only retry prompts, no turn to answer")
    turn = turns[-1]
    messages: list[dict[str, Any]] = []
    for m in request.messages:
        text = str(m.get("content", ""))
        if m.get("role") == "user":
            messages += [{"round": int(r), "speaker": who, "text": body}
                         for r, who, body in _NEWS.findall(text)]
        elif m.get("role") == "assistant":
            messages += [{"round": 0, "speaker": me, "text": body.strip()}
                         for body in _MESSAGE.findall(text)]
    retry = None
    if last_retry is not None:
        why = re.search(r"could not be used \(([^)]*)\)", last_retry)
        attempt = re.search(r"attempt (\d+) of \d+", last_retry)
        retry = {"reason": why.group(1) if why else "", "attempt": int(attempt.group(1))
                 if attempt else 0}
    moves = re.search(r"^Moves so far: (.*)\.$", turn, re.M)
    history = [] if moves is None else [x.strip().split(" chose ", 1)
                                        for x in moves.group(1).split(",")]
    state: dict[str, Any] = {"role": me, "messages": messages, "node": [], "actions": [],
                             "history": history, "step": None, "nodes": [],
                             "strategy": None, "prompt_variant": 0, "retry": retry}
    step = _STEP.search(turn)
    if step is not None:
        state["phase"] = "workflow"
        state["step"] = _kind_of_step(step.group(1))
        if state["step"] == "backward_induction":
            state["nodes"] = re.findall(r"^Node (\S+) \(", turn, re.M)
        elif state["step"] == "plan":
            own = re.search(r"your decision nodes \(([^)]*)\)", turn)
            names = [] if own is None else [x.strip() for x in own.group(1).split(",")]
            state["nodes"] = [n for n in names if n.startswith("/")]
        return state
    if _TALK.search(turn):
        state["phase"] = "negotiation"
    elif (act := _ACT.search(turn)) is not None:
        state["phase"] = "play"
        state["actions"] = [a.strip() for a in act.group(1).split(",")]
        at = _AT.search(turn)
        state["node"] = [] if at is None else list(node_path(at.group(1)))
        tail = turn.rstrip().splitlines()[-1].strip() if turn.strip() else ""
        state["prompt_variant"] = next((k for k, v in SEED_PROMPTS.items() if v == tail), 0)
    else:
        raise PolicyError("games policy: the last prompt is no workflow step, negotiation "
                          "round or action turn")
    if "YOUR STRATEGY (derived with the workflow)" in turn:
        nash = _NASH_SEEN.search(turn)
        plan = _PLAN_SEEN.search(turn)
        if plan is not None:
            state["strategy"] = {"kind": "sequential", "plan": dict(
                tuple(x.strip()[3:].split(" ", 1)) for x in plan.group(1).split(";")
                if x.strip().startswith("at "))}
        else:
            state["strategy"] = {"kind": "simultaneous", "nash": None if nash is None else dict(
                tuple(x.strip().split(": ", 1)) for x in nash.group(1).split(","))}
    return state


__all__ = ["SEED_PROMPTS", "Profile", "StubGame", "Vector", "node_path", "parse_game",
           "parse_state"]
