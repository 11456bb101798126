"""Find every numeric mention in free text, in any notation, with its value and precision.

:func:`extract_numbers` reads ``0.41``, ``.41``, ``0,41`` (decimal comma; ``1,200`` with
groups of three digits is a thousands separator), ``4.1e-1`` and ``4.1 x 10^-1``,
``41%`` / ``41 percent`` / ``41 per cent`` / ``41 pct``, fractions ``41/100`` and
``41 out of 100``, and English number words: ``forty-one percent``, ``zero point four
one``, ``point four one`` and the fraction words ``a quarter``, ``two thirds``, ``four
tenths``, ``one half`` (bare ``half`` is not read: "half the units" is everyday talk).

Number words are converted by `text2num <https://pypi.org/project/text2num/>`_
(``alpha2digit``) run by run, so every mention keeps its span in the original text.

Each :class:`NumberMention` carries its raw value, its value on a unit scale (a
percentage is divided by 100, a fraction evaluated) and ``ulp``: half a unit of the
last digit shown, on the unit scale, which is how far the true value may be from a
correctly rounded mention ("about 0.41" for 0.4123).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from text_to_num import alpha2digit

_SMALL = ("zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
          "fourteen|fifteen|sixteen|seventeen|eighteen|nineteen")
_TENS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_WORD = rf"(?:{_SMALL}|{_TENS}|hundred|thousand|nought|naught|point)"
#: a run of English number words ("forty-one", "zero point four one", "oh point four")
# possessive runs and a separator that starts only where a run starts: linear time on
# long whitespace runs (issue 24)
_WORD_RUN = re.compile(rf"\b(?:oh[\s-]++(?=point\b))?{_WORD}(?:(?:[\s-]++|\s+and\s+){_WORD})*\b",
                       re.I)
_COUNT = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
          "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_DENOM = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4,
          "fifth": 5, "fifths": 5, "tenth": 10, "tenths": 10, "hundredth": 100,
          "hundredths": 100}
_FRACTION_WORDS = re.compile(
    r"(?<![\w-])(a|an|one|two|three|four|five|six|seven|eight|nine|ten)[\s-]+"
    r"(half|halves|thirds?|quarters?|fifths?|tenths?|hundredths?)\b", re.I)

_PARTS = re.compile(r"(?<![\s-])[\s-]++(tenths|hundredths)\b", re.I)
_NUM = re.compile(r"""
    (?<![\w.,:/-])                               # not glued to another token
    (?:
      (?P<sci>(?:\d+(?:\.\d+)?|\.\d+)
              (?:[eE](?P<exp>[-+]?\d+)|\s*[x×*]\s*10\s*\^\s*(?P<exp2>[-+]?\d+)))
     |(?P<num>\d+(?:\.\d+)?)\s*(?:/|\bout\s+of\s+(?:a\s+)?)\s*(?P<den>\d+)(?![\d.,]\d)
     |(?P<thou>[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?)(?!\d)
     |(?P<comma>\d+,\d+)
     |(?P<dec>\d+\.\d+)
     |(?P<dot>\.\d+)
     |(?P<int>\d+)
    )
    (?![\d])(?!(?:st|nd|rd|th)\b)
    (?P<pct>\s*(?:%|\bpercent\b|\bper\s+cent\b|\bpct\b))?
    """, re.X | re.I)


@dataclass(frozen=True)
class NumberMention:
    """One number in a text.

    ``notation`` is one of ``decimal``, ``leading_dot``, ``decimal_comma``, ``scientific``,
    ``integer``, ``thousands``, ``fraction`` and ``percent`` (a percent sign or word
    after any of them); ``spelled`` says it was written in words. ``value`` is the number
    as written (41 for "41%"), ``unit`` its value on a 0..1 scale (0.41), ``ulp`` the
    rounding half-width on that scale and ``approximate`` marks fraction words and
    fractions, which stand for a value rather than round it.
    """

    start: int
    end: int
    text: str
    value: float
    unit: float
    ulp: float
    notation: str
    spelled: bool = False
    approximate: bool = False

    @property
    def percent(self) -> bool:
        """Whether the mention is a percentage."""
        return self.notation == "percent"


def _decimals(digits: str) -> int:
    return len(digits.split(".", 1)[1]) if "." in digits else 0


def _mention(m: re.Match[str], start: int, end: int, text: str, spelled: bool
             ) -> NumberMention | None:
    g = m.groupdict()
    approximate = False
    try:
        if g["sci"]:
            mant = re.match(r"\d*\.?\d+", g["sci"])
            assert mant is not None
            exp = int(g["exp"] if g["exp"] is not None else g["exp2"])
            value = float(Decimal(mant.group(0)) * Decimal(10) ** exp)
            ulp, notation = 0.5 * 10.0 ** (exp - _decimals(mant.group(0))), "scientific"
        elif g["den"]:
            num, den = float(g["num"]), float(g["den"])
            if den == 0:
                return None
            # a fraction names a value rather than rounding one: two decimals' worth of
            # rounding here, the detector adds its tolerance for approximate values
            value, ulp, notation, approximate = num / den, 0.005, "fraction", True
        elif g["thou"]:
            digits = g["thou"].replace(",", "")
            value, ulp, notation = float(digits), 0.5 * 10.0 ** -_decimals(digits), "thousands"
        elif g["comma"]:
            digits = g["comma"].replace(",", ".")
            value, ulp, notation = float(digits), 0.5 * 10.0 ** -_decimals(digits), \
                "decimal_comma"
        elif g["dec"]:
            value, ulp, notation = float(g["dec"]), 0.5 * 10.0 ** -_decimals(g["dec"]), "decimal"
        elif g["dot"]:
            value, ulp, notation = float(g["dot"]), 0.5 * 10.0 ** -_decimals(g["dot"]), \
                "leading_dot"
        else:
            value, ulp, notation = float(g["int"]), 0.5, "integer"
    except (InvalidOperation, ValueError, OverflowError):
        return None
    unit = value
    if g["pct"] and notation != "fraction":
        unit, ulp, notation = value / 100.0, ulp / 100.0, "percent"
    return NumberMention(start, end, text, value, unit, ulp, notation, spelled, approximate)


def _spell_out(text: str) -> tuple[str, list[tuple[int, int, int, int]]]:
    """``text`` with number words replaced by digits, and the replaced spans.

    Each span is ``(new_start, new_end, old_start, old_end)``.
    """
    pieces: list[str] = []
    spans: list[tuple[int, int, int, int]] = []
    pos, out_len = 0, 0

    def emit(old_start: int, old_end: int, new: str) -> None:
        nonlocal pos, out_len
        pieces.append(text[pos:old_start])
        out_len += old_start - pos
        spans.append((out_len, out_len + len(new), old_start, old_end))
        pieces.append(new)
        out_len += len(new)
        pos = old_end

    found: list[tuple[int, int, str]] = []
    for m in _FRACTION_WORDS.finditer(text):
        count = _COUNT.get(m.group(1).lower())
        den = _DENOM[m.group(2).lower()]
        if count is not None:
            found.append((m.start(), m.end(), f"{count}/{den}"))
    taken_starts = [a for a, _, _ in found]  # disjoint and in order
    words: list[tuple[int, int, str]] = []
    for m_start, m_end in _runs(text):
        k = bisect.bisect_left(taken_starts, m_end) - 1  # the last fraction before the end
        if k >= 0 and found[k][1] > m_start:
            continue
        run = text[m_start:m_end]
        lead = re.match(r"(?:(?:oh|nought|naught|zero)[\s-]+)?point[\s-]+", run, re.I)
        body = run[lead.end():] if lead else run
        new = alpha2digit(body, "en", 0.0)
        if lead:  # "point four one" -> ".41" (text2num needs a leading "zero")
            digits = re.fullmatch(r"\d(?:\s+\d)*", new.strip())
            if digits is None:
                continue
            zero = "0" if re.match(r"(?:oh|nought|naught|zero)\b", run, re.I) else ""
            new = zero + "." + digits.group(0).replace(" ", "")
        elif not re.search(r"\d", new):
            continue
        end = m_end
        per = _PARTS.match(text, end)
        if per and re.fullmatch(r"\d+", new):  # "eighty-five hundredths" -> 85/100
            new, end = f"{new}/{_DENOM[per.group(1).lower()]}", per.end()
        words.append((m_start, end, new))
    found += words
    for start, end, new in sorted(found):
        emit(start, end, new)
    pieces.append(text[pos:])
    return "".join(pieces), spans


MAX_RUN = 120
"""Longest run of number words converted at once; a longer run ("one one one ...") is
cut at word boundaries into pieces of at most this length, so spelling out a text takes
time linear in it (text2num is superlinear in one run's length; issue 24). A real number
in words ("nine hundred ninety-nine thousand ...") is far shorter."""


def _runs(text: str) -> list[tuple[int, int]]:
    """The spans of number-word runs in ``text``, long ones cut into pieces."""
    out = []
    for m in _WORD_RUN.finditer(text):
        a, b = m.start(), m.end()
        while b - a > MAX_RUN:
            cut = max(text.rfind(" ", a, a + MAX_RUN), text.rfind("-", a, a + MAX_RUN))
            if cut <= a:
                cut = a + MAX_RUN
            piece_end = cut
            while piece_end > a and text[piece_end - 1] in " -":
                piece_end -= 1
            out.append((a, piece_end))
            a = cut
            while a < b and text[a] in " -":
                a += 1
        if a < b:
            out.append((a, b))
    return out


def normalise(text: str) -> tuple[str, list[tuple[int, int, int, int]]]:
    """The text the detector reads: number words as digits, typographic marks unified."""
    text = (text.replace("\u2212", "-").replace("\u2009", " ").replace("\u00a0", " ")
            .replace("\u2248", "~").replace("\u2019", "'"))
    return _spell_out(text)


Spans = list[tuple[int, int, int, int]]


def extract_numbers(text: str) -> list[NumberMention]:
    """Every numeric mention in ``text`` (see the module docstring).

    Spans index the normalised text; :func:`extract_normalised` returns it, and
    :func:`to_original` maps a span back to ``text``.
    """
    return extract_normalised(text)[0]


def extract_normalised(text: str) -> tuple[list[NumberMention], str, Spans]:
    """The mentions of ``text``, its normalised form and the replaced spans."""
    norm, spans = normalise(text)
    out: list[NumberMention] = []
    starts = [a for a, _, _, _ in spans]
    for m in _NUM.finditer(norm):
        start, end = m.start(), m.end()
        k = bisect.bisect_right(starts, start) - 1
        spelled = k >= 0 and start < spans[k][1]
        mention = _mention(m, start, end, m.group(0).strip(), spelled)
        if mention is not None:
            out.append(mention)
    return out, norm, spans


class SpanMap:
    """Maps spans of the normalised text back to the original (built once per text).

    The replaced spans are sorted and disjoint, so each lookup is a binary search: mapping
    every mention of a text costs time linear in the text, not in mentions x spans.
    """

    def __init__(self, spans: Spans) -> None:
        self.spans = spans
        self.starts = [a for a, _, _, _ in spans]
        self.shifts = [0]
        for a, b, oa, ob in spans:
            self.shifts.append(self.shifts[-1] + (ob - oa) - (b - a))

    def back(self, i: int, closing: bool) -> int:
        """The original position of normalised position ``i`` (a span's end if
        ``closing``)."""
        spans = self.spans
        k = bisect.bisect_right(self.starts, i) - 1  # the last span starting at or before i
        if k < 0:
            return i
        a, b, oa, ob = spans[k]
        if closing and i == a and k > 0 and spans[k - 1][1] == i:
            return spans[k - 1][3]
        if a < i < b or (i == a and not closing) or (i == b and closing):
            return ob if closing else oa
        return i + self.shifts[k + 1 if b <= i else k]

    def original(self, text: str, start: int, end: int) -> str:
        """The part of ``text`` that the normalised span ``[start, end)`` came from."""
        return text[self.back(start, False):self.back(end, True)].strip()


def to_original(text: str, spans: Spans, start: int, end: int) -> str:
    """The part of ``text`` that the normalised span ``[start, end)`` came from."""
    return SpanMap(spans).original(text, start, end)
