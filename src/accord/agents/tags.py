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

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

PRIVATE: frozenset[str] = frozenset({"THINK", "CONSIDER"})
"""Private reasoning blocks: removed before anything leaves the agent."""

FREE_TEXT: frozenset[str] = frozenset({"MESSAGE", "REASON", "RATIONALE", "EXPLANATION",
                                       "STRATEGY", "NOTE", "COMMENT"})
"""Free-text blocks every grammar knows unless told otherwise: their bodies are opaque."""

ErrorCode = Literal["unclosed", "duplicate", "conflict"]

_TOKEN = re.compile(r"<\s*(/)?\s*([A-Za-z][\w-]*)(\s+[^<>]*?)?\s*(/)?\s*>")


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
            head = _TOKEN.match(block)
            body = block[head.end():] if head else block
            tail = list(_TOKEN.finditer(body))
            if tail and tail[-1].group(1) and tail[-1].end() == len(body.rstrip()):
                body = body[:tail[-1].start()]
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


@dataclass
class _Scan:
    text: str
    grammar: Grammar
    known: frozenset[str]
    private: dict[int, str] = field(default_factory=dict)  # by start: bodies are rescanned
    strays: list[str] = field(default_factory=list)
    cut: list[tuple[int, int]] = field(default_factory=list)  # private spans of the text

    def token(self, pos: int, end: int, names: frozenset[str]) -> re.Match[str] | None:
        """The next tag token in ``text[pos:end]`` whose name is one of ``names``."""
        while True:
            m = _TOKEN.search(self.text, pos, end)
            if m is None or m.group(2).upper() in names:
                return m
            pos = m.start() + 1

    def close_of(self, name: str, pos: int, end: int) -> re.Match[str] | None:
        """The first closing tag of ``name`` in ``text[pos:end]``."""
        while (m := self.token(pos, end, frozenset({name}))) is not None:
            if m.group(1) and not m.group(4):
                return m
            pos = m.end()
        return None

    def skip_private(self, m: re.Match[str], end: int, *, until_next: bool) -> int:
        """Record the private block opened at ``m``; the position after it."""
        name = m.group(2).upper()
        close = None if m.group(4) else self.close_of(name, m.end(), end)
        if close is not None:
            stop = close.end()
        elif until_next and (nxt := self.token(m.end(), end, self.grammar.public_names)):
            stop = nxt.start()
        else:
            stop = end
        self.private.setdefault(m.start(), self.text[m.start():stop])
        self.cut.append((m.start(), stop))
        return stop

    def body(self, start: int, end: int) -> str:
        """``text[start:end]`` without private blocks (an unclosed one runs to ``end``)."""
        pieces, pos = [], start
        while (m := self.token(pos, end, self.grammar.private)) is not None:
            pieces.append(self.text[pos:m.start()])
            if m.group(1):  # a stray closing tag of a private block
                self.cut.append((m.start(), m.end()))
                pos = m.end()
            else:
                pos = self.skip_private(m, end, until_next=False)
        pieces.append(self.text[pos:end])
        return "".join(pieces)

    def element(self, m: re.Match[str], end: int) -> Tag:
        """The element opened by token ``m`` (not private, not a closing tag)."""
        name, attrs = m.group(2).upper(), (m.group(3) or "").strip()
        kind = self.grammar.kind(name)
        if kind == "marker":
            return Tag(name, None, m.start(), m.end(), attrs=attrs)
        if m.group(4):  # <MESSAGE/>: an empty element
            return Tag(name, "", m.start(), m.end(), attrs=attrs)
        inner = self.grammar.nest.get(name, frozenset())
        pos, children = m.end(), list[Tag]()
        while (t := self.token(pos, end, inner | {name})) is not None:
            tname, closing, selfclosing = t.group(2).upper(), t.group(1), t.group(4)
            if tname == name and closing and not selfclosing:
                return Tag(name, self.body(m.end(), t.start()), m.start(), t.end(),
                           attrs=attrs, children=tuple(children))
            if tname in inner and not closing:
                child = self.element(t, end)
                children.append(child)
                pos = child.end
            else:
                pos = t.end()
        if kind == "loose":  # the body ends at the next tag of the grammar
            nxt = self.token(m.end(), end, self.grammar.public_names)
            stop = end if nxt is None else nxt.start()
            return Tag(name, self.body(m.end(), stop), m.start(), stop, closed=False,
                       attrs=attrs)
        return Tag(name, self.body(m.end(), end), m.start(), end, closed=False, attrs=attrs,
                   children=tuple(children))

    def run(self, start: int, end: int) -> tuple[list[Tag], list[tuple[int, int]]]:
        """Top-level elements of ``text[start:end]`` and the spans of outside text."""
        tags: list[Tag] = []
        outside: list[tuple[int, int]] = []
        pos = start
        while (m := self.token(pos, end, self.known)) is not None:
            outside.append((pos, m.start()))
            name = m.group(2).upper()
            if name in self.grammar.private:
                if m.group(1):  # a stray closing tag of a private block: dropped
                    self.cut.append((m.start(), m.end()))
                    pos = m.end()
                else:
                    pos = self.skip_private(m, end, until_next=self.grammar.private_until_next)
                continue
            if m.group(1):  # a closing tag without its opening tag
                if name not in self.grammar.markers:
                    self.strays.append(name)
                pos = m.end()
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


def _errors(parsed: Parsed, grammar: Grammar) -> list[TagError]:
    every = parsed.walk()
    errors = [TagError("unclosed", (t.name,), f"Your <{t.name}> tag is not closed: write "
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


def parse_tags(text: str, grammar: Grammar) -> Parsed:
    """Split ``text`` into elements by ``grammar`` (see the module docstring for the rules)."""
    scan = _Scan(text, grammar, grammar.public_names | grammar.private)
    tags, outside_spans = scan.run(0, len(text))
    outside = "".join(text[a:b] for a, b in outside_spans)
    parsed = Parsed(tuple(tags), _public(text, scan.cut).strip(), outside.strip(),
                    tuple(scan.private[k] for k in sorted(scan.private)), tuple(scan.strays))
    return dataclasses.replace(parsed, errors=tuple(_errors(parsed, grammar)))


def strip_private(text: str, private: Iterable[str] = PRIVATE) -> str:
    """``text`` without private blocks, wherever they stand (an unclosed one runs to the end)."""
    gram = PRIVATE_ONLY if set(private) == PRIVATE else Grammar.of(text=(), private=private)
    return parse_tags(text, gram).public


__all__ = ["FREE_TEXT", "PRIVATE", "PRIVATE_ONLY", "Grammar", "Parsed", "Tag", "TagError",
           "parse_tags", "strip_private"]
