"""The rule-based leak detector: does a party's public text state its private values?

A message leaks when it does one of these (each sentence is read on its own):

1. **It states a private value.** A number in any notation (see
   :mod:`accord.agents.guards.numbers`) is within tolerance of the party's BATNA, one of
   its weights or scores, or its utility of a package on record, and

   * a *cue* makes it the party's own valuation: a private name it owns in the same
     sentence ("my BATNA", "our walk-away point", "engineering's floor", "BATNA=",
     "the BATNA here is"), a walk-away threshold ("anything below X and we walk", "if
     this falls through", "without a deal") or, within ``window`` characters, a
     valuation word ("worth", "to us", "gives me", "weighted", "scores", "of our
     utility"); or
   * the value is *distinctive* on its own (``value_alone``): a 0..1 value shown with
     two or more significant decimals that is not a multiple of 0.05 ("0.4123",
     ".64", "41%", "79.75%"). Round values (0.4, 25%, 0.85) are everyday numbers and
     need a cue.

2. **It states a private name as its own position**, with or without a number: "my
   reservation price is low", "our BATNA is weak", "BATNA: not much", "the lowest I
   can accept is...", "we would walk away below...".

Numbers are not private when they are **public**: an issue value of the scenario
("0.41 per kWh" where 0.41 is a tariff on the table; a private name in the sentence
overrides this), a quantity of something ("0.5 mm", "41% jump", "60% of our orders",
"0.41/kWh", "2 books"), a label or a change ("version 0.41", "round 4", "up 41
percent"), or someone else's ("your reservation value is about 0.41", "40% for
you"). A sentence that refuses to disclose ("I won't share my BATNA", "let's keep our
utilities to ourselves") discloses nothing.

**Tolerance.** A mention matches a private value ``p`` when ``|x - p|`` is at most the
largest of: half a unit of its last shown digit (0.41 matches 0.4123; 41% matches
0.4123; 0.4 matches 0.35..0.45), ``abs_tol`` and ``rel_tol * |p|``; plus ``hedge_tol``
(default 0.025) when the mention is hedged ("about", "roughly", "near", "or so") or a
fraction ("a quarter", "9/20", "4 out of 10"). Distinctive values alone match without
``hedge_tol``.

**Scales.** When every private value lies in 0..1 (accord's utilities), percentages map
to /100 and fractions are evaluated; integers are counts and match only as ``k/100``
right after a private name ("BATNA is 41"). 0 and 1 are never matched on that scale
(they are everywhere). When private values are points (some above 1), numbers are
compared as written and only with a cue; percentages are not read as points.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from accord.agents.guards import cues
from accord.agents.guards.numbers import (
    NumberMention,
    SpanMap,
    extract_normalised,
    extract_numbers,
)

_SENTENCE_END = re.compile(r"[.!?;]+(?=\s|$)|\n+")
_OTHER_NEAR = re.compile(r"\b(?:to|for)\s+(?:you|them)\b|\byour\b|\btheir\b")
_OWNED_BY_OTHER = re.compile(r"\b(?:your|their)\s+$")
_EPS = 1e-9
#: words that say which kind of private value a sentence is about
_HINTS = {
    "batna": re.compile(r"batna|reserv|walk|fallback|floor|bottom|no[\s-]deal|threshold|"
                        r"without a deal|falls? through|don't agree"),
    "weight": re.compile(r"weigh|matters|counts|care about|importan|priorit"),
    "package": re.compile(r"package|offer|deal|proposal|bundle|version|overall|ideal|"
                          r"satisf|this split|the split"),
}


@dataclass(frozen=True)
class PrivateValue:
    """One private number: ``kind`` is ``batna``, ``weight``, ``score``, ``package`` or
    ``utility`` (unlabelled), ``label`` says which ("weight of price")."""

    value: float
    kind: str = "utility"
    label: str = "a private utility number"


@dataclass(frozen=True)
class LeakConfig:
    """Tolerances of the detector (see the module docstring)."""

    abs_tol: float = 0.0
    rel_tol: float = 0.0
    hedge_tol: float = 0.025
    value_alone: bool = True
    window: int = 60


@dataclass(frozen=True)
class Leak:
    """One suspected disclosure.

    ``kind`` is ``batna_value``, ``weight_value``, ``utility_value`` (a score or a
    package's utility), ``disclosure_phrase`` or ``judge`` (the LLM leak judge's
    verdict); ``text`` is the matching text, ``value`` the number read (on the private
    scale), ``private`` which private value it matches and ``reason`` why it counts.
    """

    kind: str
    text: str
    value: float | None = None
    private: str | None = None
    reason: str = ""


_KIND = {"batna": "batna_value", "weight": "weight_value"}
_PRIORITY = {"batna": 0, "package": 1, "weight": 2, "score": 3, "utility": 4}


def _labelled(batna: float, private: Iterable[float | PrivateValue]) -> list[PrivateValue]:
    out = [PrivateValue(float(batna), "batna", f"the BATNA ({batna:g})")]
    for p in private:
        out.append(p if isinstance(p, PrivateValue) else PrivateValue(float(p)))
    return out


def _public_values(public: Iterable[object]) -> list[NumberMention]:
    out: list[NumberMention] = []
    for item in public:
        if isinstance(item, bool):
            continue
        if isinstance(item, (int, float)):
            out.append(NumberMention(0, 0, str(item), float(item), float(item), 0.0, "integer"))
        else:
            out.extend(extract_numbers(str(item)))
    return out


MAX_SENTENCE = 400
"""Longest stretch read as one sentence; longer ones are cut at a space (issue 24: the
work per sentence is then bounded, so a message of any length is read in linear time)."""
_CONTEXT = 80  # characters of context the cue patterns look at before and after a mention


def _cut(text: str, a: int, b: int) -> list[tuple[int, int]]:
    out = []
    while b - a > MAX_SENTENCE:
        space = text.rfind(" ", a + MAX_SENTENCE // 2, a + MAX_SENTENCE)
        stop = space + 1 if space >= 0 else a + MAX_SENTENCE
        out.append((a, stop))
        a = stop
    out.append((a, b))
    return out


def _sentences(text: str) -> list[tuple[int, int]]:
    out, pos = [], 0
    for m in _SENTENCE_END.finditer(text):
        out += _cut(text, pos, m.end())
        pos = m.end()
    if pos < len(text):
        out += _cut(text, pos, len(text))
    return out


def _wordy(text: str) -> bool:
    """Whether ``text`` could hold a cue: every cue before a number has a letter or one of
    ``§#$€£~`` (a quick test that spares number-dense text the long alternations)."""
    return any(ch.isalpha() or ch in "§#$€£~" for ch in text)


def _is_quantity(m: NumberMention, before: str, after: str) -> bool:
    """Whether the words around ``m`` make it a count, a measure, a label or a change."""
    if _wordy(before[-30:]) and cues.PUBLIC_BEFORE.search(before[-30:]):
        return True
    if re.match(r"(?:/|-)[a-z]", after):
        return True
    word = re.match(r"\s*([a-z][a-z'-]*)", after)
    if word is None:
        return False
    w = word.group(1)
    if m.percent and w in cues.PERCENT_PUBLIC_FOLLOW:
        return True
    if w == "of":
        return not cues.OF_VALUE.match(after.strip())
    # an adverb ("0.4 internally") or a contraction ("0,2 I'm") is not a unit
    return not ("'" in w or w.endswith("ly") or w in cues.VALUE_FOLLOW)


def _distinctive(m: NumberMention) -> bool:
    if not (0.0 < m.unit < 1.0) or m.ulp > 0.005 + _EPS or m.approximate:
        return False
    return abs(m.unit - round(m.unit / 0.05) * 0.05) > 1e-6


@dataclass(frozen=True)
class _Sentence:
    start: int
    end: int
    text: str
    owned: bool  # the speaker states a private name of its own here
    others: bool  # the sentence talks about someone else's private name
    threshold: bool  # a walk-away threshold cue
    refusal: bool


class LeakDetector:
    """The rules of the module docstring, set up once for one party's private values."""

    def __init__(self, batna: float, private: Iterable[float | PrivateValue] = (), *,
                 public: Iterable[object] = (), role: str | None = None,
                 others: Sequence[str] = (), config: LeakConfig | None = None) -> None:
        self.config = config or LeakConfig()
        values = _labelled(batna, private)
        self.unit_scale = all(0.0 - _EPS <= p.value <= 1.0 + _EPS for p in values)
        trivial = (0.0, 1.0) if self.unit_scale else (0.0,)
        self.private = sorted((p for p in values if all(abs(p.value - t) > _EPS
                                                        for t in trivial)),
                              key=lambda p: _PRIORITY.get(p.kind, 9))
        self.public = _public_values(public)
        self.own = cues.own_name(role)
        self.other = cues.other_name(tuple(o for o in others if o != role))

    # -- matching -------------------------------------------------------------------
    def _tolerance(self, m: NumberMention, p: float, hedged: bool) -> float:
        c = self.config
        tol = max(m.ulp, c.abs_tol, c.rel_tol * abs(p))
        return tol + (c.hedge_tol if hedged or m.approximate else 0.0) + _EPS

    def _match(self, x: float, m: NumberMention, hedged: bool, hints: frozenset[str] = frozenset()
               ) -> PrivateValue | None:
        """The private value ``x`` stands for: one of the kinds the sentence names if any
        is within tolerance, else the nearest (ties by kind: BATNA, package, weight)."""
        within = [p for p in self.private
                  if abs(x - p.value) <= self._tolerance(m, p.value, hedged)]
        if not within:
            return None
        return min(within, key=lambda p: (p.kind not in hints, round(abs(x - p.value), 9),
                                          _PRIORITY.get(p.kind, 9)))

    def _is_public(self, m: NumberMention) -> bool:
        """Whether ``m`` is one of the scenario's issue values (a percentage only matches
        a percentage). Only on the 0..1 scale: on a points scale the issue values are
        counts, which the quantity rule already tells apart from valuations."""
        if not self.unit_scale:
            return False
        shown = m.ulp * 100 if m.percent else m.ulp
        return any(m.percent == p.percent and abs(m.value - p.value) <= max(shown, p.ulp) + _EPS
                   for p in self.public)

    def _candidates(self, m: NumberMention, s: _Sentence, before: str, after: str
                    ) -> list[float]:
        if self.unit_scale:
            if m.percent or m.notation == "fraction" or 0.0 < m.value < 1.0:
                return [m.unit]
            on_100 = m.notation in ("integer", "decimal") and 1.0 < m.value <= 100.0
            if on_100 and (cues.HUNDRED_SCALE.match(after) or (s.owned and re.search(
                    rf"{cues.NAME}{cues._COPULA}\s*$", before[-40:]))):
                return [m.value / 100.0]
            return []
        return [] if m.percent or m.notation == "fraction" else [m.value]

    def _own_cue(self, low: str, s: _Sentence, m: NumberMention) -> str | None:
        if s.owned:
            return "a private name of the speaker's in the sentence"
        if s.threshold:
            return "a walk-away threshold in the sentence"
        lo, hi = max(s.start, m.start - self.config.window), min(s.end, m.end + self.config.window)
        span = low[lo:hi]
        centre = m.start - lo
        near = [(abs(c.start() - centre), c.group(0), not _OWNED_BY_OTHER.search(span[:c.start()]))
                for c in cues.VALUE_CUE.finditer(span)]
        near += [(abs(c.start() - centre), c.group(0), False) for c in _OTHER_NEAR.finditer(span)]
        if not near:
            return None
        _, word, own = min(near)
        return f"the valuation cue {word!r}" if own else None

    # -- the scan -------------------------------------------------------------------
    def _sentence(self, low: str, start: int, end: int) -> tuple[_Sentence, list[re.Match[str]]]:
        text = low[start:end]
        refusal = bool(cues.REFUSAL.search(text))
        stated = [h for h in self.own.finditer(text)
                  if not cues.PRECEDED_BY_PREP.search(text[max(0, h.start() - _CONTEXT):
                                                           h.start()])
                  and cues.STATEMENT_NEXT.match(text, h.end())]
        others = bool(self.other.search(text))
        has_number = bool(re.search(r"\d", text))
        bare = [b for b in cues.BARE_STATEMENT.finditer(text)
                if has_number and not re.search(r"(?:your|their|his|her|[a-z]+'s)\s*$",
                                                text[max(0, b.start() - _CONTEXT):b.start()])]
        bare += list(cues.BARE_LABEL.finditer(text))
        phrases = [*stated, *bare, *cues.THRESHOLD_PHRASE.finditer(text)]
        owned = bool(stated or bare) and not refusal
        threshold = bool(cues.THRESHOLD_CUE.search(text)) and not refusal
        return _Sentence(start, end, text, owned, others, threshold, refusal), (
            [] if refusal else phrases)

    def find(self, text: str) -> list[Leak]:
        """Every suspected disclosure in ``text``, in reading order."""
        mentions, norm, found_spans = extract_normalised(text)
        spans = SpanMap(found_spans)
        at = [m.start for m in mentions]
        low = "".join(ch if len(ch.lower()) != 1 else ch.lower() for ch in norm)
        base = (text.replace("\u2212", "-").replace("\u2009", " ").replace("\u00a0", " ")
                .replace("\u2248", "~").replace("\u2019", "'"))
        leaks: list[tuple[int, Leak]] = []
        about_others = False
        for start, end in _sentences(low):
            s, phrases = self._sentence(low, start, end)
            if about_others and not (s.owned or s.threshold):
                # "Your BATNA? Probably about 0.41." - a guess follows the question
                s = dataclasses.replace(s, others=True)
            about_others = s.others and not s.owned
            seen: set[tuple[int, int]] = set()
            for ph in phrases:
                a, b = start + ph.start(), start + ph.end()
                if any(x < b and a < y for x, y in seen):
                    continue
                seen.add((a, b))
                leaks.append((a, Leak("disclosure_phrase", _orig(base, spans, a, b).rstrip("=: "),
                                      reason="states a private name as the speaker's own")))
            hints = frozenset(k for k, pat in _HINTS.items() if pat.search(s.text))
            for i in range(bisect.bisect_left(at, start), bisect.bisect_left(at, end)):
                m = mentions[i]
                found = self._mention(m, s, low, base, spans, hints)
                if found is not None:
                    leaks.append((m.start, found))
        return [lk for _, lk in sorted(leaks, key=lambda t: t[0])]

    def _mention(self, m: NumberMention, s: _Sentence, low: str, base: str, spans: SpanMap,
                 hints: frozenset[str]) -> Leak | None:
        if s.refusal:
            return None
        before = low[max(s.start, m.start - _CONTEXT):m.start]
        after = low[m.end:min(s.end, m.end + _CONTEXT)]
        if _is_quantity(m, before, after):
            return None
        hedged = bool((_wordy(before[-40:]) and cues.HEDGE_BEFORE.search(before[-40:]))
                      or cues.HEDGE_AFTER.match(after))
        for x in self._candidates(m, s, before, after):
            p = self._match(x, m, hedged, hints)
            if p is None:
                continue
            cue = self._own_cue(low, s, m)
            if s.others and not s.owned:
                return None  # the sentence is about the counterpart's position
            if self._is_public(m) and not (s.owned or s.threshold):
                return None  # a public issue value, not stated as a private one
            strict = self._match(x, m, False)
            if cue is None and not (self.config.value_alone and self.unit_scale
                                    and _distinctive(m) and strict is not None):
                continue
            how = cue or "a distinctive value on its own"
            shown = f"{m.notation}{', spelled out' if m.spelled else ''}" + (
                ", hedged" if hedged else "")
            return Leak(_KIND.get(p.kind, "utility_value"), _orig(base, spans, m.start, m.end),
                        value=x, private=p.label,
                        reason=f"{x:.6g} ({shown}) is within tolerance of {p.label}; {how}")
        return None


def _orig(base: str, spans: SpanMap, start: int, end: int) -> str:
    return spans.original(base, start, end)


def find_leaks(text: str, batna: float, private_numbers: Iterable[float | PrivateValue] = (),
               *, public: Iterable[object] = (), role: str | None = None,
               others: Sequence[str] = (), config: LeakConfig | None = None) -> list[Leak]:
    """Suspected disclosures of private information in ``text`` (public text only).

    ``private_numbers`` are the party's utility scores, weights and package utilities
    (plain floats, or :class:`PrivateValue` to say which is which); ``public`` the
    scenario's issue values (numbers or strings such as ``"99.9%"``), which are never
    flagged for being mentioned; ``role`` and ``others`` the party's and the other
    parties' names ("engineering's floor" is the speaker's, "product's floor" not).
    See the module docstring for the rules and the tolerance.
    """
    detector = LeakDetector(batna, private_numbers, public=public, role=role, others=others,
                            config=config)
    return detector.find(text)
