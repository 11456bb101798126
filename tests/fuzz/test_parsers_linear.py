"""Every parser of model or person text runs in linear time (issue 24, item 1).

Each parser of :data:`hostile.PARSERS` gets every hostile shape of :func:`hostile.shapes`
(the findings: ``"<a"`` + spaces, long whitespace runs; generated: repeated openers of
every tag, unclosed and private tags, digit runs, nested brackets, number words) at its
test size and at a quarter of it: 25,000 and 6,250 characters (a quarter of the full
size, 10^5, the reply cap, which the benchmark runs). The known findings run at 10^5
below. A linear parser
is about 4x slower on the larger text, a quadratic one 16x: the ratio must stay under 8.
Ratios of process CPU time, each timed over enough calls, and re-measured (best of three)
before a test fails; no wall-clock threshold.
The known findings are also pinned on the patterns themselves.
"""

from __future__ import annotations

import re

import hostile
import pytest

RATIO = 8.0
#: the suite runs the shapes at a quarter of each parser's size (25,000 characters for the
#: reply parsers) to stay fast on a shared machine; ``benchmarks/fuzz.py --parsers`` runs
#: them at the full 10^5 and beyond
CI_SHRINK = 4


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(hostile.PARSERS))
def test_parser_time_grows_linearly(name: str) -> None:
    parse, size = hostile.PARSERS[name]
    quarter = size // 4 // CI_SHRINK
    bad = []
    for label, make in hostile.SHAPES.items():
        ratio = hostile.growth(parse, make, quarter, runs=1)
        if ratio > RATIO:
            # a closer look before failing: one loaded moment must not fail the suite
            ratio = min(ratio, hostile.growth(parse, make, quarter, runs=3, floor=0.05))
        if ratio > RATIO:
            bad.append(f"{label}: x{ratio:.1f}")
    assert not bad, f"{name} grows faster than linearly on: {', '.join(bad)}"


@pytest.mark.parametrize("pattern, text, n", [
    # issue 24's findings, on the patterns themselves (cubic or quadratic before; the
    # sizes keep the old patterns to seconds: 100 -> 400 was 0.04 s -> 8 s for _TOKEN)
    ("accord.agents.tags:_TOKEN", lambda n: "<a" + " " * n, 100),
    ("accord.agents.guards.numbers:_PARTS", lambda n: " " * n, 2_000),
    ("accord.agents.guards.numbers:_WORD_RUN", lambda n: "one" + " -" * n, 2_000),
    ("accord.agents.guards.cues:STATEMENT_NEXT", lambda n: " " * n + "x", 2_000),
    ("accord.agents.guards.cues:STATEMENT_NEXT", lambda n: "quickly" + " " * n, 2_000),
])
def test_known_backtracking_patterns_are_linear(pattern: str, text, n: int) -> None:
    module, attr = pattern.split(":")
    compiled: re.Pattern[str] = getattr(__import__(module, fromlist=[attr]), attr)
    ratio = hostile.growth(lambda t: list(compiled.finditer(t)), text, n)
    if ratio > RATIO:
        ratio = min(ratio, hostile.growth(lambda t: list(compiled.finditer(t)), text, n))
    assert ratio < RATIO, f"{pattern}: x{ratio:.1f} from {n:,} to {4 * n:,} characters"


@pytest.mark.parametrize("name", ["tags (bargaining reply)", "task exchange reply",
                                  "dond reply", "games action", "deliberation plan"])
@pytest.mark.parametrize("label", ["tag opener + spaces", "repeated <ACCEPT>",
                                   "consider then accept, repeated", "nested proposal"])
def test_reply_parsers_at_the_reply_cap(name: str, label: str) -> None:
    # issue 24's shapes at 10^5 characters (25,000 -> 100,000)
    parse, size = hostile.PARSERS[name]
    make = hostile.SHAPES[label]
    ratio = hostile.growth(parse, make, size // 4, runs=1)
    if ratio > RATIO:
        ratio = min(ratio, hostile.growth(parse, make, size // 4, runs=3, floor=0.05))
    assert ratio < RATIO, f"{name} on {label}: x{ratio:.1f}"


def test_fence_stripping_is_linear() -> None:
    # deliberation's old fence pattern tried ``\s*```$`` at every space of a run: 1.0 s
    from accord.domains.deliberation.llm.replies import parse_plan

    def make(n: int) -> str:
        return "<PROPOSAL>x" + " " * n + "x</PROPOSAL>"

    ratio = hostile.growth(lambda t: parse_plan(t, "menu-numeric"), make, 5_000)
    assert ratio < RATIO, f"x{ratio:.1f}"
