"""A stored episode as view data for the transcript page and the report (pure functions).

Every string stays raw here; escaping is the templates' job (Jinja2 autoescape), so text
from a model, a person or a scenario is shown, never interpreted.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

#: note reasons shown as LLM calls rather than as transcript lines
LLM_NOTE = "llm_call"
#: the note a fork's trajectory carries at the round it starts (accord.protocols.fork)
FORK_NOTE = "fork"


def fork_marker(ev: Mapping[str, Any]) -> dict[str, Any]:
    """The transcript row where a fork starts: ``kind`` ``fork``, the round, and in words
    that the rounds before it replay the parent and who was changed."""
    data = ev.get("data") if isinstance(ev.get("data"), Mapping) else {}
    at = (data or {}).get("at", ev.get("round"))
    changed = (data or {}).get("changed") or []
    who = ", ".join(str(c) for c in changed) if isinstance(changed, list) else str(changed)
    return {"seq": ev.get("seq"), "round": ev.get("round"), "party": "", "kind": "fork",
            "action": "the fork starts here",
            "detail": f"rounds before {at} replay the parent"
                      + (f"; from here on new seats: {who}" if who else
                         "; from here on the same seats play again"),
            "message": None, "parent": (data or {}).get("parent"), "at": at}


def package_text(package: Mapping[str, Any] | None) -> str:
    """``issue=value, ...`` of an offer's package."""
    if not package:
        return ""
    return ", ".join(f"{k}={v}" for k, v in package.items())


def _data_text(data: Any) -> str:
    if not data:
        return ""
    if isinstance(data, Mapping):
        return ", ".join(f"{k}={_short(v)}" for k, v in data.items())
    return _short(data)


def _short(value: Any, limit: int = 600) -> str:
    if isinstance(value, bool):
        text = "yes" if value else "no"
    elif isinstance(value, (str, Mapping, list, tuple, int, float)) or value is None:
        text = said(value)
    else:
        text = json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} chars)"


def said(value: Any) -> str:
    """What a party said or a note holds, in words for a person: a JSON text (e.g. a
    deliberation agent's ``{"share": [...], "part": 1, "parts": 1}``) decoded into
    ``share: ingredients pasta 2; ...``, floats rounded; the same words ``accord show``
    prints (:func:`accord.cli.render.readable`). Never a Python or JSON literal."""
    from accord.cli.render import readable

    return readable(value)


def event_view(ev: Mapping[str, Any]) -> dict[str, Any]:
    """One trajectory event (its ``to_dict()`` form) as a transcript line:
    ``round``, ``party``, ``kind`` (css class), ``action``, ``detail``, ``message``."""
    kind = ev.get("kind")
    move = ev.get("move") or {}
    out: dict[str, Any] = {"seq": ev.get("seq"), "round": ev.get("round"),
                           "party": ev.get("party") or "protocol", "kind": kind,
                           "action": "", "detail": "", "message": None}
    if kind == "move":
        mk = move.get("kind")
        out["action"] = str(mk)
        if mk in ("offer", "suggest"):
            # an offer without a package is a turn that only talks (deliberation)
            out["detail"] = package_text(move.get("package")) or "(no proposal)"
        elif mk == "reject":
            counter = move.get("counter")
            if counter:
                out["action"] = "reject + counter"
                out["detail"] = package_text(counter.get("package"))
        elif mk == "walk":
            out["detail"] = move.get("reason") or ""
        elif mk == "message":
            out["message"] = said(move.get("text") or "") or None
        elif mk == "action":
            out["detail"] = str(move.get("action"))
        elif mk == "decide":
            out["detail"] = str(move.get("decision"))
        else:
            rest = {k: v for k, v in move.items() if k not in ("kind", "message")}
            out["detail"] = _data_text(rest)
        if move.get("message") and mk != "message":
            out["message"] = said(move.get("message"))
    elif kind == "invalid":
        out["action"] = f"invalid move ({ev.get('reason')})"
        out["detail"] = ev.get("feedback") or ""
        if move:
            out["message"] = _data_text(move)
    elif kind == "note":
        out["action"] = str(ev.get("reason"))
        out["detail"] = _data_text(ev.get("data"))
    elif kind == "end":
        data = ev.get("data") or {}
        status = str(data.get("status") or "").replace("_", " ")
        reason = str(ev.get("reason") or "").replace("_", " ")
        out["action"] = "ended"
        out["detail"] = (status + (f" ({reason})" if reason and reason not in ("None", status)
                                   else "")
                         + (f": {data['detail']}" if data.get("detail") else ""))
    elif kind == "agent_error":
        out["action"] = "agent failed"
        out["detail"] = ev.get("feedback") or ""
    else:
        out["action"] = str(kind)
        out["detail"] = _data_text(ev.get("data") or ev.get("reason"))
    return out


def counter_rounds(events: list[Mapping[str, Any]]) -> dict[int, int | None]:
    """For each reject-with-counter move (by its index in ``events``), the round in which
    the counter-offer is the offer on the table, or ``None`` if it never was (replaced by
    the same party's next counter, or the episode ended first).

    The protocol numbers an offer by the round it stands in (the record's ``round``, the
    play view's offer table): a counter made while answering round r's offer opens round
    r + 1 between two parties. With more parties a counter waits for its maker's turn to
    propose: the first later round in which nobody makes a fresh offer and its maker does
    not move (it stands; the others answer it).
    """
    moves: list[tuple[int, int, str, bool, bool]] = []
    for i, ev in enumerate(events):
        if ev.get("kind") != "move" or not isinstance(ev.get("round"), int):
            continue
        mv = ev.get("move") or {}
        countered = mv.get("kind") == "reject" and bool(mv.get("counter"))
        moves.append((i, int(ev["round"]), str(ev.get("party")), countered,
                      mv.get("kind") in ("offer", "suggest")))
    movers: dict[int, set[str]] = {}
    fresh: set[int] = set()
    for _, rnd, party, _, offered in moves:
        movers.setdefault(rnd, set()).add(party)
        if offered:
            fresh.add(rnd)
    last = max(movers, default=0)
    out: dict[int, int | None] = {}
    for k, (i, rnd, party, countered, _) in enumerate(moves):
        if not countered:
            continue
        out[i] = None
        later = [m for m in moves[k + 1:] if m[2] == party and m[3]]
        replaced_in = later[0][1] if later else None
        for r in range(rnd + 1, last + 1):
            if replaced_in is not None and r >= replaced_in:
                break
            if r in movers and r not in fresh and party not in movers[r]:
                out[i] = r
                break
    return out


def transcript(events: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Transcript lines, LLM calls (model, tokens, latency, reply) and notes by kind.

    A reject with a counter-offer is two lines: the rejection in the round it answers,
    the counter-offer in the round it stands in (:func:`counter_rounds`), so the
    transcript numbers rounds as the record and the play view do. A fork's ``fork`` note
    becomes the marker row where the fork starts (:func:`fork_marker`).
    """
    lines: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    notes: dict[str, int] = {}
    stands = counter_rounds(events)
    waiting: list[dict[str, Any]] = []  # counter-offers shown when their round opens
    for i, ev in enumerate(events):
        rnd_now = ev.get("round")
        if waiting and isinstance(rnd_now, int):
            lines += [w for w in waiting if w["round"] <= rnd_now]
            waiting = [w for w in waiting if w["round"] > rnd_now]
        if i in stands:
            line = event_view(ev)
            rnd = stands[i]
            # what was said goes with the rejection: the round it was said in
            lines.append({**line, "action": "reject", "detail": ""})
            counter = {**line, "round": ev.get("round") if rnd is None else rnd,
                       "message": None, "action": "counter-offer" if rnd is not None
                       else "counter-offer (never on the table)"}
            (lines if rnd is None else waiting).append(counter)
            continue
        if ev.get("kind") == "note" and ev.get("reason") == LLM_NOTE:
            d = dict(ev.get("data") or {})
            calls.append({"round": ev.get("round"), "party": ev.get("party"),
                          "model": d.get("model"), "prompt_tokens": d.get("prompt_tokens"),
                          "completion_tokens": d.get("completion_tokens"),
                          "latency": d.get("latency"), "from_cache": d.get("from_cache"),
                          "reply": d.get("reply") or d.get("text") or ""})
            continue
        if ev.get("kind") == "note":
            notes[str(ev.get("reason"))] = notes.get(str(ev.get("reason")), 0) + 1
            if ev.get("reason") == FORK_NOTE:
                lines.append(fork_marker(ev))
                continue
        line = event_view(ev)
        if ev.get("kind") == "end" and isinstance(rnd_now, int):
            # the record counts the rounds completed (0 when the first one failed); the
            # end row stands in the round it happened, after the rows before it
            seen = [ln["round"] for ln in lines if isinstance(ln.get("round"), int)]
            line["round"] = max([rnd_now, *seen])
        lines.append(line)
    return {"lines": lines + waiting, "llm_calls": calls, "notes": notes}


def flatten(obj: Any, prefix: str = "") -> list[tuple[str, str]]:
    """``(dotted key, text)`` rows of a JSON-like record (the CLI's record layout)."""
    from accord.cli.render import flatten as cli_flatten

    return cli_flatten(obj, prefix)


def usage_rows(usage: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Token usage and cost per agent role: one row per role."""
    rows = []
    for role, u in (usage or {}).items():
        if isinstance(u, Mapping):
            rows.append({"role": role, **{k: v for k, v in u.items()
                                          if isinstance(v, (int, float, str, type(None)))}})
        else:
            rows.append({"role": role, "value": u})
    return rows


#: a usage field (:class:`accord.llm.accounting.UsageTotals`) as a column heading
USAGE_WORDS = {"role": "role", "calls": "calls", "cache_hits": "answered from the cache",
               "prompt_tokens": "prompt tokens", "completion_tokens": "completion tokens",
               "cached_tokens": "cached prompt tokens",
               "cache_write_tokens": "tokens written to the cache", "latency": "latency (s)",
               "cost": "cost", "spent": "spent (calls not from the cache)"}
#: usage fields in dollars: as the summary card writes a cost (a hundredth of a cent
#: matters: a small model's episode costs $0.0031, which two decimals show as 0.00)
DOLLARS = ("cost", "spent")


def usage_table(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The usage rows (:func:`usage_rows`) as a table for people: ``columns`` (headings in
    words) and ``rows`` (cells as text: dollars as ``$0.0031``, other numbers as
    every table writes them)."""
    from accord.serve.views import num

    keys: list[str] = []
    for r in rows:
        keys.extend(k for k in r if k not in keys)

    def cell(key: str, value: Any) -> str:
        if key in DOLLARS and isinstance(value, (int, float)) and not isinstance(value, bool):
            return f"${value:.4f}"
        return num(value)

    return {"columns": [USAGE_WORDS.get(k, k.replace("_", " ")) for k in keys],
            "rows": [[cell(k, r.get(k)) for k in keys] for r in rows]}


__all__ = ["DOLLARS", "FORK_NOTE", "USAGE_WORDS", "counter_rounds", "event_view", "flatten",
           "fork_marker", "package_text", "said", "transcript", "usage_rows", "usage_table"]
