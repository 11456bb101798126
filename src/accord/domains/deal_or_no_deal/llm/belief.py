"""The model's own belief statement in the seed mode of ``llm-workflow`` (seed 003, 5.2).

In the seed's mode the model keeps the belief of Definition 10 itself and states it every
turn, outside its private reasoning, as one ``<BELIEF>`` block: one line per valuation of
the partner that still has positive probability, the valuation written like a deal and
followed by its probability::

    <BELIEF>
    book=0 hat=2 ball=2: 1/2
    book=2 hat=1 ball=2: 1/2
    </BELIEF>

Probabilities may be fractions (``1/3``), decimals (``0.333``) or percentages (``33.3%``).
:func:`parse_belief` reads the block strictly where it matters for the estimation metrics
of Tables 14-16 (every valuation a member of Omega: whole non-negative values per unit
whose count-weighted sum is the common total; no valuation twice; positive probabilities
summing to 1 within :data:`SUM_TOLERANCE`) and returns a :class:`BeliefError` whose text is
targeted feedback for the model otherwise. Pure: no I/O, no model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from accord.agents.tags import Grammar, parse_tags
from accord.domains.deal_or_no_deal.deal_tag import DealTagError, parse_deal_body

GRAMMAR = Grammar.of(data=["deal", "BELIEF"], markers=["ACCEPT", "REJECT", "WALK"])
"""A seed-mode reply: the move's tags plus the ``<BELIEF>`` data block."""

SUM_TOLERANCE = Fraction(1, 20)
"""How far the stated probabilities may sum from 1 (rounded decimals of many rows)."""

_PROB = re.compile(r"^(\d+(?:\.\d+)?|\.\d+)(%?)$|^(\d+)\s*/\s*(\d+)$")

Vector = tuple[int, ...]


class BeliefError(ValueError):
    """A belief statement that cannot be used; ``reason`` is a short code, the text feedback."""

    def __init__(self, reason: str, feedback: str) -> None:
        super().__init__(feedback)
        self.reason = reason
        self.feedback = feedback


@dataclass(frozen=True)
class StatedBelief:
    """A parsed statement: the support in statement order and each valuation's probability."""

    support: tuple[Vector, ...]
    probs: tuple[Fraction, ...]

    def to_dict(self, items: Sequence[str]) -> list[dict[str, object]]:
        """JSON rows ``{"values": {item: v}, "p": "1/3"}`` for the trajectory."""
        return [{"values": dict(zip(items, w, strict=True)), "p": str(p)}
                for w, p in zip(self.support, self.probs, strict=True)]


def _line(raw: str) -> tuple[str, str] | None:
    """``(valuation, probability)`` of a belief line ``- book=1 hat=2 ball=0: 1/3``, or
    ``None``. A scan, not a pattern: linear in the line (issue 24)."""
    line = raw.strip()
    if line[:1] in ("-", "*"):
        line = line[1:].lstrip()
    w, colon, p = line.partition(":")
    w, p = w.strip(), p.strip()
    if not colon or not w or not p or any(ch.isspace() for ch in p):
        return None
    return w, p


def _probability(text: str) -> Fraction:
    if len(text) > 1000:  # exact fractions of long updates stay far below this
        raise ValueError(text)
    m = _PROB.match(text.strip())
    if m is None:
        raise ValueError(text)
    if m.group(3) is not None:
        den = int(m.group(4))
        if den == 0:
            raise ValueError(text)
        return Fraction(int(m.group(3)), den)
    value = Fraction(m.group(1))
    return value / 100 if m.group(2) else value


def _example(items: Sequence[str]) -> str:
    return " ".join(f"{i}=N" for i in items) + ": PROBABILITY"


def parse_belief(text: str, items: Sequence[str], counts: Sequence[int], total: int
                 ) -> StatedBelief:
    """The ``<BELIEF>`` statement in a reply, or :class:`BeliefError` with feedback.

    Only a top-level, closed ``<BELIEF>`` counts (one inside ``<MESSAGE>`` or private
    reasoning is text); exactly one is required.
    """
    parsed = parse_tags(text, GRAMMAR)
    if (long := parsed.error("too_long")) is not None:
        raise BeliefError("reply_too_long", long.feedback)
    blocks = [t for t in parsed.tags if t.name == "BELIEF"]
    fmt = f"<BELIEF> with one line per possible valuation, e.g. {_example(items)}"
    if not blocks:
        raise BeliefError("missing_belief", f"State your belief outside <CONSIDER>: {fmt}.")
    if len(blocks) > 1:
        raise BeliefError("multiple_beliefs", f"Give exactly one <BELIEF>; you gave "
                          f"{len(blocks)}.")
    if not blocks[0].closed:
        raise BeliefError("unclosed_belief", "Your <BELIEF> tag is not closed; end it with "
                          "</BELIEF>.")
    support: list[Vector] = []
    seen: set[Vector] = set()
    probs: list[Fraction] = []
    for raw in blocks[0].text.splitlines():
        if not raw.strip():
            continue
        line = _line(raw)
        if line is None:
            raise BeliefError("bad_belief", f"cannot read the belief line "
                              f"{raw.strip()[:80]!r}; write {_example(items)}.")
        w_text, p_text = line
        try:
            w = parse_deal_body(w_text, items)
        except DealTagError as exc:
            raise BeliefError("bad_belief", f"cannot read the valuation in "
                              f"{raw.strip()[:80]!r}: {exc}.") from None
        vec = tuple(w[i] for i in items)
        worth = sum(c * v for c, v in zip(counts, vec, strict=True))
        if worth != total:
            sums = " + ".join(f"{c}*{v}" for c, v in zip(counts, vec, strict=True))
            raise BeliefError("impossible_valuation", f"{w_text} is not a possible "
                              f"valuation: all the items would be worth {sums} = {worth}, "
                              f"not {total}.")
        if vec in seen:
            raise BeliefError("bad_belief", f"the valuation {w_text} is listed "
                              "twice; list each once.")
        try:
            p = _probability(p_text)
        except ValueError:
            raise BeliefError("bad_belief", f"cannot read the probability {p_text[:40]!r}; "
                              "write a fraction (1/3), a decimal (0.33) or a percentage "
                              "(33%).") from None
        if p <= 0:
            continue  # a zero-probability row is outside the support; harmless
        support.append(vec)
        seen.add(vec)
        probs.append(p)
    if not support:
        raise BeliefError("empty_belief", f"Your belief lists no valuation with positive "
                          f"probability; {fmt}.")
    mass = sum(probs, Fraction(0))
    if abs(mass - 1) > SUM_TOLERANCE:
        raise BeliefError("belief_not_normalized", f"the probabilities in your <BELIEF> sum "
                          f"to {float(mass):.3f}, not 1.")
    return StatedBelief(tuple(support), tuple(probs))


__all__ = ["GRAMMAR", "SUM_TOLERANCE", "BeliefError", "StatedBelief", "parse_belief"]
