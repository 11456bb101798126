"""The ``<deal>book=x hat=y ball=z</deal>`` tag: a proposal of the proposer's own share.

Pure helpers an LLM agent reuses to turn its reply into an :class:`~accord.core.moves.Offer`
package and to show offers back to a model. Parsing is strict about what matters (every
item exactly once, non-negative integers, known item names) and lenient about spacing,
commas, case and plural item names, because models vary in exactly those.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from accord.agents.tags import Grammar, parse_tags
from accord.domains.deal_or_no_deal.load import ITEMS

_GRAMMAR = Grammar.of(data=["deal"])
_PAIR = re.compile(r"^([A-Za-z]+)\s*[=:]\s*(\S+)$")
# a separator starts only where a run starts: linear time on long runs (issue 24)
_SEP = re.compile(r"(?<![,;\s])[,;\s]++(?=[A-Za-z])")
_MAX_COUNT_DIGITS = 9


class DealTagError(ValueError):
    """A ``<deal>`` tag that cannot be read; the message is feedback for the model."""


def _item_name(word: str, items: Sequence[str]) -> str | None:
    w = word.lower()
    if w in items:
        return w
    if w.endswith("es") and w[:-2] in items:
        return w[:-2]
    if w.endswith("s") and w[:-1] in items:
        return w[:-1]
    return None


def parse_deal_body(body: str, items: Sequence[str] = ITEMS) -> dict[str, int]:
    """Parse the inside of a tag (``book=1 hat=0 ball=2``) into ``{item: count}``."""
    parts = [p for p in _SEP.split(body.strip()) if p.strip()]
    out: dict[str, int] = {}
    for part in parts:
        m = _PAIR.match(part.strip().rstrip(",;"))
        if m is None:
            raise DealTagError(f"cannot read {part.strip()[:40]!r}; write item=count, e.g. "
                               f"{format_deal_body(dict.fromkeys(items, 1))}")
        name = _item_name(m.group(1), items)
        if name is None:
            raise DealTagError(f"unknown item {m.group(1)!r}; the items are {', '.join(items)}")
        if name in out:
            raise DealTagError(f"item {name!r} appears twice in the deal")
        raw = m.group(2)
        if not (raw.isascii() and raw.isdigit()):
            raise DealTagError(f"count for {name!r} must be a non-negative integer, got "
                               f"{raw[:20]!r}")
        if len(raw) > _MAX_COUNT_DIGITS:
            raise DealTagError(f"count for {name!r} has {len(raw)} digits; give the number "
                               "of units, e.g. 1")
        out[name] = int(raw)
    missing = [i for i in items if i not in out]
    if missing:
        raise DealTagError(f"the deal must name every item; missing {', '.join(missing)}")
    return {i: out[i] for i in items}


def find_deal(text: str, items: Sequence[str] = ITEMS) -> dict[str, int] | None:
    """The package in the last ``<deal>`` tag of ``text``, or ``None`` when there is none.

    Only top-level, closed tags count: a ``<deal>`` quoted inside a ``<MESSAGE>`` (or any
    free-text block) or inside private reasoning is text. Raises :class:`DealTagError` when
    a tag is present but malformed.
    """
    found = [t.text for t in parse_tags(text, _GRAMMAR).tags if t.name == "DEAL" and t.closed]
    if not found:
        return None
    return parse_deal_body(found[-1], items)


def format_deal_body(package: Mapping[str, int], items: Sequence[str] = ITEMS) -> str:
    """``book=1 hat=0 ball=2`` for a package (items in canonical order)."""
    return " ".join(f"{i}={int(package[i])}" for i in items)


def format_deal(package: Mapping[str, int], items: Sequence[str] = ITEMS) -> str:
    """The full tag for a package: ``<deal>book=1 hat=0 ball=2</deal>``."""
    return f"<deal>{format_deal_body(package, items)}</deal>"


def package_of(share: Sequence[int], items: Sequence[str] = ITEMS) -> dict[str, int]:
    """The Offer package for a share vector."""
    return {i: int(s) for i, s in zip(items, share, strict=True)}


def share_of(package: Mapping[str, object], items: Sequence[str] = ITEMS) -> tuple[int, ...]:
    """The share vector of a (validated) package."""
    return tuple(int(package[i]) for i in items)  # type: ignore[call-overload]
