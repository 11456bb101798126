"""The budgets of :mod:`accord.core.safeload`: limits, the load error, short echoes.

Shared by the YAML and JSON readers (and by loaders that check numbers they got from
elsewhere): :class:`Limits`, :class:`LoadError`, :class:`Document`, :func:`clip` and
:func:`short` (error messages never echo more than ~:data:`MAX_ECHO` characters of
input), and :func:`check_data` (depth and number rules over parsed data).
"""

from __future__ import annotations

import math
import os
import reprlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

#: largest input file (bytes) read by default; ``ACCORD_MAX_INPUT_BYTES`` overrides it
MAX_BYTES = 16 * 1024 * 1024
#: largest YAML file (bytes): PyYAML's pure-Python parser manages ~100-300 KB/s
MAX_YAML_BYTES = 1024 * 1024
#: deepest nesting of mappings and lists
MAX_DEPTH = 100
#: alias uses (``*name``) per document
MAX_ALIASES = 100
#: nodes that alias uses may add when the document is expanded
MAX_ALIAS_NODES = 10_000
#: largest magnitude of a number (2^53 is ~9.007e15: beyond it floats skip integers)
MAX_NUMBER = 1e15
#: smallest magnitude of a non-zero number
MIN_NUMBER = 1e-15
#: characters of an input value an error message may quote
MAX_ECHO = 200
#: longest name (scenario, run, file stem) accepted where a name is looked up
MAX_NAME = 200
#: environment variable that raises both file-size caps (bytes)
SIZE_ENV = "ACCORD_MAX_INPUT_BYTES"
#: longest number literal parsed at all (longer ones are refused unparsed)
MAX_LITERAL = 64

KeyPath = tuple[str | int, ...]


@dataclass(frozen=True)
class Limits:
    """The budgets of one load (defaults: the module constants)."""

    max_bytes: int = MAX_BYTES
    max_yaml_bytes: int = MAX_YAML_BYTES
    max_depth: int = MAX_DEPTH
    max_aliases: int = MAX_ALIASES
    max_alias_nodes: int = MAX_ALIAS_NODES
    max_number: float = MAX_NUMBER
    min_number: float = MIN_NUMBER

    @classmethod
    def default(cls, env: Mapping[str, str] | None = None) -> Limits:
        """The defaults, with both size caps raised by ``$ACCORD_MAX_INPUT_BYTES``."""
        raw = (os.environ if env is None else env).get(SIZE_ENV, "").strip()
        if raw.isdigit() and int(raw) > 0:
            return cls(max_bytes=int(raw), max_yaml_bytes=int(raw))
        return cls()


def format_key(path: Iterable[str | int]) -> str:
    """``parties.buyer.utility.weights`` / ``agents[1][0]`` from a key path tuple."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return clip(out) or "<root>"


def clip(text: str, limit: int = MAX_ECHO) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit} more characters)"


_REPR = reprlib.Repr()
_REPR.maxstring = MAX_ECHO // 2
_REPR.maxother = MAX_ECHO // 2
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 8
_REPR.maxlevel = 3
_REPR.maxlong = 40


def short(value: Any, limit: int = MAX_ECHO) -> str:
    """A repr of ``value`` that never exceeds ~``limit`` characters (nor walks it whole)."""
    return clip(_REPR.repr(value), limit)


class LoadError(ValueError):
    """An input file that breaks a budget or does not parse: file, line, key and problem.

    Loaders turn it into their own error class (``ScenarioError``, ``ConfigError`` ...)
    with the same fields, so callers catch one class per loader.
    """

    def __init__(self, source: str, problem: str, key: KeyPath = (),
                 line: int | None = None, stage: str = "parse",
                 column: int | None = None) -> None:
        self.column = column
        self.stage = stage  # "read": the file itself (size, type, encoding); else "parse"
        self.source = clip(str(source))
        self.problem = clip(problem, 4 * MAX_ECHO)
        self.key = key
        self.line = line
        where = f"{self.source}:{line}" if line else self.source
        super().__init__(f"{where}: {format_key(key) + ': ' if key else ''}{self.problem}")

    def key_text(self, syntax: str = "<file>") -> str:
        """The key path as text; ``<file>`` for a read problem, ``syntax`` for a parse one."""
        if self.key:
            return format_key(self.key)
        return "<file>" if self.stage == "read" else syntax

    @property
    def position(self) -> str:
        """``line 3`` / ``line 3 column 7`` / ``""``."""
        if not self.line:
            return ""
        return f"line {self.line}" + (f" column {self.column}" if self.column else "")


@dataclass
class Document:
    """Parsed data plus the 1-based line of every key path (YAML only; JSON has none)."""

    data: Any
    lines: dict[KeyPath, int] = field(default_factory=dict)

    def line(self, path: KeyPath) -> int | None:
        """The line of ``path`` or of its nearest enclosing key."""
        for cut in range(len(path), -1, -1):
            if path[:cut] in self.lines:
                return self.lines[path[:cut]]
        return None


# -- checks on the parsed data -----------------------------------------------------------

def _walk(data: Any) -> Iterator[tuple[KeyPath, int, Any, bool]]:
    """``(path, depth, value, is_key)`` for every value and key; shared objects once."""
    seen: set[int] = set()
    stack: list[tuple[KeyPath, int, Any]] = [((), 0, data)]
    while stack:
        path, depth, value = stack.pop()
        yield path, depth, value, False
        if isinstance(value, dict | list):
            if id(value) in seen:
                continue
            seen.add(id(value))
        if isinstance(value, dict):
            for k, v in value.items():
                sub = (*path, k if isinstance(k, str) else str(k))
                yield sub, depth + 1, k, True
                stack.append((sub, depth + 1, v))
        elif isinstance(value, list):
            stack.extend(((*path, i), depth + 1, v) for i, v in enumerate(value))


def number_problem(value: Any, limits: Limits | None = None) -> str | None:
    """Why ``value`` is not a usable number (non-finite, too large, too small), or None."""
    lim = limits or Limits.default()
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value!r} is not a finite number"
    if abs(value) > lim.max_number:
        return f"{short(value)} is out of range (at most {lim.max_number:g} in magnitude)"
    if value and abs(value) < lim.min_number:
        return (f"{value!r} is too small to mean anything here (below {lim.min_number:g} in "
                "magnitude; write 0)")
    return None


def check_data(doc: Document, source: str, limits: Limits | None = None) -> None:
    """Depth and number budgets over already-parsed data (YAML or JSON)."""
    lim = limits or Limits.default()
    for path, depth, value, is_key in _walk(doc.data):
        if depth >= lim.max_depth:  # depth counts from 0: the root is level 1
            raise LoadError(source, f"nesting deeper than {lim.max_depth} levels", path[:8],
                            doc.line(path))
        problem = number_problem(value, lim)
        if problem is not None:
            raise LoadError(source, ("key " if is_key else "") + problem, path, doc.line(path))


#: memory the whole-space arrays of one scenario may take (bytes); ``ACCORD_MAX_MEMORY_MB``
#: overrides it. Raising ``--max-outcomes`` alone never lifts this budget.
MAX_MEMORY_BYTES = 1024 * 1024 * 1024
#: environment variable that sets the memory budget, in MiB
MEMORY_ENV = "ACCORD_MAX_MEMORY_MB"


def memory_budget(env: Mapping[str, str] | None = None) -> int:
    """The memory budget in bytes: ``$ACCORD_MAX_MEMORY_MB`` MiB when set, else 1 GiB."""
    raw = (os.environ if env is None else env).get(MEMORY_ENV, "").strip()
    if raw.isdigit() and 0 < int(raw) < 2**40:
        return int(raw) * 1024 * 1024
    return MAX_MEMORY_BYTES


def outcome_space_bytes(outcomes: int, issues: int, parties: int) -> int:
    """Estimated peak bytes of the arrays over every outcome that an episode builds.

    The outcome grid (int64, one column per issue) and each party's sorted copy of it,
    plus each party's utilities and ranking (float64 and int64, 8 bytes each, with a
    temporary of the same size). Measured: a 6.25-million-outcome, 4-issue, 2-party
    scenario peaked at ~0.74 GB, this estimate says ~0.9 GB (a safe side).
    """
    return outcomes * (8 * issues * (1 + parties) + 24 * parties)


def outcome_memory_problem(outcomes: int, issues: int, parties: int,
                           env: Mapping[str, str] | None = None) -> str | None:
    """Why a space of ``outcomes`` is over the memory budget, or ``None`` if it fits."""
    need, budget = outcome_space_bytes(outcomes, issues, parties), memory_budget(env)
    if need <= budget:
        return None
    return (f"{outcomes:,} outcomes x {issues} issues x {parties} parties need about "
            f"{_gib(need)} of memory, more than the budget of {_gib(budget)}; use fewer "
            f"issues or values, or raise the budget with {MEMORY_ENV}=N (MiB) if the "
            "machine has the memory")


def _gib(n: int) -> str:
    return f"{n / 2**30:.1f} GiB" if n >= 2**30 else f"{n / 2**20:.0f} MiB"
