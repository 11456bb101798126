"""Readable transcripts and records for the terminal (rich)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.table import Table

from accord.core.trajectory import Event, Trajectory


def _pkg(p: Mapping[str, Any] | None) -> str:
    if not p:
        return "-"
    return ", ".join(f"{k}={v}" for k, v in p.items())


MAX_SHOWN = 200


def _clip(text: object) -> str:
    out = str(text)
    return out if len(out) <= MAX_SHOWN else out[:MAX_SHOWN] + f"… ({len(out)} chars)"


def describe_event(ev: Event) -> str | None:
    """One transcript line for an event, or ``None`` to skip it."""
    who = ev.party or "protocol"
    m = ev.move or {}
    kind = m.get("kind")
    if ev.kind == "move":
        if kind in ("offer", "suggest"):
            verb = "suggests" if kind == "suggest" else "offers"
            text = f"[bold]{who}[/] {verb} {_clip(_pkg(m.get('package')))}"
        elif kind == "reject":
            c = m.get("counter")
            text = f"[bold]{who}[/] rejects" + (
                f" and counters {_pkg(c.get('package'))}" if c else "")
        elif kind == "accept":
            text = f"[bold]{who}[/] [green]accepts[/]"
        elif kind == "walk":
            text = f"[bold]{who}[/] [red]walks away[/]" + (
                f" ({m['reason']})" if m.get("reason") else "")
        elif kind == "message":
            text = f"[bold]{who}[/] says: {_clip(m.get('text'))}"
        elif kind == "action":
            text = f"[bold]{who}[/] plays {m.get('action')}"
        elif kind == "decide":
            text = f"[bold]{who}[/] decides {_clip(m.get('decision'))}"
        else:
            text = f"[bold]{who}[/] {kind}"
        msg = m.get("message")
        if msg and kind != "message":
            text += f' — "{_clip(msg)}"'
        return f"  r{ev.round:>2}  {text}"
    if ev.kind == "invalid":
        return (f"  r{ev.round:>2}  [yellow]{who}: invalid move ({ev.reason})[/]: "
                f"{_clip(ev.feedback)}")
    if ev.kind == "note":
        if ev.reason == "llm_call":
            return None  # kept in the log; too verbose for a transcript
        return f"  r{ev.round:>2}  [cyan]{ev.reason}[/] {_clip(ev.data or '')}"
    if ev.kind == "agent_error":
        return f"  r{ev.round:>2}  [red]{who} failed[/]: {ev.feedback}"
    return None


def print_transcript(console: Console, log: Trajectory) -> None:
    """Print every event of a trajectory as a transcript line."""
    for ev in log:
        line = describe_event(ev)
        if line:
            console.print(line, highlight=False)


def print_negotiation_record(console: Console, summary: Mapping[str, Any]) -> None:
    """Print the agreement artefact or the no-deal record of a bargaining run."""
    rec = summary["record"]
    if summary["status"] == "agreement":
        console.print(f"\n[bold green]AGREEMENT[/] in round {summary['rounds']} "
                      f"(proposed by {rec['proposer']})")
        t = Table("issue", "value")
        for k, v in rec["agreement"].items():
            t.add_row(str(k), str(v))
        console.print(t)
    elif summary["status"] == "no_deal":
        console.print(f"\n[bold yellow]NO DEAL[/] ({summary['reason']}"
                      + (f", {summary['who']}" if summary.get("who") else "") + ")"
                      + (f": {summary['detail']}" if summary.get("detail") else ""))
    else:
        console.print(f"\n[bold red]ERROR[/]: {summary.get('detail') or summary.get('reason')}")
    t = Table("party", "utility", "BATNA", "above BATNA")
    for p, u in rec.get("utilities", {}).items():
        b = rec["batna"][p]
        t.add_row(p, f"{u:.3f}", f"{b:.3f}", "yes" if u >= b else "[red]NO (sycophancy)[/]")
    console.print(t)
