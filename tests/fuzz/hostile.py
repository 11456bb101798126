"""Hostile reply shapes and a growth measure for linear-time parsing (issue 24).

:func:`shapes` builds adversarial texts of a given length: the findings of issue 24
(``"<a"`` + spaces for the tag tokenizer, long whitespace runs for the leak guard's number
and cue patterns and the fence strippers) and generated ones (repeated openers of every
tag name a parser knows, unclosed and private tags, digit runs, nested brackets, number
words, sentences). :func:`growth` measures how a parser's time grows from ``n`` to
``factor * n`` characters: the ratio of the fastest of a few runs (process CPU time, each
run repeated until it is long enough to time), about ``factor`` for a linear parser and
``factor**2`` for a quadratic one. Tests assert the ratio, never a wall-clock figure;
``benchmarks/fuzz.py --parsers`` reports the worst time per character.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

#: tag names every domain parser knows, in the case models write them
TAG_NAMES = ("PROPOSAL", "ACCEPT", "REJECT", "WALK", "MESSAGE", "THINK", "CONSIDER", "think",
             "ACTION", "deal", "ESTIMATE", "DECISION", "TOOL", "VERDICT", "REASON", "TALK")


def _fill(unit: str, n: int, head: str = "") -> str:
    body = unit * (max(0, n - len(head)) // max(1, len(unit)) + 1)
    return (head + body)[:n]


def shapes(n: int) -> Iterator[tuple[str, str]]:
    """``(label, text)`` pairs of ``n`` characters each (see the module docstring)."""
    yield "tag opener + spaces", _fill(" ", n, "<a")
    yield "tag opener + spaces + slash", _fill(" ", n - 2, "< /") + "/x"
    yield "lone openers", _fill("<", n)
    yield "tag name run", _fill("b", n, "<a")
    yield "attribute run", _fill("x ", n, "<PROPOSAL ")
    yield "spaces", _fill(" ", n)
    yield "spaces then a word", _fill(" ", n - 10, "1") + "tenths x"
    yield "hyphen-space run", _fill(" -", n, "one")
    yield "number words", _fill("one ", n)
    yield "digits", _fill("7", n)
    yield "digits and spaces", _fill("1 ", n)
    yield "decimals", _fill("0.41, ", n)
    yield "sentences with numbers", _fill("My BATNA is 0.41. ", n)
    yield "brackets", _fill("{[", n)
    yield "fence then spaces", _fill(" ", n - 1, "```json\n{") + "x"
    yield "spaces then fence", _fill(" ", n - 3) + "```"
    for name in TAG_NAMES:
        yield f"repeated <{name}>", _fill(f"<{name}>", n)
        yield f"repeated <{name}> with text", _fill(f"<{name}> a ", n)
    yield "private then move, repeated", _fill("<THINK><ACCEPT>", n)
    yield "consider then accept, repeated", _fill("<CONSIDER><ACCEPT> ok ", n)
    yield "closers", _fill("</PROPOSAL>", n)
    yield "nested proposal", _fill("<PROPOSAL>{\"a\": ", n)
    yield "message open, spaces", _fill(" ", n, "<MESSAGE>")


def cpu(fn: Callable[[], object], *, floor: float = 0.02) -> float:
    """Process CPU seconds per call of ``fn`` (repeated until ``floor`` seconds passed)."""
    calls, t0 = 0, time.process_time()
    while True:
        fn()
        calls += 1
        spent = time.process_time() - t0
        if spent >= floor:
            return spent / calls


def growth(parse: Callable[[str], object], make: Callable[[int], str], n: int,
           factor: int = 4, runs: int = 3) -> float:
    """How much slower ``parse`` is on ``make(factor * n)`` than on ``make(n)`` (best of
    ``runs``)."""
    small, big = make(n), make(factor * n)
    t_small = min(cpu(lambda: parse(small)) for _ in range(runs))
    t_big = min(cpu(lambda: parse(big)) for _ in range(runs))
    return t_big / max(t_small, 1e-9)
