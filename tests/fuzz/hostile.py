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

import gc
import time
from collections.abc import Callable, Iterator

#: tag names every domain parser knows, in the case models write them
TAG_NAMES = ("PROPOSAL", "ACCEPT", "REJECT", "WALK", "MESSAGE", "THINK", "CONSIDER", "think",
             "ACTION", "deal", "ESTIMATE", "DECISION", "TOOL", "VERDICT", "REASON", "TALK")


def _fill(unit: str, n: int, head: str = "") -> str:
    body = unit * (max(0, n - len(head)) // max(1, len(unit)) + 1)
    return (head + body)[:n]


def _shapes() -> dict[str, Callable[[int], str]]:
    out: dict[str, Callable[[int], str]] = {
        "tag opener + spaces": lambda n: _fill(" ", n, "<a"),
        "tag opener + spaces + slash": lambda n: _fill(" ", n - 2, "< /") + "/x",
        "lone openers": lambda n: _fill("<", n),
        "tag name run": lambda n: _fill("b", n, "<a"),
        "attribute run": lambda n: _fill("x ", n, "<PROPOSAL "),
        "spaces": lambda n: _fill(" ", n),
        "spaces then a word": lambda n: _fill(" ", n - 10, "1") + "tenths x",
        "hyphen-space run": lambda n: _fill(" -", n, "one"),
        "number words": lambda n: _fill("one ", n),
        "digits": lambda n: _fill("7", n),
        "digits and spaces": lambda n: _fill("1 ", n),
        "decimals": lambda n: _fill("0.41, ", n),
        "sentences with numbers": lambda n: _fill("My BATNA is 0.41. ", n),
        "brackets": lambda n: _fill("{[", n),
        "fence then spaces": lambda n: _fill(" ", n - 1, "```json\n{") + "x",
        "spaces then fence": lambda n: _fill(" ", n - 3) + "```",
        "belief lines": lambda n: _fill("- book=1 hat=2 ball=1:" + " " * 20 + "\n", n,
                                        "<BELIEF>"),
        "deal pairs": lambda n: _fill("book=1 ", n, "<deal>"),
    }
    for name in TAG_NAMES:
        out[f"repeated <{name}>"] = lambda n, name=name: _fill(f"<{name}>", n)
        out[f"repeated <{name}> with text"] = lambda n, name=name: _fill(f"<{name}> a ", n)
    out["private then move, repeated"] = lambda n: _fill("<THINK><ACCEPT>", n)
    out["consider then accept, repeated"] = lambda n: _fill("<CONSIDER><ACCEPT> ok ", n)
    out["closers"] = lambda n: _fill("</PROPOSAL>", n)
    out["nested proposal"] = lambda n: _fill('{"a": ', n, "<PROPOSAL>")
    out["message open, spaces"] = lambda n: _fill(" ", n, "<MESSAGE>")
    return out


SHAPES = _shapes()
"""Hostile shapes: label -> a function building the text at a given length."""


def shapes(n: int) -> Iterator[tuple[str, str]]:
    """``(label, text)`` pairs of ``n`` characters each (see the module docstring)."""
    for label, make in SHAPES.items():
        yield label, make(n)


def cpu(fn: Callable[[], object], *, floor: float = 0.02) -> float:
    """This thread's CPU seconds per call of ``fn`` (repeated until ``floor`` seconds
    passed). The thread's own clock, with the garbage collector paused: other threads of
    the process (a test suite's leftover servers) and a collection that happens to fall
    into one measurement do not count, so a linear parser never looks quadratic."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        calls, t0 = 0, time.thread_time()
        while True:
            fn()
            calls += 1
            spent = time.thread_time() - t0
            if spent >= floor:
                return spent / calls
    finally:
        if enabled:
            gc.enable()


def growth(parse: Callable[[str], object], make: Callable[[int], str], n: int,
           factor: int = 4, runs: int = 3, floor: float = 0.005) -> float:
    """How much slower ``parse`` is on ``make(factor * n)`` than on ``make(n)`` (best of
    ``runs``, each timed over at least ``floor`` CPU seconds). The small and the large text
    are timed in turns, so a busy spell of the machine (which slows even this thread's own
    clock: shared caches) falls on both rather than on all the large runs."""
    small, big = make(n), make(factor * n)
    t_small = t_big = float("inf")
    for _ in range(runs):
        t_small = min(t_small, cpu(lambda: parse(small), floor=floor))
        t_big = min(t_big, cpu(lambda: parse(big), floor=floor))
    return t_big / max(t_small, 1e-9)


def _parsers() -> dict[str, tuple[Callable[[str], object], int]]:
    """Every parser of model or person text: name -> (parse function, test size)."""
    from accord.agents.guards.detector import find_leaks
    from accord.agents.guards.judge import parse_leak_verdict
    from accord.agents.guards.numbers import extract_numbers
    from accord.agents.jsonsafe import loads_bounded, strip_fence
    from accord.agents.llm_stagnation import parse_stagnation_reply
    from accord.agents.replies import (
        parse_mediator_reply,
        parse_negotiation_reply,
        parse_verdict,
        strip_private,
    )
    from accord.agents.tags import MAX_REPLY_CHARS
    from accord.domains.deal_or_no_deal.deal_tag import DealTagError, parse_deal_body
    from accord.domains.deal_or_no_deal.llm.belief import BeliefError, parse_belief
    from accord.domains.deal_or_no_deal.llm.replies import parse_reply as dond_reply
    from accord.domains.deal_or_no_deal.llm.replies import value_leaks
    from accord.domains.deliberation.llm.replies import parse_message, parse_plan
    from accord.domains.games.llm.replies import StepError, json_tag, parse_action, parse_talk
    from accord.domains.task_exchange.generation import parse_description, parse_score
    from accord.domains.task_exchange.llm.replies import parse_reply as te_reply

    def quiet(fn: Callable[[str], object], *errors: type[Exception]) -> Callable[[str], object]:
        def run(text: str) -> object:
            try:
                return fn(text)
            except errors as exc:  # the parser's own clear refusal is an outcome too
                return exc
        return run

    issues = {"price": [800, 1000, 1200], "warranty": [0, 1]}
    big = MAX_REPLY_CHARS
    return {
        "tags (bargaining reply)": (lambda t: parse_negotiation_reply(t, issues, "respond"), big),
        "strip_private": (strip_private, big),
        "mediator reply": (parse_mediator_reply, big),
        "judge verdict": (parse_verdict, big),
        "stagnation verdict": (parse_stagnation_reply, big),
        "leak judge verdict": (parse_leak_verdict, big),
        "task exchange reply": (lambda t: te_reply(t, ("Alice", "Bob"), "respond"), big),
        "games action": (lambda t: parse_action(t, ["cooperate", "defect"]), big),
        "games message": (parse_talk, big),
        "games workflow step": (quiet(lambda t: json_tag(t, "NASH"), StepError), big),
        "dond reply": (lambda t: dond_reply(t, responding=True), big),
        "dond deal body": (quiet(parse_deal_body, DealTagError), big),
        "dond belief": (quiet(lambda t: parse_belief(t, ("book", "hat", "ball"), (1, 2, 3), 10),
                              BeliefError), big),
        "dond value leaks": (lambda t: value_leaks(t, (1, 2, 3)), big),
        "deliberation plan": (lambda t: parse_plan(t, "menu-numeric"), big),
        "deliberation message": (parse_message, big),
        "task generator score": (quiet(parse_score, ValueError), big),
        "task generator description": (quiet(parse_description, ValueError), big),
        "json in tags": (quiet(loads_bounded, ValueError), big),
        "fence stripper": (strip_fence, big),
        "leak guard numbers": (extract_numbers, big),
        "leak guard": (lambda t: find_leaks(t, 0.41, [0.62, 0.37], role="engineering",
                                            others=("product",)), big),
    }


PARSERS = _parsers()
"""Every parser of model or person text: name -> (parse function, the size it is tested at)."""


def reply_strategy():  # type: ignore[no-untyped-def]
    """A hypothesis strategy of hostile replies: fragments of every domain's tags (opened,
    closed, self-closed, unclosed, inside private blocks), JSON of any depth, long digit
    and whitespace runs, lone surrogates and plain text, in any order."""
    from hypothesis import strategies as st

    names = st.sampled_from((*TAG_NAMES, "BELIEF", "NASH", "RATIONALE", "b"))
    tag = st.builds(lambda n, k: (f"<{n}>", f"</{n}>", f"<{n}/>", f"< {n} x='1' >",
                                  f"</ {n} >", f"<{n}")[k], names, st.integers(0, 5))
    depth = st.integers(0, 3000)
    fragment = st.one_of(
        tag,
        st.text(max_size=40),
        st.builds(lambda d: "[" * d + "]" * d, depth),
        st.builds(lambda d: '{"a": ' * d + "1" + "}" * d, depth),
        st.builds(lambda n: "9" * n, st.integers(1, 6000)),
        st.builds(lambda n: " " * n, st.integers(1, 3000)),
        st.sampled_from(['{"price": 800, "warranty": 1}', '{"Alice": ["t"], "Bob": ["u"]}',
                         "book=1 hat=2 ball=0", "cooperate", "STAGNANT", "\ud800", "```json",
                         "0.41", "my BATNA is", "- book=1 hat=1 ball=1: 1/3"]),
    )
    return st.lists(fragment, max_size=30).map("".join)
