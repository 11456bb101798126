"""The terminal seat: a rich prompt for ``accord run ... --agents human,...``.

Shows the person's private view (what :class:`~accord.agents.human.Turn` holds, nothing
more), the new offers and messages since their last turn, and the protocol's feedback on an
invalid attempt; reads one command line per move. Every piece of text that did not come
from accord itself (messages of the other side, issue names, scenario values) goes through
:func:`accord.cli.common.plain`, so it can never become rich markup or a terminal control
sequence. End of input (Ctrl-D) or an interrupt (Ctrl-C) closes the seat: the episode ends
recorded as ended by the person, without a traceback -- whenever the key is pressed: see
:func:`wait_for_line` for the race a plain ``input()`` has.
"""

from __future__ import annotations

import os
import select
import shlex
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import IO, Any

from rich.console import Console

from accord.agents.human.seat import Reply, Seat, SeatClosed, Turn
from accord.cli.common import plain
from accord.play import terminal_domains
from accord.play.seats import handover_text, seat_name
from accord.play.terminal_brief import print_brief, print_debrief

HELP = {
    "bargaining": [
        ("offer", "build an offer issue by issue (the utility of the package is shown)"),
        ("offer ISSUE=VALUE ...", "make an offer in one line"),
        ("accept [TEXT]", "accept the offer on the table"),
        ("reject [ISSUE=VALUE ...]", "reject it, optionally with a counter-offer"),
        ("counter", "reject and build a counter-offer issue by issue"),
        ("message TEXT", "say something (binds nothing)"),
        ("walk [REASON]", "leave and take your BATNA"),
    ],
    "deal-or-no-deal": [
        ("offer", "propose the items YOU take, item by item (your partner gets the rest)"),
        ("offer book=N hat=N ball=N", "propose what you take in one line"),
        ("accept", "take your partner's proposal"),
        ("reject [book=N hat=N ball=N]", "refuse it, optionally proposing what you take"),
        ("message TEXT", "say something"),
        ("walk", "leave without a deal"),
    ],
    "games": [
        ("message TEXT", "cheap talk (binds nothing)"),
        ("ACTION or its number", "play an action"),
    ],
    **terminal_domains.HELP,
}

Reader = Callable[[str], str]


def wait_for_line(stream: IO[str] | None = None) -> None:
    """Block until a line (or end of input) can be read from the terminal ``stream`` (default
    ``sys.stdin``) without waiting, or until a signal arrives -- whose Python handler then runs
    here (Ctrl-C under :func:`signal.default_int_handler` raises :class:`KeyboardInterrupt`).

    Why: Python runs a signal's handler only between bytecodes, and a blocking ``read()`` is
    woken only by a signal delivered to the main thread while it sits in that call. A Ctrl-C
    that arrives after the last check but before ``input()`` blocks (microseconds, wider when
    the process is preempted there under load) or that the kernel hands to another thread
    (numpy's BLAS threads do not block signals) is recorded, then left unseen until the
    person types a line: the program hangs at its prompt. ``select`` on the terminal
    together with a wakeup pipe -- written by the C-level handler at once, from any thread
    -- cannot miss it.

    Only for a terminal on the main thread of a POSIX system; anything else returns at once
    (a pipe's lines may already sit in Python's buffer, where ``select`` cannot see them).
    """
    stream = sys.stdin if stream is None else stream
    if os.name != "posix" or threading.current_thread() is not threading.main_thread():
        return
    try:
        fd = stream.fileno()
        if not os.isatty(fd):
            return
    except (AttributeError, OSError, ValueError):
        return
    wake_r, wake_w = os.pipe()
    try:
        for end in (wake_r, wake_w):
            os.set_blocking(end, False)
        old = signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
        try:
            while True:
                # on EINTR select runs the handlers and retries (PEP 475); a signal caught
                # before select started left a byte in the pipe, so select returns at once
                ready = select.select([fd, wake_r], [], [])[0]
                if fd in ready:
                    return
                _pass_on(wake_r, old)  # a signal whose handler did not raise: keep waiting
        finally:
            signal.set_wakeup_fd(old)
    finally:
        os.close(wake_r)
        os.close(wake_w)


def _pass_on(wake_r: int, old: int) -> None:
    """Drain the wakeup pipe, handing the signal numbers to the wakeup fd that was set
    before (asyncio's, when it handles signals itself), so its handlers still run."""
    try:
        data = os.read(wake_r, 512)
    except BlockingIOError:
        return
    if old >= 0 and data:
        with suppress(OSError):
            os.write(old, data)


def console_reader(console: Console) -> Reader:
    """The default reader: ``console``'s prompt, then one line of standard input, read only
    once :func:`wait_for_line` says it is there (so Ctrl-C at the prompt is never lost)."""
    def read(prompt: str) -> str:
        console.print(prompt, end="")
        wait_for_line()
        return console.input()
    return read


INTERRUPTED = "the person ended the episode (interrupted)"


@contextmanager
def _interrupt_closes_seat() -> Iterator[None]:
    """Ctrl-C inside the block closes the seat (:class:`SeatClosed`), on the main thread.

    ``asyncio.run``'s own SIGINT handler only cancels the main task, which a blocking read
    never notices, so the block runs under :func:`signal.default_int_handler`. Restoring the
    old handler afterwards first runs a Ctrl-C still pending (``signal.signal`` checks
    signals before it swaps handlers): one pressed just after the line was read. That
    interrupt is the person's too, so it closes the seat -- and the old handler is restored
    all the same.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    interrupted = False
    try:
        yield
    except KeyboardInterrupt:
        interrupted = True
    finally:
        while True:
            try:
                signal.signal(signal.SIGINT, old)
                break
            except KeyboardInterrupt:
                interrupted = True
        if interrupted:
            raise SeatClosed(INTERRUPTED) from None


def _pairs(tokens: list[str]) -> dict[str, str] | None:
    out: dict[str, str] = {}
    for tok in tokens:
        key, eq, val = tok.partition("=")
        if not eq:
            return None
        out[key.strip()] = val.strip()
    return out


def _fmt(pkg: Mapping[str, Any] | None) -> str:
    if not pkg:
        return "-"
    return plain(", ".join(f"{k}={v}" for k, v in pkg.items()))


def clear_screen(console: Console) -> None:
    """Clear ``console``'s terminal, scrollback included, so the next person cannot read
    what the previous one saw: the erase sequences on a terminal that understands them,
    a screenful of blank lines on a dumb one (``TERM=dumb``), nothing when the output is
    not a terminal (a pipe or a file keeps everything: nobody reads it mid-game)."""
    if not console.is_terminal:
        return
    if console.is_dumb_terminal:
        console.file.write("\n" * max(console.height, 24) * 2)
    else:
        console.file.write("\x1b[H\x1b[2J\x1b[3J")
    console.file.flush()


class TerminalSeat(Seat):
    """A person at this terminal -- or several, taking turns (hot-seat play).

    ``people`` is how many persons share the terminal (the ``human`` agents of the
    line-up) and ``seats`` their seat numbers by role (:func:`accord.play.seats.
    person_seats`). With two or more, every change of role clears the screen and hands
    the keyboard over by name (``Seat 2, seller: your turn; pass the keyboard``), then
    shows that seat's own brief again: the previous person's private view is never on
    screen with it. A role without a number is numbered in the order it first moves.
    """

    def __init__(self, console: Console, reader: Reader | None = None,
                 seats: Mapping[str, int] | None = None, people: int = 1) -> None:
        self.console = console
        self.reader = reader or console_reader(console)
        self._seen: dict[tuple[str, str], int] = {}
        #: the roles this seat played, in the order they were first asked to move
        self.roles: list[str] = []
        self.seats: dict[str, int] = dict(seats or {})
        #: several people share this terminal: hand the keyboard over between roles
        self.hot = people >= 2 or len(self.seats) >= 2
        self._at: str | None = None  # the role whose person has the keyboard

    def seat_of(self, role: str) -> str:
        """``Seat 2, seller`` in hot-seat play; the role alone otherwise."""
        if not self.hot:
            return role
        if role not in self.seats:
            taken = set(self.seats.values())
            self.seats[role] = next(n for n in range(1, len(taken) + 2) if n not in taken)
        return seat_name(role, self.seats[role])

    def handover(self, role: str) -> None:
        """Clear the screen and wait until ``role``'s person has the keyboard (Enter)."""
        clear_screen(self.console)
        name = self.seat_of(role)
        self.console.rule(plain(name))
        self.console.print(plain(handover_text(role, self.seats.get(role))))
        self._read(f"[bold]{plain(name)}[/]: press Enter when you are at the keyboard> ")
        self._at = role
        # the screen was cleared: this seat's brief and texts are shown again
        for key in ("brief", "briefing", "game"):
            self._seen.pop((role, key), None)

    # -- what the domain helpers use (:class:`accord.play.terminal_domains.SeatIO`) -------
    def read(self, prompt: str) -> str:
        """One line from the person (``SeatClosed`` when they leave)."""
        return self._read(prompt)

    def new(self, turn: Turn, key: str, items: list[Any]) -> list[Any]:
        """The items of ``key`` not shown to ``turn.role`` yet."""
        return self._new(turn, key, items)

    def confirm(self, turn: Turn, pkg: Mapping[str, Any], what: str = "offer") -> bool:
        """Show the utility of a package the person typed and ask before sending it.

        A package that cannot be scored (a value that is not on the list, a count out of
        range) is sent as it is: the protocol's feedback says what is wrong with it. Enter
        or ``y`` sends it, ``n`` does not; any other answer (``walk`` typed at the wrong
        prompt) is asked again, never taken as a yes.
        """
        val = turn.evaluate(pkg) if turn.evaluate is not None else None
        if val is None:
            return True
        self.console.print(f"  this {what} is worth [bold]{val:g}[/] to you")
        while True:
            got = self._read("  send it? [Y/n]> ").strip().lower()
            if got in ("", "y", "yes"):
                return True
            if got in ("n", "no"):
                return False
            self.console.print(f"  answer y to send this {what} or n not to")

    def debrief(self, data: Mapping[str, Any]) -> None:
        """Print the person's debrief after the episode (:mod:`accord.play.debrief`)."""
        role = str(data.get("role") or "")
        print_debrief(self.console, data, self.seat_of(role) if self.hot and role else None)

    # -- reading -------------------------------------------------------------------------
    def _read(self, prompt: str) -> str:
        with _interrupt_closes_seat():
            try:
                return self.reader(prompt)
            except EOFError:
                raise SeatClosed("the person ended the episode (end of input)") from None
        raise SeatClosed(INTERRUPTED)  # not reached: the context turns Ctrl-C into SeatClosed

    async def ask(self, turn: Turn) -> Reply:
        """Show the turn, then read commands until one makes a reply (in hot-seat play,
        after handing the keyboard over when the turn is another seat's)."""
        if self.hot and turn.role != self._at:
            self.handover(turn.role)
        self._show(turn)
        while True:
            line = self._read(f"[bold]{plain(turn.role)}[/] move "
                              f"({'/'.join(turn.legal)}, help)> ").strip()
            if not line:
                if turn.view.get("phase") == "consider":  # task exchange's private turn
                    return {"kind": "continue"}
                continue
            if line in ("help", "?"):
                self._help(turn.domain)
                continue
            if line == "brief" and turn.view.get("brief"):
                print_brief(self.console, turn.view["brief"], full=True)
                continue
            reply = self._parse(turn, line)
            if reply is not None:
                return reply

    # -- showing -------------------------------------------------------------------------
    def _new(self, turn: Turn, key: str, items: list[Any]) -> list[Any]:
        seen = self._seen.get((turn.role, key), 0)
        self._seen[(turn.role, key)] = len(items)
        return items[seen:]

    def _help(self, domain: str) -> None:
        for cmd, what in HELP.get(domain, []):
            self.console.print(f"  [cyan]{plain(cmd)}[/]  {plain(what)}")

    def _show(self, turn: Turn) -> None:
        v = turn.view
        c = self.console
        if turn.role not in self.roles:
            self.roles.append(turn.role)
        if turn.feedback is not None:
            c.print(f"[bold red]not accepted[/] ({plain(turn.feedback.get('reason'))}): "
                    f"{plain(turn.feedback.get('feedback'))}")
            return
        if (turn.role, "brief") not in self._seen and v.get("brief"):
            self._seen[(turn.role, "brief")] = 1
            print_brief(c, v["brief"])
            self._help(turn.domain)
        show = {"bargaining": self._show_bargaining, "deal-or-no-deal": self._show_dond,
                "games": self._show_games}.get(turn.domain)
        if show is not None:
            show(turn, v)
        elif turn.domain in terminal_domains.SHOW:
            terminal_domains.SHOW[turn.domain](self, turn, v)

    def _show_bargaining(self, turn: Turn, v: Mapping[str, Any]) -> None:
        c = self.console
        c.rule(f"round {v['round']}/{v['max_rounds']} - you are {plain(turn.role)}")
        brief = v.get("briefing")
        if brief and (turn.role, "briefing") not in self._seen:  # a game's rules and texts
            self._seen[(turn.role, "briefing")] = 1
            for head, key in (("Rules", "rules"), ("The game", "instructions"),
                              ("Only for you", "private"), ("Your stance", "persona")):
                if brief.get(key):
                    c.print(f"[bold]{head}[/]: {plain(brief[key].strip())}")
        for o in self._new(turn, "offers", list(v["offers"])):
            c.print(f"  r{o['round']} [bold]{plain(o['party'])}[/] {plain(o['source'])}: "
                    f"{_fmt(o['package'])}  (your utility {o['utility']:.3f})")
        for m in self._new(turn, "messages", list(v["messages"])):
            c.print(f"  r{m['round']} [bold]{plain(m['party'])}[/] says: {plain(m['text'])}")
        cur = v.get("current_offer")
        if v["phase"] == "respond" and cur is not None:
            c.print(f"On the table from {plain(v.get('proposer'))}: {_fmt(cur['package'])} - "
                    f"your utility [bold]{cur['utility']:.3f}[/] (BATNA {v['batna']:.3f})")
        else:
            c.print("Your turn to propose.")

    def _show_dond(self, turn: Turn, v: Mapping[str, Any]) -> None:
        c = self.console
        c.rule(f"round {v['round']}/{v['max_rounds']} - you are {plain(turn.role)}"
               + (" - LAST TURN" if v.get("last_turn") else ""))
        for e in self._new(turn, "history", list(v["history"])):
            parts = [f"r{e.get('round')} [bold]{plain(e.get('role'))}[/] {plain(e.get('kind'))}"]
            if e.get("share"):
                parts.append(f"takes {_fmt(e['share'])}")
            if e.get("text"):
                parts.append(f"says: {plain(e['text'])}")
            c.print("  " + " ".join(parts))
        off = v.get("offer")
        if off is not None:
            c.print(f"{plain(v['partner'])} proposes to take {_fmt(off['partner_takes'])}; you "
                    f"would get {_fmt(off['you_get'])} = [bold]{off['worth']}[/] points")

    def _show_games(self, turn: Turn, v: Mapping[str, Any]) -> None:
        c = self.console
        if (turn.role, "game") not in self._seen and not v.get("brief"):
            self._seen[(turn.role, "game")] = 1
            c.rule(f"{plain(v['game'])} - you are {plain(turn.role)}")
            c.print(plain(v["description"]))
        for m in self._new(turn, "messages", list(v["messages"])):
            c.print(f"  talk r{m['round']} [bold]{plain(m['speaker'])}[/]: {plain(m['text'])}")
        for h in self._new(turn, "history", list(v["history"])):
            c.print(f"  {plain(h['player'])} played {plain(h['action'])}")
        if v["phase"] == "negotiation":
            c.print(f"Cheap talk, round {v['negotiation_round']}/{v['negotiation_rounds']}: "
                    "type message TEXT")
        else:
            acts = ", ".join(f"{i}={plain(a)}" for i, a in enumerate(v["actions"], 1))
            c.print(f"Choose your action: {acts}")

    # -- parsing -------------------------------------------------------------------------
    def _build(self, turn: Turn, start: Mapping[str, Any] | None) -> dict[str, str]:
        """Build a package field by field, showing its value to the person as it grows."""
        v = turn.view
        if turn.domain == "bargaining":
            fields = [(i["name"], [str(x) for x in i["values"]]) for i in v["issues"]]
        else:
            fields = [(i["name"], [str(n) for n in range(i["count"] + 1)]) for i in v["items"]]
        pkg = {k: str(x) for k, x in (start or {}).items()}
        for name, values in fields:
            pkg.setdefault(name, values[0] if turn.domain == "bargaining" else "0")
        for name, values in fields:
            opts = (f"0..{values[-1]}" if turn.domain != "bargaining"
                    else plain(" | ".join(values)))
            while True:
                got = self._read(f"  {plain(name)} [{opts}] (Enter keeps {plain(pkg[name])})> ")
                got = got.strip()
                if not got:
                    break
                match = [x for x in values if x.lower() == got.lower()]
                if match:
                    pkg[name] = match[0]
                    break
                self.console.print(f"  choose one of {plain(', '.join(values))}")
            self._score(turn, pkg)
        return pkg

    def _score(self, turn: Turn, pkg: Mapping[str, Any]) -> None:
        val = turn.evaluate(pkg) if turn.evaluate is not None else None
        if val is not None:
            self.console.print(f"  package {_fmt(pkg)}: worth [bold]{val:g}[/] to you")

    def _parse(self, turn: Turn, line: str) -> Reply | None:
        if turn.domain in terminal_domains.PARSE:
            return terminal_domains.PARSE[turn.domain](self, turn, line)
        try:
            tokens = shlex.split(line)
        except ValueError:
            tokens = line.split()
        cmd, args = tokens[0].lower(), tokens[1:]
        rest = line.split(None, 1)[1] if len(tokens) > 1 else ""
        v = turn.view
        if turn.domain == "games":
            if cmd in ("message", "say"):
                return {"kind": "message", "text": rest}
            action = rest if cmd == "action" else line
            acts = list(v.get("actions", []))
            if action.isdigit() and 1 <= int(action) <= len(acts):
                action = acts[int(action) - 1]
            if v.get("phase") == "negotiation" and cmd != "action":
                return {"kind": "message", "text": line}
            return {"kind": "action", "action": action}
        if cmd in ("message", "say"):
            return {"kind": "message", "text": rest}
        if cmd == "walk":
            return {"kind": "walk", "reason": rest or None}
        if cmd == "accept":
            return {"kind": "accept", "message": rest or None}
        if cmd in ("offer", "reject", "counter"):
            pkg: dict[str, str] | None = None
            if args:
                pkg = _pairs(args)
                if pkg is None:
                    self.console.print("write the package as NAME=VALUE pairs, e.g. "
                                       + ("price=900 delivery_days=5" if turn.domain ==
                                          "bargaining" else "book=1 hat=0 ball=2"))
                    return None
            elif cmd != "reject":
                start = (v.get("my_last_offer") or {}).get("package") if turn.domain == \
                    "bargaining" else (v.get("my_offer") or {}).get("you_take")
                pkg = self._build(turn, start)
            if pkg is not None and not self.confirm(turn, pkg):
                return None
            if cmd == "offer":
                return {"kind": "offer", "package": pkg}
            return {"kind": "reject", "counter": pkg}
        self.console.print(f"unknown command {plain(cmd)!r}; type help")
        return None
