"""Guards against the Negotiation pattern's failure modes (seed 002, "Risks").

* :func:`find_leaks` scans a party's outgoing text for disclosures of its private
  utility or BATNA: numbers equal to its BATNA or to its utility scores and weights (as
  decimals or percentages), and phrases that state a reservation point.
* :func:`quote_counterpart` wraps another party's text as inert data inside delimiters,
  neutralising tags it might contain, so it is never read as instructions.
* Post-hoc BATNA verification is the protocol's ``accepted_below_batna`` flag.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(%?)")
_PHRASES = re.compile(
    r"\b(my|our)\s+(batna|reservation (price|value|point)|walk[- ]away (point|price|value)|"
    r"bottom[- ]line|floor|utility( function)?|weights?|minimum acceptable)\b"
    r"|\b(lowest|highest|least|most) (i|we) (can|could|would|will) (accept|go|pay|take)\b"
    r"|\bwould walk away (below|under|above)\b",
    re.I)


@dataclass(frozen=True)
class Leak:
    """One suspected disclosure: what kind and the matching text."""

    kind: str  # batna_value | utility_value | disclosure_phrase
    text: str


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


def find_leaks(text: str, batna: float, private_numbers: Iterable[float]) -> list[Leak]:
    """Suspected disclosures of private information in ``text`` (public text only).

    ``private_numbers`` are the party's utility scores and weights; only non-trivial ones
    (not 0 or 1, which occur everywhere) are matched. Issue values such as prices are
    public and never passed here.
    """
    secrets = [x for x in private_numbers if not (_close(x, 0.0) or _close(x, 1.0))]
    leaks: list[Leak] = []
    for m in _NUMBER.finditer(text):
        val = float(m.group(1))
        cands = [val / 100.0] if m.group(2) else [val, val / 100.0] if val > 1 else [val]
        if any(_close(c, batna) for c in cands) and not _close(batna, 0.0):
            leaks.append(Leak("batna_value", m.group(0).strip()))
        elif any(_close(c, s) for c in cands for s in secrets):
            leaks.append(Leak("utility_value", m.group(0).strip()))
    leaks.extend(Leak("disclosure_phrase", m.group(0)) for m in _PHRASES.finditer(text))
    return leaks


def quote_counterpart(party: str, text: str) -> str:
    """Another party's text as inert, delimited data (angle brackets neutralised)."""
    safe = text.replace("<", "‹").replace(">", "›")
    return f'<COUNTERPART_TEXT from="{party}">{safe}</COUNTERPART_TEXT>'
