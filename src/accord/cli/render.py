"""Readable transcripts and records for the terminal (rich).

Every piece of text that comes from a model, a person or a file goes through
:func:`accord.cli.common.plain`: rich markup is escaped and control sequences (ANSI
colours, OSC-8 hyperlinks, bells) are shown literally, never interpreted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.table import Table

from accord.cli.common import plain
from accord.core.trajectory import Event, Trajectory


def _pkg(p: Mapping[str, Any] | None) -> str:
    if not p:
        return "-"
    return plain(", ".join(f"{k}={v}" for k, v in p.items()))


MAX_SHOWN = 200


def _clip(text: object) -> str:
    out = str(text)
    out = out if len(out) <= MAX_SHOWN else out[:MAX_SHOWN] + f"… ({len(out)} chars)"
    return plain(out)


def describe_event(ev: Event) -> str | None:
    """One transcript line for an event, or ``None`` to skip it."""
    who = plain(ev.party or "protocol")
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
                f" ({_clip(m['reason'])})" if m.get("reason") else "")
        elif kind == "message":
            text = f"[bold]{who}[/] says: {_clip(m.get('text'))}"
        elif kind == "action":
            text = f"[bold]{who}[/] plays {_clip(m.get('action'))}"
        elif kind == "decide":
            text = f"[bold]{who}[/] decides {_clip(m.get('decision'))}"
        else:
            text = f"[bold]{who}[/] {plain(kind)}"
        msg = m.get("message")
        if msg and kind != "message":
            text += f' — "{_clip(msg)}"'
        return f"  r{ev.round:>2}  {text}"
    if ev.kind == "invalid":
        return (f"  r{ev.round:>2}  [yellow]{who}: invalid move ({plain(ev.reason)})[/]: "
                f"{_clip(ev.feedback)}")
    if ev.kind == "note":
        if ev.reason == "llm_call":
            return None  # kept in the log; too verbose for a transcript
        if ev.reason in ("mediator_suggestion", "mediator_no_suggestion"):
            return None  # the mediator's move line just above says it
        said = note_sentence(ev.reason, ev.data or {}, who)
        if said is not None:
            return f"  r{ev.round:>2}  [cyan]{said}[/]"
        return f"  r{ev.round:>2}  [cyan]{plain(ev.reason)}[/] {_clip(ev.data or '')}"
    if ev.kind == "agent_error":
        return f"  r{ev.round:>2}  [red]{who} failed[/]: {_clip(ev.feedback)}"
    return None


def _utility(x: Any) -> str:
    if isinstance(x, (int, float)):
        return "nothing" if x == float("-inf") else f"{x:.2f}"
    return plain(x)


_THEN = {"walk": "a party below its BATNA walks", "mediator": "the mediator is asked",
         "continue": "nobody is below its BATNA, so the negotiation goes on"}


def note_sentence(reason: str | None, data: Mapping[str, Any], who: str) -> str | None:
    """A protocol note of the stagnation rule as a sentence (markup-safe), or ``None``
    for a note without one (printed as its name and data)."""
    if reason == "stagnation":
        if data.get("rule") == "scorer":
            what = f"the stagnation scorer judged the last {data.get('rounds')} rounds STAGNANT"
        else:
            eps, k = scalar_text(data.get("epsilon")), data.get("rounds")
            what = (f"no proposer moved further than {eps} on any issue for {k} rounds"
                    if data.get("measure") == "issues" else
                    f"nobody conceded more than {eps} in utility for {k} rounds")
        then = _THEN.get(str(data.get("then")), plain(data.get("then")))
        return plain(f"The stagnation rule fired: {what}; {then}.")
    if reason == "stagnation_walk":
        best = data.get("best_available")
        return (f"{who} walks: the best offer available to it ({_utility(best)}) is below "
                f"its BATNA ({_utility(data.get('batna'))}).")
    if reason == "stagnation_scorer":
        return (f"the stagnation scorer says {plain(data.get('verdict'))}"
                + (f": {_clip(data['why'])}" if data.get("why") else "."))
    return None


def print_transcript(console: Console, log: Trajectory) -> None:
    """Print every event of a trajectory as a transcript line."""
    for ev in log:
        line = describe_event(ev)
        if line:
            console.print(line, highlight=False)


def _detail(summary: Mapping[str, Any]) -> str:
    """A no-deal's detail: the protocol's own sentences in full (the stagnation rule's
    names the option that changes it), anything else clipped."""
    if summary.get("reason") == "stagnation":
        return plain(summary["detail"])
    return _clip(summary["detail"])


def print_negotiation_record(console: Console, summary: Mapping[str, Any]) -> None:
    """Print the agreement artefact or the no-deal record of a bargaining run."""
    rec = summary["record"]
    if summary["status"] == "agreement":
        console.print(f"\n[bold green]AGREEMENT[/] in round {summary['rounds']} "
                      f"(proposed by {plain(rec['proposer'])})")
        t = Table("issue", "value")
        for k, v in rec["agreement"].items():
            t.add_row(plain(k), plain(v))
        console.print(t)
    elif summary["status"] == "no_deal":
        console.print(f"\n[bold yellow]NO DEAL[/] ({plain(summary['reason'])}"
                      + (f", {plain(summary['who'])}" if summary.get("who") else "") + ")"
                      + (f": {_detail(summary)}" if summary.get("detail") else ""))
    else:
        console.print(f"\n[bold red]ERROR[/]: "
                      f"{_clip(summary.get('detail') or summary.get('reason'))}")
    stag = rec.get("stagnation")
    if isinstance(stag, Mapping):
        k = stag.get("rounds")
        console.print(plain(f"Stagnation rule: {'off' if k == 0 else f'K={k}'}, "
                            f"{stag.get('why')}; change it with --stagnation-rounds K "
                            "(0 = off)."), highlight=False)
    t = Table("party", "utility", "BATNA", "above BATNA")
    for p, u in rec.get("utilities", {}).items():
        b = rec["batna"][p]
        t.add_row(plain(p), f"{u:.3f}", f"{b:.3f}",
                  "yes" if u >= b else "[red]NO (sycophancy)[/]")
    console.print(t)


def flatten(obj: Any, prefix: str = "") -> list[tuple[str, str]]:
    """``(dotted key, text)`` rows of a JSON-like record: nested mappings become dotted
    keys, lists of scalars one comma-separated value, so no JSON blob lands in a cell."""
    rows: list[tuple[str, str]] = []
    if isinstance(obj, Mapping):
        if not obj and prefix:
            return [(prefix, "-")]
        for k, v in obj.items():
            rows.extend(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return rows
    if isinstance(obj, (list, tuple)):
        if all(not isinstance(x, (Mapping, list, tuple)) for x in obj):
            return [(prefix, ", ".join(scalar_text(x) for x in obj) or "-")]
        for i, v in enumerate(obj):
            rows.extend(flatten(v, f"{prefix}[{i}]"))
        return rows
    return [(prefix, scalar_text(obj))]


def scalar_text(x: Any) -> str:
    """A table cell for one value: ``-`` for none, floats to 4 significant digits."""
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


def print_record_fields(console: Console, record: Mapping[str, Any]) -> None:
    """A record as a two-column table of readable fields (see :func:`flatten`)."""
    t = Table("field", "value")
    for key, val in flatten(record):
        t.add_row(plain(key), _clip(val) if len(val) > MAX_SHOWN else plain(val))
    console.print(t)
