"""Task exchange and deliberation at the terminal: what a person sees and types.

Used by :class:`accord.play.terminal.TerminalSeat`. Text typed by the person is data:
it becomes a message's text or names a composite task, a dish, a task or an agent, and
is never run or parsed beyond that. The protocol validates the proposals and its feedback
is shown (the seat prints it and asks again).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from rich.console import Console

from accord.agents.human.brief import num
from accord.agents.human.seat import Reply, Turn
from accord.cli.common import plain

HELP = {
    "task-exchange": [
        ("offer", "build a proposal: the composite you keep, then your partner's"),
        ("offer MINE [THEIRS]", "propose by mask, e.g. offer 011110 (partner: the rest)"),
        ("accept", "accept the proposal on the table"),
        ("reject [MINE [THEIRS]]", "reject it with a counter-proposal (by mask)"),
        ("tasks", "list every composite task with your utility"),
        ("brief", "show your brief again"),
    ],
    "deliberation": [
        ("message TEXT", "say something to the team"),
        ("offer", "build a proposal (dishes to serve, or an agent for every task)"),
        ("offer A, B, ...", "menu: propose these dishes (names or numbers)"),
        ("offer TASK=AGENT; ...", "allocation: propose these assignments"),
        ("accept [TEXT]", "accept the proposal on the table"),
        ("decide [TEXT]", "leader only: decide the proposal on the table (or build one)"),
        ("brief", "show your brief again"),
    ],
}


class SeatIO(Protocol):
    """What these helpers need from the terminal seat."""

    console: Console

    def read(self, prompt: str) -> str: ...

    def new(self, turn: Turn, key: str, items: list[Any]) -> list[Any]: ...

    def confirm(self, turn: Turn, pkg: Mapping[str, Any], what: str) -> bool: ...


# -- task exchange -------------------------------------------------------------------------

def _split(s: Mapping[str, Any] | None, partner: str) -> str:
    if not s:
        return "-"
    you, them = s.get("yours") or {}, s.get("theirs") or {}
    utility = s.get("utility")
    return (f"you {plain(you.get('mask') or you.get('description'))}, {plain(partner)} "
            f"{plain(them.get('mask') or them.get('description'))}"
            + ("" if utility is None else f" - your utility [bold]{num(utility)}[/]"))


def show_task_exchange(io: SeatIO, turn: Turn, v: Mapping[str, Any]) -> None:
    """The turn, the new history entries, the proposal on the table, what to do now."""
    c = io.console
    c.rule(f"turn {v['turn']}/{v['turn_limit']} - you are {plain(turn.role)}")
    for h in io.new(turn, "history", list(v["history"])):
        what = _split(h.get("split"), v["partner"]) if h.get("split") else plain(h["text"])
        c.print(f"  t{h['turn']} [bold]{plain(h['speaker'])}[/] {plain(h['kind'])}: {what}")
    if v["phase"] == "consider":
        c.print("Turn 1 is private consideration: read your brief, then press Enter "
                "(nothing is sent).")
    elif v["phase"] == "respond" and v.get("table"):
        c.print(f"On the table: {_split(v['table'], v['partner'])} (your original task: "
                f"{num(v['batna'])})"
                + (" - the FINAL proposal: accept or reject" if v.get("final_response")
                   else ""))
    else:
        c.print("Your turn to propose" + (" (the last proposal)" if v.get("last_proposal")
                                          else "") + ".")


def _complement(mask: str) -> str:
    return "".join("1" if b == "0" else "0" for b in mask)


def _tasks(io: SeatIO, v: Mapping[str, Any]) -> None:
    for comp in sorted(v["composites"], key=lambda x: -x["utility"]):
        io.console.print(f"  {comp['mask']}  {num(comp['utility']):>5}  "
                         f"{plain(comp['description'])}")


def _build_split(io: SeatIO, v: Mapping[str, Any]) -> dict[str, str]:
    masks = [x["mask"] for x in v["composites"]]
    mine = ""
    while mine not in masks:
        mine = io.read(f"  the composite you keep (mask, e.g. {plain(v['original']['yours'])};"
                       " tasks lists them)> ").strip()
        if mine == "tasks":
            _tasks(io, v)
    theirs = io.read(f"  {plain(v['partner'])}'s composite (Enter: the rest, "
                     f"{_complement(mine)})> ").strip() or _complement(mine)
    return {"mine": mine, "theirs": theirs}


def parse_task_exchange(io: SeatIO, turn: Turn, line: str) -> Reply | None:
    """The reply a command line means (``None``: nothing to send yet)."""
    v = turn.view
    if v["phase"] == "consider":
        return {"kind": "continue"}
    cmd, *args = line.split()
    cmd = cmd.lower()
    if cmd == "tasks":
        _tasks(io, v)
        return None
    if cmd == "accept":
        return {"kind": "accept"}
    if cmd in ("offer", "reject", "counter"):
        pkg: dict[str, str] | None = None
        if args:
            pkg = {"mine": args[0], "theirs": args[1] if len(args) > 1 else
                   _complement(args[0])}
        elif cmd != "reject" or not v.get("final_response"):
            pkg = _build_split(io, v)
        if pkg is not None and not io.confirm(turn, pkg, "proposal"):
            return None
        if cmd == "offer" and v["phase"] != "respond":
            return {"kind": "offer", "package": pkg}
        return {"kind": "reject", "counter": pkg}
    io.console.print(f"unknown command {plain(cmd)!r}; type help")
    return None


# -- deliberation --------------------------------------------------------------------------

def _proposal(p: Any) -> str:
    if isinstance(p, Mapping):
        return plain("; ".join(f"{k}={a}" for k, a in p.items()))
    if isinstance(p, list | tuple):
        return plain(", ".join(map(str, p)) or "(no dishes)")
    return plain(p)


def show_deliberation(io: SeatIO, turn: Turn, v: Mapping[str, Any]) -> None:
    """The round, the new utterances, the proposal on the table, what to do now."""
    c = io.console
    c.rule(f"round {v['round']}/{v['max_rounds']} - you are {plain(turn.role)}")
    for u in io.new(turn, "dialog", list(v["dialog"])):
        said = f" says: {plain(u['text'])}" if u.get("text") else ""
        prop = f" {plain(u['kind'])}s {_proposal(u['proposal'])}" \
            if u.get("proposal") is not None else (f" {plain(u['kind'])}s"
                                                   if u["kind"] != "message" else "")
        c.print(f"  r{u['round']} [bold]{plain(u['speaker'])}[/]{prop}{said}")
    cur = v.get("current")
    if cur:
        c.print(f"On the table from {plain(cur['by'])}: {_proposal(cur['proposal'])} "
                f"(accepted by {plain(', '.join(v['accepted_by']))})")
    c.print(f"You may: {', '.join(turn.legal)}.")


def _pick_dishes(io: SeatIO, dishes: Sequence[str], text: str) -> dict[str, int]:
    names = {d.lower(): d for d in dishes}
    out: dict[str, int] = {}
    for part in text.replace(";", ",").split(","):
        part = " ".join(part.split())
        if part.isdigit() and 1 <= int(part) <= len(dishes):
            out[dishes[int(part) - 1]] = 1
        elif part:
            out[names.get(part.lower(), part)] = 1  # an unknown dish: the protocol says so
    return out


def _pick_tasks(text: str, agents: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in text.split(";"):
        task, eq, agent = part.partition("=")
        if eq and task.strip():
            out[" ".join(task.split())] = agent.strip()
    return out


def _build_deliberation(io: SeatIO, v: Mapping[str, Any]) -> dict[str, Any]:
    if v["setting"] != "task-allocation":
        for i, d in enumerate(v["dishes"], 1):
            io.console.print(f"  {i:>2}. {plain(d)}")
        got = io.read("  dishes to serve (numbers or names, comma-separated)> ")
        return _pick_dishes(io, v["dishes"], got.replace(" ", ",") if got.replace(
            " ", "").replace(",", "").isdigit() else got)
    agents = list(v["agents"])
    out: dict[str, str] = {}
    for task in v["tasks"]:
        while True:
            got = io.read(f"  {plain(task)} -> agent {plain('[' + ' | '.join(agents) + ']')}> "
                          ).strip()
            if got in agents:
                out[task] = got
                break
            if got.isdigit() and 0 <= int(got) < len(agents):
                out[task] = agents[int(got)]
                break
            io.console.print(f"  choose one of {plain(', '.join(agents))}")
    return out


def parse_deliberation(io: SeatIO, turn: Turn, line: str) -> Reply | None:
    """The reply a command line means (``None``: nothing to send yet)."""
    v = turn.view
    cmd, _, rest = line.strip().partition(" ")
    cmd, rest = cmd.lower(), rest.strip()
    if cmd in ("message", "say"):
        return {"kind": "message", "text": rest}
    if cmd == "accept":
        return {"kind": "accept", "message": rest or None}
    if cmd in ("offer", "decide"):
        pkg: dict[str, Any] | None = None
        if cmd == "offer" and rest:
            pkg = (_pick_tasks(rest, v["agents"]) if v["setting"] == "task-allocation"
                   else _pick_dishes(io, v["dishes"], rest))
        elif cmd == "offer" or not v.get("current"):
            pkg = _build_deliberation(io, v)
        if pkg is not None:
            shown = pkg if v["setting"] == "task-allocation" else list(pkg)
            io.console.print(f"  your proposal: {_proposal(shown)}")
        if cmd == "decide":
            return {"kind": "decide", "package": pkg, "message": rest or None}
        return {"kind": "offer", "package": pkg}
    io.console.print(f"unknown command {plain(cmd)!r}; type help")
    return None


SHOW: dict[str, Callable[[SeatIO, Turn, Mapping[str, Any]], None]] = {
    "task-exchange": show_task_exchange, "deliberation": show_deliberation}
PARSE: dict[str, Callable[[SeatIO, Turn, str], Reply | None]] = {
    "task-exchange": parse_task_exchange, "deliberation": parse_deliberation}

__all__ = ["HELP", "PARSE", "SHOW", "SeatIO"]
