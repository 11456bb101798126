"""Guards against the Negotiation pattern's failure modes (seed 002, "Risks").

* :func:`find_leaks` scans a party's outgoing text for disclosures of its private
  utility or BATNA: numbers within tolerance of its BATNA, weights, scores or package
  utilities in any notation (rounded, percent, leading dot, decimal comma, scientific,
  fractions, spelled out) near a private cue or distinctive on their own, and phrases
  that state a reservation point (rules: :mod:`accord.agents.guards.detector`).
* :class:`LeakJudge` is an optional second opinion from an LLM (``guard_judge=MODEL``).
* :func:`quote_counterpart` wraps another party's text as inert data inside delimiters,
  neutralising tags it might contain, so it is never read as instructions.
* Post-hoc BATNA verification is the protocol's ``accepted_below_batna`` flag.
"""

from accord.agents.guards.corpus import load_corpus, private_values
from accord.agents.guards.detector import (
    Leak,
    LeakConfig,
    LeakDetector,
    PrivateValue,
    find_leaks,
)
from accord.agents.guards.numbers import NumberMention, extract_numbers
from accord.agents.guards.quote import quote_counterpart

__all__ = [
    "Leak",
    "LeakConfig",
    "LeakDetector",
    "NumberMention",
    "PrivateValue",
    "extract_numbers",
    "find_leaks",
    "load_corpus",
    "private_values",
    "quote_counterpart",
]
