"""Error text for an unknown name, with the close match a person probably meant.

Used wherever a scenario, agent kind, game, setting, layout, parameter or domain is
looked up by name, so every such error reads the same way::

    unknown scenario 'buyer-seler' (did you mean 'buyer-seller'?); known: buyer-seller, ...

Also :func:`counted`, a count with its noun in the right number ("1 episode", "2 episodes").
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

#: how many known names an error lists before it says "... (N in all)"
MAX_LISTED = 20
#: characters of an unknown name an error quotes (a 5,000-character name is not echoed)
MAX_QUOTED = 100


def close_matches(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The known names closest to ``name`` (case-insensitive), best first."""
    pool = sorted(set(known))
    lowered = {k.lower(): k for k in pool}
    hits = difflib.get_close_matches(name.lower(), list(lowered), n=n, cutoff=0.6)
    if not hits:  # a prefix or a fragment of a long name ("prisoner" -> "prisoners-dilemma")
        hits = [k for k in lowered if name and len(name) >= 3 and name.lower() in k][:n]
    return [lowered[h] for h in hits]


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` (or ``'x' or 'y'``), or ``""`` when nothing is close."""
    hits = close_matches(name, known)
    if not hits:
        return ""
    return " (did you mean " + " or ".join(repr(h) for h in hits) + "?)"


def unknown_name(kind: str, name: str, known: Iterable[str], *, hint: str = "") -> str:
    """``unknown KIND 'NAME' (did you mean ...?); known: a, b, c`` (+ ``hint``)."""
    pool = sorted(set(known))
    shown = ", ".join(pool[:MAX_LISTED]) + (f", ... ({len(pool)} in all)"
                                            if len(pool) > MAX_LISTED else "")
    quoted = repr(name) if len(name) <= MAX_QUOTED else (
        f"{name[:MAX_QUOTED]!r}... ({len(name)} characters)")
    hint_text = did_you_mean(name, pool) if len(name) <= MAX_QUOTED else ""
    text = f"unknown {kind} {quoted}{hint_text}; known: {shown or 'none'}"
    return text + (f" {hint}" if hint else "")


__all__ = ["close_matches", "did_you_mean", "unknown_name"]


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun`` in the right number for a sentence a person reads: ``1 episode``,
    ``2 episodes``, ``0 episodes`` (``plural`` when adding an ``s`` is wrong)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"
