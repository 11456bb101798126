"""Loading the Deal-or-No-Deal dialogues (Lewis et al., 2017) from the test/val line format.

One line is one side's view of a dialogue::

    <input> c0 v0 c1 v1 c2 v2 </input> <dialogue> YOU: ... <eos> THEM: ... <eos> YOU: <selection>
    </dialogue> <output> item0=a item1=b item2=c item0=d item1=e item2=f </output>
    <partner_input> c0 w0 c1 w1 c2 w2 </partner_input>

Most dialogues appear twice, once from each side. :func:`pair_views` joins the two views
of one dialogue into a single :class:`Datapoint` whose ``alice`` is the side whose view
comes first in the file. The data is CC BY-NC 4.0 and is read from a path, never copied
into the repository.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from accord.core.safeload import LoadError, clip, read_text, short
from accord.domains.deal_or_no_deal.budget import (
    MAX_FILE_ALLOCATIONS,
    allocation_count,
    space_problem,
)

ITEMS: tuple[str, ...] = ("book", "hat", "ball")
"""Item names in data order: ``item0`` = book, ``item1`` = hat, ``item2`` = ball."""

OutcomeKind = Literal["agreement", "disagree", "no_agreement", "disconnect"]
Speaker = Literal["alice", "bob"]
Vector = tuple[int, ...]

_FAILURES: dict[str, OutcomeKind] = {
    "<disagree>": "disagree",
    "<no_agreement>": "no_agreement",
    "<disconnect>": "disconnect",
}
_LINE = re.compile(
    r"^<input>(?P<input>[^<]*)</input>\s*<dialogue>(?P<dialogue>.*)</dialogue>\s*"
    r"<output>(?P<output>.*)</output>\s*<partner_input>(?P<partner>[^<]*)</partner_input>\s*$"
)
_SHARE_TOKEN = re.compile(r"^item(\d)=(\d+)$")
#: longest line read (the longest line of the real data is under 2,000 characters)
MAX_LINE = 100_000
#: largest item count or value (the real data has counts 1-4 and values 0-10)
MAX_QUANTITY = 1_000_000


class DataFormatError(ValueError):
    """A line of a data file that does not parse; the message names file, line and problem."""

    def __init__(self, path: str, line: int, problem: str) -> None:
        path, problem = clip(str(path)), clip(problem, 800)
        super().__init__(f"{path}:{line}: {problem}" if line else f"{path}: {problem}")
        self.path = path
        self.line = line
        self.problem = problem


@dataclass(frozen=True, slots=True)
class Turn:
    """One utterance of the human dialogue."""

    speaker: Speaker
    text: str


@dataclass(frozen=True, slots=True)
class Outcome:
    """The human outcome: ``agreement`` with both shares, or one of the failure kinds."""

    kind: OutcomeKind
    alice: Vector | None = None
    bob: Vector | None = None

    @property
    def agreed(self) -> bool:
        """True when the humans reached a deal."""
        return self.kind == "agreement"


@dataclass(frozen=True, slots=True)
class View:
    """One parsed line: a dialogue seen by ``YOU`` (``you`` values) facing ``THEM``."""

    path: str
    line: int
    counts: Vector
    you: Vector
    them: Vector
    turns: tuple[tuple[str, str], ...]
    selection_by: str
    outcome: OutcomeKind
    you_share: Vector | None
    them_share: Vector | None

    def key(self) -> tuple[object, ...]:
        """Identity of the dialogue from this side."""
        return (self.counts, self.you, self.them, self.turns)

    def mirror_key(self) -> tuple[object, ...]:
        """The key the other side's view of the same dialogue has."""
        swap = {"YOU": "THEM", "THEM": "YOU"}
        return (self.counts, self.them, self.you, tuple((swap[s], t) for s, t in self.turns))


@dataclass(frozen=True, slots=True)
class Datapoint:
    """One unique dialogue: item counts, both sides' values, turns and the human outcome.

    ``id`` is ``<split>/<index>`` in file order of unique dialogues; ``lines`` are the
    1-based line numbers of the views it was built from (one or two).
    """

    id: str
    counts: Vector
    alice: Vector
    bob: Vector
    turns: tuple[Turn, ...]
    outcome: Outcome
    source: str
    lines: tuple[int, ...]

    def values(self, role: Speaker) -> Vector:
        """The per-unit values of ``role``."""
        return self.alice if role == "alice" else self.bob

    @property
    def first_speaker(self) -> Speaker:
        """Who spoke first in the human dialogue (``alice`` when there are no turns)."""
        return self.turns[0].speaker if self.turns else "alice"


def _ints(path: str, line: int, field: str, text: str) -> Vector:
    parts = text.split()
    if len(parts) != 2 * len(ITEMS):
        raise DataFormatError(path, line, f"<{field}> must hold {2 * len(ITEMS)} integers "
                                          f"(count value per item), got {len(parts)}")
    try:
        nums = tuple(int(p) for p in parts)
    except ValueError:
        raise DataFormatError(path, line,
                              f"<{field}> holds a non-integer: {short(text.strip())}") from None
    if any(n < 0 for n in nums):
        raise DataFormatError(path, line, f"<{field}> holds a negative number: "
                                          f"{short(text.strip())}")
    if any(n > MAX_QUANTITY for n in nums):
        raise DataFormatError(path, line, f"<{field}> holds a number above {MAX_QUANTITY:,}: "
                                          f"{short(text.strip())}")
    return nums


def _turns(path: str, line: int, text: str) -> tuple[tuple[tuple[str, str], ...], str]:
    segments = [s.strip() for s in text.split("<eos>")]
    if len(segments) > 1 and not segments[-1]:
        segments.pop()  # a dialogue cut off after its last <eos>
    out: list[tuple[str, str]] = []
    for seg in segments:
        speaker, colon, said = seg.partition(":")
        if not colon or speaker not in ("YOU", "THEM"):
            raise DataFormatError(path, line, f"dialogue segment {short(seg[:40])} does not start "
                                              "with 'YOU:' or 'THEM:'")
        out.append((speaker, said.strip()))
    if not out or out[-1][1] != "<selection>":
        raise DataFormatError(path, line, "dialogue does not end with '<selection>'")
    return tuple(out[:-1]), out[-1][0]


def _output(path: str, line: int, text: str, counts: Vector
            ) -> tuple[OutcomeKind, Vector | None, Vector | None]:
    toks = text.split()
    if len(toks) != 2 * len(ITEMS):
        raise DataFormatError(path, line, f"<output> must hold 6 tokens, got {len(toks)}")
    if toks[0] in _FAILURES:
        if any(t != toks[0] for t in toks):
            raise DataFormatError(path, line, f"<output> mixes failure tokens: "
                                              f"{short(text.strip())}")
        return _FAILURES[toks[0]], None, None
    shares: list[int] = []
    for pos, tok in enumerate(toks):
        m = _SHARE_TOKEN.match(tok)
        if m is None or int(m.group(1)) != pos % len(ITEMS):
            raise DataFormatError(path, line, f"<output> token {short(tok)} at position {pos + 1} "
                                              f"should read item{pos % len(ITEMS)}=N")
        shares.append(int(m.group(2)))
    you, them = tuple(shares[:3]), tuple(shares[3:])
    if tuple(a + b for a, b in zip(you, them, strict=True)) != counts:
        raise DataFormatError(path, line, f"<output> shares {you} + {them} do not add up to the "
                                          f"item counts {counts}")
    return "agreement", you, them


def parse_line(text: str, path: str = "<string>", line: int = 1) -> View:
    """Parse one line of test.txt / val.txt into a :class:`View`.

    Raises :class:`DataFormatError` naming ``path`` and ``line`` when the line is malformed.
    """
    m = _LINE.match(text.strip())
    if m is None:
        raise DataFormatError(path, line, "line does not match '<input> ... </input> <dialogue> "
                                          "... </dialogue> <output> ... </output> <partner_input>"
                                          " ... </partner_input>'")
    inp = _ints(path, line, "input", m.group("input"))
    partner = _ints(path, line, "partner_input", m.group("partner"))
    counts = inp[0::2]
    if partner[0::2] != counts:
        raise DataFormatError(path, line, f"item counts differ between <input> {counts} and "
                                          f"<partner_input> {partner[0::2]}")
    if any(c <= 0 for c in counts):
        raise DataFormatError(path, line, f"item counts must be positive, got {counts}")
    you, them = inp[1::2], partner[1::2]
    tot_you = sum(c * v for c, v in zip(counts, you, strict=True))
    tot_them = sum(c * v for c, v in zip(counts, them, strict=True))
    if tot_you != tot_them:
        raise DataFormatError(path, line, f"the two sides' total values differ ({tot_you} vs "
                                          f"{tot_them}); Definition 9 needs a common total")
    too_large = space_problem(counts, tot_you)
    if too_large is not None:
        raise DataFormatError(path, line, too_large)
    turns, selection_by = _turns(path, line, m.group("dialogue"))
    kind, you_share, them_share = _output(path, line, m.group("output"), counts)
    return View(path, line, counts, you, them, turns, selection_by, kind, you_share, them_share)


def read_views(path: str | Path) -> list[View]:
    """Parse every non-empty line of one file; errors name the file and line number.

    The file is read by :mod:`accord.core.safeload` (a regular UTF-8 file within the size
    cap); a line longer than :data:`MAX_LINE` characters and a file without a single
    dialogue are errors too.
    """
    p = Path(path)
    try:
        text = read_text(p)
    except LoadError as exc:
        raise DataFormatError(exc.source, exc.line or 0, exc.problem) from None
    views: list[View] = []
    work = 0  # allocations summed over the file (see accord.domains.deal_or_no_deal.budget)
    for num, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
        if len(line) > MAX_LINE:
            raise DataFormatError(str(p), num, f"line of {len(line):,} characters; a dialogue "
                                               f"line has at most {MAX_LINE:,}")
        if line.strip():
            view = parse_line(line, str(p), num)
            work += allocation_count(view.counts)
            if work > MAX_FILE_ALLOCATIONS:
                raise DataFormatError(str(p), num, f"the dialogues up to this line have "
                                                   f"{work:,} allocations in all; a file may "
                                                   f"have at most {MAX_FILE_ALLOCATIONS:,} (the "
                                                   "real test.txt has ~24,000)")
            views.append(view)
    if not views:
        raise DataFormatError(str(p), 0, "the file holds no dialogues (it is empty or blank); "
                                         "expected lines like '<input> ... </partner_input>'")
    return views


def _datapoint(ident: str, first: View, second: View | None) -> Datapoint:
    who = {"YOU": "alice", "THEM": "bob"}
    turns = tuple(Turn(who[s], t) for s, t in first.turns)  # type: ignore[arg-type]
    if first.outcome == "agreement":
        outcome = Outcome("agreement", first.you_share, first.them_share)
    else:
        outcome = Outcome(first.outcome)
    lines = (first.line,) if second is None else (first.line, second.line)
    return Datapoint(ident, first.counts, first.you, first.them, turns, outcome, first.path, lines)


def pair_views(views: Sequence[View], split: str) -> list[Datapoint]:
    """Join the two views of each dialogue and drop duplicates; file order is kept.

    Views pair when counts match, values and speakers are swapped and the utterances agree.
    Two views of one dialogue whose outcomes do not mirror each other are an error. A view
    whose twin is missing becomes a datapoint of its own.
    """
    open_by_mirror: dict[tuple[object, ...], list[int]] = {}
    partner: dict[int, int] = {}
    seen: set[tuple[object, ...]] = set()
    dropped: set[int] = set()
    for i, view in enumerate(views):
        waiting = open_by_mirror.get(view.key())
        if waiting:
            j = waiting.pop(0)
            first = views[j]
            if (first.outcome, first.you_share, first.them_share) != (
                    view.outcome, view.them_share, view.you_share):
                raise DataFormatError(view.path, view.line, f"outcome does not mirror line "
                                                            f"{first.line}, its other view")
            partner[j] = i
            dropped.add(i)
            continue
        if view.key() in seen:  # an exact repeat of a view already taken
            dropped.add(i)
            continue
        seen.add(view.key())
        open_by_mirror.setdefault(view.mirror_key(), []).append(i)
    out: list[Datapoint] = []
    for i, view in enumerate(views):
        if i in dropped:
            continue
        twin = partner.get(i)
        out.append(_datapoint(f"{split}/{len(out)}", view, None if twin is None else views[twin]))
    return out


def load_split(path: str | Path, split: str | None = None) -> list[Datapoint]:
    """Load one file (``test.txt``, ``val.txt``) into unique datapoints.

    ``split`` names the ids (``test/0``, ...); by default it is the file's stem.
    """
    p = Path(path)
    return pair_views(read_views(p), split or p.stem)


def datapoints_by_id(points: Iterable[Datapoint]) -> dict[str, Datapoint]:
    """Index datapoints by ``id``."""
    return {d.id: d for d in points}
