"""Readable transcripts and records for the terminal (rich).

Every piece of text that comes from a model, a person or a file goes through
:func:`accord.cli.common.plain`: rich markup is escaped and control sequences (ANSI
colours, OSC-8 hyperlinks, bells) are shown literally, never interpreted.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from accord.cli.common import plain
from accord.core.numbers import figure
from accord.core.trajectory import Event, Trajectory


def _pkg(p: Mapping[str, Any] | None) -> str:
    if not p:
        return "-"
    return plain(", ".join(f"{k}={scalar_text(v)}" for k, v in p.items()))


def readable(value: Any) -> str:
    """``value`` as words for a person: a mapping as ``key=value`` pairs, a list as a
    comma-separated list, floats rounded (see :func:`scalar_text`), a string holding a
    JSON object or list decoded the same way; never a Python or JSON literal."""
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("{", "[") and text[-1:] in ("}", "]"):
            try:
                return readable(json.loads(text))
            except ValueError:
                return value
        return value
    if isinstance(value, Mapping):
        if not value:
            return "-"
        return ", ".join(f"{k}: {_inner(v)}" if isinstance(v, (list, tuple))
                         else f"{k}={_inner(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return "; ".join(_inner(v) for v in value) or "-"
    return scalar_text(value)


def _inner(value: Any) -> str:
    """A nested value inside :func:`readable`: lists in parentheses, mappings in braces
    replaced by ``(k=v ...)``, lists of lists as ``a b; c d``: no Python syntax."""
    if isinstance(value, (list, tuple)):
        nested = any(isinstance(v, (list, tuple, Mapping)) for v in value)
        return ("; " if nested else " ").join(_inner(v) for v in value)
    if isinstance(value, Mapping):
        return "(" + ", ".join(f"{k}={_inner(v)}" for k, v in value.items()) + ")"
    return scalar_text(value)


MAX_SHOWN = 200


def _clip(text: object) -> str:
    out = str(text)
    out = out if len(out) <= MAX_SHOWN else out[:MAX_SHOWN] + f"… ({len(out)} chars)"
    return plain(out)


def describe_event(ev: Event, standing: tuple[str, str] | None = None) -> str | None:
    """One transcript line for an event, or ``None`` to skip it. ``standing`` is the
    proposal on the table (proposer, package text) that a bare rejection names."""
    who = plain(ev.party or "protocol")
    m = ev.move or {}
    kind = m.get("kind")
    if ev.kind == "move":
        if kind in ("offer", "suggest") and not m.get("package"):
            text = f"[bold]{who}[/] makes no proposal"  # e.g. a deliberation turn that talks
        elif kind in ("offer", "suggest"):
            verb = "suggests" if kind == "suggest" else "offers"
            text = f"[bold]{who}[/] {verb} {_clip(_pkg(m.get('package')))}"
        elif kind == "reject":
            c = m.get("counter")
            if c:
                text = f"[bold]{who}[/] rejects and counters {_pkg(c.get('package'))}"
            elif standing is not None:
                text = (f"[bold]{who}[/] rejects {plain(standing[0])}'s proposal "
                        f"({standing[1]})")
            else:
                text = f"[bold]{who}[/] rejects"
        elif kind == "accept":
            text = f"[bold]{who}[/] [green]accepts[/]"
        elif kind == "walk":
            text = f"[bold]{who}[/] [red]walks away[/]" + (
                f" ({_clip(m['reason'])})" if m.get("reason") else "")
        elif kind == "message":
            said = readable(m.get("text") or "").strip()
            if not said:
                return None  # an empty message says nothing: no bare "Alice says:"
            text = f"[bold]{who}[/] says: {_clip(said)}"
        elif kind == "action":
            text = f"[bold]{who}[/] plays {_clip(readable(m.get('action')))}"
        elif kind == "decide":
            text = f"[bold]{who}[/] decides {_clip(readable(m.get('decision')))}"
        else:
            text = f"[bold]{who}[/] {plain(kind)}"
        msg = readable(m.get("message") or "").strip()
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
        sentence = note_sentence(ev.reason, ev.data or {}, who)
        if sentence is not None:
            return f"  r{ev.round:>2}  [cyan]{sentence}[/]"
        what = plain(str(ev.reason or "note").replace("_", " "))
        return f"  r{ev.round:>2}  [cyan]{what}[/]" + (
            f": {_clip(readable(ev.data))}" if ev.data else "")
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
    if reason == "fork":
        changed = data.get("changed") or []
        return plain(f"The fork starts here: rounds before {data.get('at')} replay episode "
                     f"{str(data.get('parent'))[:16]}; "
                     + (f"new agent on {', '.join(str(x) for x in changed)}."
                        if changed else "same agents from here."))
    return None


_PREFIX = re.compile(r"^(  r\s*\d+)  (.*)$", re.S)


def _lines(log: Trajectory) -> Iterator[str]:
    """The transcript lines of ``log``, rounds numbered as the protocol numbers offers:
    a rejection with a counter-offer is two lines, the rejection in the round it answers
    and the counter-offer in the round it stands in
    (:func:`accord.serve.transcript.counter_rounds`, shared with the web app); a bare
    rejection names the proposal standing in its round."""
    from accord.serve.transcript import counter_rounds

    events = list(log)
    stands = counter_rounds([{"kind": e.kind, "round": e.round, "party": e.party,
                              "move": e.move} for e in events])
    table: dict[int, tuple[str, str]] = {}
    for i, ev in enumerate(events):
        m = ev.move or {}
        if ev.kind != "move":
            continue
        if m.get("kind") in ("offer", "suggest") and m.get("package"):
            table.setdefault(ev.round, (ev.party or "protocol", _clip(_pkg(m["package"]))))
        counter = m.get("counter")
        if stands.get(i) is not None and isinstance(counter, Mapping):
            table.setdefault(int(stands[i] or 0),
                             (ev.party or "protocol", _clip(_pkg(counter.get("package")))))
    waiting: list[tuple[int, str]] = []  # counter-offers, shown when their round opens
    for i, ev in enumerate(events):
        yield from (text for r, text in waiting if r <= ev.round)
        waiting = [(r, text) for r, text in waiting if r > ev.round]
        standing = table.get(ev.round)
        if i not in stands:
            line = describe_event(ev, standing)
            if line:
                yield line
            continue
        m = dict(ev.move or {})
        counter = m.pop("counter")
        line = describe_event(dataclasses.replace(ev, move=m), standing)
        if line:
            yield line
        who = plain(ev.party or "protocol")
        pkg = _pkg(counter.get("package")) if isinstance(counter, Mapping) else ""
        rnd = stands[i]
        if rnd is None:
            yield f"  r{ev.round:>2}  [bold]{who}[/] counter-offers {pkg} (never on the table)"
        else:
            waiting.append((rnd, f"  r{rnd:>2}  [bold]{who}[/] counter-offers {pkg}"))
    yield from (text for _, text in waiting)


def print_transcript(console: Console, log: Trajectory) -> None:
    """Print every event of a trajectory as a transcript line (:func:`_lines`); a line
    longer than the console wraps under its text, with the round number standing alone
    on the left."""
    for line in _lines(log):
        parts = _PREFIX.match(line)
        if parts is None:
            console.print(line, highlight=False)
            continue
        head = Text.from_markup(parts.group(1) + "  ")
        indent = " " * head.cell_len
        body = Text.from_markup(parts.group(2))
        rows = body.wrap(console, max(20, console.width - head.cell_len))
        for i, row in enumerate(rows):
            row.rstrip()
            console.print(Text.assemble(head if i == 0 else indent, row), highlight=False,
                          soft_wrap=True)


#: which bound ended an episode (a ``bound_hit`` no-deal's detail) -> how it reads
BOUND_WORDS = {"max_rounds": "the round cap was reached",
               "max_offers": "the cap on offers was reached",
               "wall_clock": "the wall-clock limit was reached"}


def _detail(summary: Mapping[str, Any]) -> str:
    """A no-deal's detail: the protocol's own sentences in full (the stagnation rule's
    names the option that changes it), a bound in words with its option name, anything
    else clipped."""
    detail = summary["detail"]
    if summary.get("reason") == "stagnation":
        return plain(detail)
    if summary.get("reason") == "bound_hit" and detail in BOUND_WORDS:
        return f"{BOUND_WORDS[detail]} ({detail})"
    return _clip(detail)


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
        if "rejected_by" in rec:  # not unanimous, or voting rules: who is bound
            console.print(plain(vote_sentence(rec)), highlight=False)
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
    discount, when = rec.get("discount"), rec.get("time")
    t = Table("party", "utility", "BATNA", "above BATNA")
    rejected = set(rec.get("rejected_by", ()))
    for p, u in rec.get("utilities", {}).items():
        b = rec["batna"][p]
        if discount and when is not None:  # the BATNA at the same time as the utility
            b = b * float(discount.get(p, 1.0)) ** float(when)
        t.add_row(plain(p), f"{u:.3f}", f"{b:.3f}", batna_verdict(u, b, p in rejected))
    console.print(t)
    if discount and when is not None:
        raw = rec.get("undiscounted_utilities", {})
        console.print(plain(
            f"Time-discounted utilities and BATNAs (u x delta^t) at relative time t = "
            f"{float(when):.3f}, the round it ended in; undiscounted: "
            + ", ".join(f"{p} {float(v):.3f}" for p, v in raw.items()) + "."),
            highlight=False)


def vote_sentence(rec: Mapping[str, Any]) -> str:
    """Who said yes, who said no and whom the deal binds, in one sentence."""
    yes = [rec.get("proposer", "?"), *rec.get("accepted_by", ())]
    no = rec.get("rejected_by", [])
    bound = rec.get("bound", [])
    void = rec.get("void_acceptances", [])
    text = f"Yes: {', '.join(map(str, yes))}; no: {', '.join(map(str, no)) or 'nobody'}."
    if void:
        text += (f" Below their minimum, so not counted: {', '.join(map(str, void))}.")
    if rec.get("binding") == "all":
        return text + " The deal binds every party (binding: all)."
    free = [p for p in rec.get("parties", []) if p not in bound]
    keeps = "keeps its BATNA" if len(free) == 1 else "keep their BATNAs"
    return text + (f" The deal binds {', '.join(map(str, bound))}; "
                   f"{', '.join(map(str, free))} {keeps}." if free
                   else " The deal binds every party.")


#: utilities this close count as equal (a no-deal leaves each party exactly at its BATNA)
BATNA_TOL = 1e-9


def batna_verdict(utility: float, batna: float, outvoted: bool = False) -> str:
    """The "above BATNA" cell: ``yes``, ``at BATNA`` (equal, as on a no-deal) or a red
    ``NO (sycophancy)`` below it (``NO (outvoted)`` for a party that rejected the deal
    and is bound by it all the same)."""
    if abs(utility - batna) <= BATNA_TOL:
        return "at BATNA"
    if utility > batna:
        return "yes"
    return "[red]NO (outvoted)[/]" if outvoted else "[red]NO (sycophancy)[/]"


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
        if all(_scalar(x) for x in obj):
            return [(prefix, ", ".join(scalar_text(x) for x in obj) or "-")]
        if all(isinstance(x, (list, tuple)) and all(_scalar(y) for y in x) for x in obj):
            return [(prefix, _vectors(obj))]
        for i, v in enumerate(obj):
            rows.extend(flatten(v, f"{prefix}[{i}]"))
        return rows
    return [(prefix, scalar_text(obj))]


#: a list of vectors shows this many in a cell, then how many there are in all
MAX_VECTORS = 8


def _scalar(x: Any) -> bool:
    return not isinstance(x, (Mapping, list, tuple))


def _vectors(obj: Any) -> str:
    """A list of scalar lists (a belief's support, a list of allocations) in one cell:
    ``(0, 1, 3), (0, 4, 2), … (26 in all)``, not one row per vector."""
    shown = ", ".join("(" + ", ".join(scalar_text(y) for y in x) + ")"
                      for x in obj[:MAX_VECTORS])
    return shown + (f", … ({len(obj)} in all)" if len(obj) > MAX_VECTORS else "")


def scalar_text(x: Any) -> str:
    """A table cell for one value: ``-`` for none, ``yes``/``no`` for a flag (not Python's
    ``True``), floats with two decimals (:func:`accord.core.numbers.figure`, as the web
    pages show them; ``--json`` keeps them whole); a value too small for two decimals
    but not zero (a tolerance ``epsilon=1e-09``) in two significant figures, never as a
    misleading ``0.00``."""
    if x is None:
        return "-"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        return f"{x:.2g}" if 0 < abs(x) < 0.005 else figure(x)
    return str(x)


def print_record_fields(console: Console, record: Mapping[str, Any]) -> None:
    """A record as a two-column table of readable fields (see :func:`flatten`)."""
    t = Table("field", "value")
    for key, val in flatten(record):
        t.add_row(plain(key), _clip(val) if len(val) > MAX_SHOWN else plain(val))
    console.print(t)
