"""The tag grammar every LLM reply is read with (DESIGN.md principle 3; issue 12, finding 1).

A reply is split into *top-level* elements by one tokenizer, so a tag's meaning depends on
where it stands, not on whether its name occurs somewhere in the text. Each domain parser
passes a :class:`Grammar` saying which tag names it knows and what kind each one is:

* **free text** (``MESSAGE``, ``REASON``, ``RATIONALE``, ``STRATEGY``, ... :data:`FREE_TEXT`):
  ``<NAME>...</NAME>``; the body is *opaque*: a tag written inside it is text, so
  ``<MESSAGE>No way I would <ACCEPT/> that</MESSAGE>`` holds no move.
* **data** (``PROPOSAL``, ``deal``, ``ACTION``, ``VERDICT``, ...): ``<NAME>...</NAME>`` whose
  opaque body the domain reads (JSON, ``book=1 hat=0 ball=2``, an action name).
* **markers** (``ACCEPT``, ``REJECT``, ``WALK`` in bargaining): ``<NAME/>`` or a bare
  ``<NAME>``; a closing ``</NAME>`` after one is tolerated and ignored.
* **loose** free text (task exchange's ``<ACCEPT>``/``<REJECT>``): like free text, but when
  the closing tag is missing the body ends at the next tag of the grammar.
* **private** (``THINK``, ``CONSIDER``, :data:`PRIVATE`): removed wherever it stands, at top
  level or inside another element's body, before anything reaches another party or a log.
  An unclosed private block hides everything to the end of the reply (or, with
  ``private_until_next``, to the next tag of the grammar), so a forgotten closing tag cannot
  leak reasoning. Private reasoning never makes a move.

Rules:

1. Names are matched ignoring case; whitespace inside the brackets is allowed (``< ACCEPT />``,
   ``</ PROPOSAL >``); attributes (``<PROPOSAL format="json">``) are kept in
   :attr:`Tag.attrs` and otherwise ignored.
2. Tags whose names the grammar does not know are plain text (``<b>``, ``<deal>`` in a
   bargaining reply).
3. Nothing nests except what :attr:`Grammar.nest` allows (task exchange: a ``PROPOSAL``
   inside a ``REJECT``) and private blocks; every other tag inside a body is text. A body
   ends at the first closing tag of its own name.
4. Text outside every element is kept (:attr:`Parsed.outside`) but never makes a move; each
   domain decides whether it is ignored (bargaining) or part of the public message (task
   exchange). Tags in it *are* elements: a top-level ``<WALK/>`` is a walk.
5. Errors are data, never exceptions (:attr:`Parsed.errors`, first the most basic):
   ``unclosed`` (a free-text or data element without its closing tag: its body runs to the
   end of the reply, so no tag after it counts), ``duplicate`` (more than one of a
   :attr:`Grammar.once` tag) and ``conflict`` (two tags of one :attr:`Grammar.exclusive`
   group). Closing tags without an opening one are listed in :attr:`Parsed.strays`.

The module is pure and knows no domain: domain parsers turn a :class:`Parsed` into moves.
"""

from __future__ import annotations

import bisect
import dataclasses
import os
import re
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

PRIVATE: frozenset[str] = frozenset({"THINK", "CONSIDER"})
"""Private reasoning blocks: removed before anything leaves the agent."""

FREE_TEXT: frozenset[str] = frozenset({"MESSAGE", "REASON", "RATIONALE", "EXPLANATION",
                                       "STRATEGY", "NOTE", "COMMENT"})
"""Free-text blocks every grammar knows unless told otherwise: their bodies are opaque."""

ErrorCode = Literal["unclosed", "duplicate", "conflict", "too_long"]

MAX_REPLY_CHARS = 100_000
"""Longest reply :func:`parse_tags` reads by default (longer ones are a ``too_long`` error,
left unread). Read at each call: set ``accord.agents.tags.MAX_REPLY_CHARS`` (or the
environment variable ``ACCORD_MAX_REPLY_CHARS`` before accord is imported) to change it."""
if (_env := os.environ.get("ACCORD_MAX_REPLY_CHARS", "").strip()):
    if _env.isascii() and _env.isdigit() and 0 < int(_env) <= 10**9:
        MAX_REPLY_CHARS = int(_env)
    else:
        warnings.warn(f"ACCORD_MAX_REPLY_CHARS must be a positive whole number of characters, "
                      f"got {_env[:40]!r}; using {MAX_REPLY_CHARS:,}", stacklevel=1)

# Linear time (issue 24): every quantifier is possessive and no two adjacent ones can
# trade characters, so a failed attempt never backtracks; a token holds one ``<`` only, so
# the attempts of one search scan disjoint stretches of the text. The tail after the name
# (attributes, a closing ``/``) is split in Python by :func:`_tail`.
_TOKEN = re.compile(r"<\s*+(?:(/)\s*+)?([A-Za-z][\w-]*+)([^<>]*+)>")


@dataclass(frozen=True)
class Token:
    """One tag token: name (upper case), place, and whether it closes or self-closes."""

    name: str
    start: int
    end: int
    closing: bool
    selfclosing: bool
    attrs: str


def _tail(rest: str) -> tuple[bool, str] | None:
    """``(selfclosing, attrs)`` of what follows a tag name before ``>``, or ``None`` when
    it is no tag (``<a/b>``, ``<ab=c>``: the name must end at a space, ``/`` or ``>``)."""
    if not rest:
        return False, ""
    if rest[0] == "/":
        return (True, "") if not rest[1:].strip() else None
    if not rest[0].isspace():
        return None
    body = rest.rstrip()
    if body.endswith("/"):
        return True, body[:-1].strip()
    return False, body.strip()


def tokens(text: str) -> list[Token]:
    """Every tag-shaped token of ``text`` in order, in time linear in ``len(text)``."""
    out = []
    for m in _TOKEN.finditer(text):
        tail = _tail(m.group(3))
        if tail is not None:
            out.append(Token(m.group(2).upper(), m.start(), m.end(), bool(m.group(1)),
                             tail[0], tail[1]))
    return out


def _names(names: Iterable[str]) -> frozenset[str]:
    return frozenset(n.upper() for n in names)


@dataclass(frozen=True)
class Grammar:
    """Which tag names a reply may hold and what kind each is (see the module docstring).

    Names are case-insensitive. ``once``: tags that may occur at most once; ``exclusive``:
    groups of which at most one member may occur; ``nest``: tags that may stand inside a
    given element's body as elements of their own.
    """

    text: frozenset[str] = FREE_TEXT
    data: frozenset[str] = frozenset()
    markers: frozenset[str] = frozenset()
    loose: frozenset[str] = frozenset()
    once: frozenset[str] = frozenset()
    exclusive: tuple[frozenset[str], ...] = ()
    nest: Mapping[str, frozenset[str]] = field(default_factory=dict)
    private: frozenset[str] = PRIVATE
    private_until_next: bool = False

    @classmethod
    def of(cls, *, text: Iterable[str] = FREE_TEXT, data: Iterable[str] = (),
           markers: Iterable[str] = (), loose: Iterable[str] = (), once: Iterable[str] = (),
           exclusive: Iterable[Iterable[str]] = (),
           nest: Mapping[str, Iterable[str]] | None = None, private: Iterable[str] = PRIVATE,
           private_until_next: bool = False) -> Grammar:
        """A grammar from plain iterables of names (normalised to upper case)."""
        gram = cls(_names(text), _names(data), _names(markers), _names(loose), _names(once),
                   tuple(_names(g) for g in exclusive),
                   {k.upper(): _names(v) for k, v in (nest or {}).items()}, _names(private),
                   private_until_next)
        kinds = [gram.text, gram.data, gram.markers, gram.loose, gram.private]
        seen: set[str] = set()
        for group in kinds:
            clash = seen & group
            if clash:
                raise ValueError(f"tag(s) {sorted(clash)} given two kinds")
            seen |= group
        return gram

    @property
    def public_names(self) -> frozenset[str]:
        """Every non-private name of the grammar."""
        return self.text | self.data | self.markers | self.loose

    def kind(self, name: str) -> str:
        """``text``, ``data``, ``marker``, ``loose`` or ``private`` for a known name."""
        for kind, names in (("text", self.text), ("data", self.data),
                            ("marker", self.markers), ("loose", self.loose),
                            ("private", self.private)):
            if name in names:
                return kind
        raise KeyError(name)


PRIVATE_ONLY = Grammar.of(text=())
"""A grammar that knows only the private blocks (for stripping them from any text)."""


@dataclass(frozen=True)
class Tag:
    """One element of a reply: its upper-case name, public body and place in the text.

    ``body`` is ``None`` for a marker and ``""`` for a self-closing element; otherwise the
    text between the tags with private blocks removed (not stripped). ``closed`` is False
    for an element whose closing tag is missing. ``children`` are elements nested by
    :attr:`Grammar.nest`.
    """

    name: str
    body: str | None
    start: int
    end: int
    closed: bool = True
    attrs: str = ""
    children: tuple[Tag, ...] = ()

    @property
    def text(self) -> str:
        """The body stripped of surrounding whitespace (``""`` for a marker)."""
        return (self.body or "").strip()


@dataclass(frozen=True)
class TagError:
    """A structural fault: ``code``, the tags involved and feedback for the model."""

    code: ErrorCode
    tags: tuple[str, ...]
    feedback: str


@dataclass(frozen=True)
class Parsed:
    """A reply split by a :class:`Grammar`."""

    tags: tuple[Tag, ...]
    public: str
    outside: str
    private: tuple[str, ...] = ()
    strays: tuple[str, ...] = ()
    errors: tuple[TagError, ...] = ()

    def private_bodies(self) -> list[str]:
        """The text of each private block without its tags, stripped."""
        out = []
        for block in self.private:
            found = tokens(block)
            head = found[0] if found and found[0].start == 0 else None
            body = block[head.end:] if head else block
            shift = head.end if head else 0
            last = found[-1] if found else None
            if (last is not None and last is not head and last.closing
                    and last.end - shift == len(body.rstrip())):
                body = body[:last.start - shift]
            out.append(body.strip())
        return out

    def walk(self) -> list[Tag]:
        """Every element, nested ones included, in document order."""
        out: list[Tag] = []

        def visit(tags: Iterable[Tag]) -> None:
            for t in tags:
                out.append(t)
                visit(t.children)

        visit(self.tags)
        return out

    def all(self, name: str) -> list[Tag]:
        """Every element called ``name`` (nested ones included), in document order."""
        wanted = name.upper()
        return [t for t in self.walk() if t.name == wanted]

    def first(self, name: str) -> Tag | None:
        """The first element called ``name``, or ``None``."""
        found = self.all(name)
        return found[0] if found else None

    def has(self, name: str) -> bool:
        """Whether an element called ``name`` occurs."""
        return self.first(name) is not None

    def error(self, *codes: ErrorCode) -> TagError | None:
        """The first error (of one of ``codes`` when given), or ``None``."""
        for err in self.errors:
            if not codes or err.code in codes:
                return err
        return None

    def unclosed(self) -> list[str]:
        """Names of the elements whose closing tag is missing."""
        return [t.name for t in self.walk() if not t.closed and t.name]


class _Scan:
    """One pass over a reply's tokens; every lookup is a binary search (linear overall)."""

    def __init__(self, text: str, grammar: Grammar, known: frozenset[str]) -> None:
        self.text, self.grammar, self.known = text, grammar, known
        self.toks = [t for t in tokens(text) if t.name in known]
        self.starts: dict[str, list[int]] = {}  # token indices by name
        self.closes: dict[str, list[int]] = {}  # indices of proper closing tags by name
        for i, t in enumerate(self.toks):
            self.starts.setdefault(t.name, []).append(i)
            if t.closing and not t.selfclosing:
                self.closes.setdefault(t.name, []).append(i)
        self.at = [t.start for t in self.toks]
        self.private: dict[int, str] = {}  # by start: bodies are rescanned
        self.strays: list[str] = []
        self.cut: list[tuple[int, int]] = []  # private spans of the text
        self.unclosed_private: list[str] = []

    def _first(self, index: list[int], pos: int, end: int) -> Token | None:
        k = bisect.bisect_left(self.at, pos)
        j = bisect.bisect_left(index, k)
        if j == len(index):
            return None
        t = self.toks[index[j]]
        return t if t.start < end else None

    def token(self, pos: int, end: int, names: Iterable[str]) -> Token | None:
        """The next tag token in ``text[pos:end]`` whose name is one of ``names``."""
        best: Token | None = None
        for name in names:
            index = self.starts.get(name)
            if index is None:
                continue
            t = self._first(index, pos, end)
            if t is not None and (best is None or t.start < best.start):
                best = t
        return best

    def close_of(self, name: str, pos: int, end: int) -> Token | None:
        """The first closing tag of ``name`` in ``text[pos:end]``."""
        index = self.closes.get(name)
        return None if index is None else self._first(index, pos, end)

    def skip_private(self, m: Token, end: int, *, until_next: bool, top: bool) -> int:
        """Record the private block opened at ``m``; the position after it.

        An unclosed block at the top level (``top``) is recorded as an error: it could hide
        a move. Inside a body it ends with that body (whose closing tag bounds it).
        """
        close = None if m.selfclosing else self.close_of(m.name, m.end, end)
        if close is not None:
            stop = close.end
        else:
            if top and not m.selfclosing:
                self.unclosed_private.append(m.name)
            if until_next and (nxt := self.token(m.end, end, self.grammar.public_names)):
                stop = nxt.start
            else:
                stop = end
        self.private.setdefault(m.start, self.text[m.start:stop])
        self.cut.append((m.start, stop))
        return stop

    def body(self, start: int, end: int) -> str:
        """``text[start:end]`` without private blocks (an unclosed one runs to ``end``)."""
        pieces, pos = [], start
        while (m := self.token(pos, end, self.grammar.private)) is not None:
            pieces.append(self.text[pos:m.start])
            if m.closing:  # a stray closing tag of a private block
                self.cut.append((m.start, m.end))
                pos = m.end
            else:
                pos = self.skip_private(m, end, until_next=False, top=False)
        pieces.append(self.text[pos:end])
        return "".join(pieces)

    def element(self, m: Token, end: int) -> Tag:
        """The element opened by token ``m`` (not private, not a closing tag)."""
        name, attrs = m.name, m.attrs
        kind = self.grammar.kind(name)
        if kind == "marker":
            return Tag(name, None, m.start, m.end, attrs=attrs)
        if m.selfclosing:  # <MESSAGE/>: an empty element
            return Tag(name, "", m.start, m.end, attrs=attrs)
        inner = self.grammar.nest.get(name, frozenset())
        pos, children = m.end, list[Tag]()
        # without a closing tag the element is unclosed: no need to walk the tokens to the
        # end (for each of many loose openers that walk would be quadratic); only nested
        # children (``nest``) of an unclosed element need the walk
        closes = (kind != "loose" and bool(inner)) or self.close_of(name, m.end, end) is not None
        names = inner | {name}
        while closes and (t := self.token(pos, end, names)) is not None:
            if t.name == name and t.closing and not t.selfclosing:
                return Tag(name, self.body(m.end, t.start), m.start, t.end,
                           attrs=attrs, children=tuple(children))
            if t.name in inner and not t.closing:
                child = self.element(t, end)
                children.append(child)
                pos = child.end
            else:
                pos = t.end
        if kind == "loose":  # the body ends at the next tag of the grammar
            nxt = self.token(m.end, end, self.grammar.public_names)
            stop = end if nxt is None else nxt.start
            return Tag(name, self.body(m.end, stop), m.start, stop, closed=False,
                       attrs=attrs)
        return Tag(name, self.body(m.end, end), m.start, end, closed=False, attrs=attrs,
                   children=tuple(children))

    def run(self, start: int, end: int) -> tuple[list[Tag], list[tuple[int, int]]]:
        """Top-level elements of ``text[start:end]`` and the spans of outside text."""
        tags: list[Tag] = []
        outside: list[tuple[int, int]] = []
        pos = start
        while (m := self.token(pos, end, self.known)) is not None:
            outside.append((pos, m.start))
            name = m.name
            if name in self.grammar.private:
                if m.closing:  # a stray closing tag of a private block: dropped
                    self.cut.append((m.start, m.end))
                    pos = m.end
                else:
                    pos = self.skip_private(m, end, until_next=self.grammar.private_until_next,
                                            top=True)
                continue
            if m.closing:  # a closing tag without its opening tag
                if name not in self.grammar.markers:
                    self.strays.append(name)
                pos = m.end
                continue
            tag = self.element(m, end)
            tags.append(tag)
            pos = tag.end
        outside.append((pos, end))
        return tags, outside


def _public(text: str, cut: list[tuple[int, int]]) -> str:
    pieces, pos = [], 0
    for a, b in sorted(cut):
        if a >= pos:
            pieces.append(text[pos:a])
        pos = max(pos, b)
    pieces.append(text[pos:])
    return "".join(pieces)


def _errors(parsed: Parsed, grammar: Grammar, unclosed_private: Iterable[str]
            ) -> list[TagError]:
    every = parsed.walk()
    errors = [TagError("unclosed", (name,), f"Your <{name}> block is not closed: write "
                       f"<{name}>...</{name}>. Everything after it is private and makes "
                       "no move.")
              for name in dict.fromkeys(unclosed_private)]
    errors += [TagError("unclosed", (t.name,), f"Your <{t.name}> tag is not closed: write "
                        f"<{t.name}>...</{t.name}>.")
               for t in every if not t.closed and t.name not in grammar.loose]
    names = [t.name for t in every]
    for name in sorted(grammar.once):
        n = names.count(name)
        if n > 1:
            errors.append(TagError("duplicate", (name,), f"Give at most one <{name}>; you "
                                   f"gave {n}."))
    for group in grammar.exclusive:
        present = [n for n in dict.fromkeys(names) if n in group]
        if len(present) > 1:
            shown = " and ".join(f"<{n}>" for n in present)
            errors.append(TagError("conflict", tuple(present), f"{shown} contradict each "
                                   "other: use only one of them."))
    return errors


def parse_tags(text: str, grammar: Grammar, *, max_chars: int | Literal["default"] | None
               = "default") -> Parsed:
    """Split ``text`` into elements by ``grammar`` (see the module docstring for the rules).

    Runs in time linear in ``len(text)``. A text longer than ``max_chars`` is not read: the
    result holds no element, no public text and one ``too_long`` error (``"default"``:
    :data:`MAX_REPLY_CHARS`; ``None``: no cap).
    """
    if max_chars == "default":
        max_chars = MAX_REPLY_CHARS
    if max_chars is not None and len(text) > max_chars:
        return Parsed((), "", "", errors=(TagError("too_long", (), too_long_feedback(
            len(text), max_chars)),))
    scan = _Scan(text, grammar, grammar.public_names | grammar.private)
    tags, outside_spans = scan.run(0, len(text))
    outside = "".join(text[a:b] for a, b in outside_spans)
    parsed = Parsed(tuple(tags), _public(text, scan.cut).strip(), outside.strip(),
                    tuple(scan.private[k] for k in sorted(scan.private)), tuple(scan.strays))
    return dataclasses.replace(parsed, errors=tuple(_errors(parsed, grammar,
                                                            scan.unclosed_private)))


def too_long_feedback(length: int, limit: int) -> str:
    """Feedback for a reply of ``length`` characters over the ``limit``."""
    return (f"Your reply is {length:,} characters long; the limit is {limit:,}. Reply "
            "briefly, with just the tags this turn asks for.")


def strip_private(text: str, private: Iterable[str] = PRIVATE) -> str:
    """``text`` without private blocks, wherever they stand (an unclosed one runs to the end)."""
    gram = PRIVATE_ONLY if set(private) == PRIVATE else Grammar.of(text=(), private=private)
    return parse_tags(text, gram, max_chars=None).public


__all__ = ["FREE_TEXT", "MAX_REPLY_CHARS", "PRIVATE", "PRIVATE_ONLY", "Grammar", "Parsed",
           "Tag", "TagError", "Token", "parse_tags", "strip_private", "tokens",
           "too_long_feedback"]
