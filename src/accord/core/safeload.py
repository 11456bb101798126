"""The one way accord reads a YAML or JSON input file: with budgets, never a traceback.

Every loader of user files (bench specs, bargaining / games / task-exchange / deliberation
scenarios, price tables, Deal-or-No-Deal data) reads through this module, so one set of
rules holds everywhere (issue 12):

* **regular files only**, at most :data:`MAX_BYTES` (16 MiB; YAML :data:`MAX_YAML_BYTES`,
  1 MiB, because pure-Python YAML parses only a few hundred KB a second); devices, pipes
  and directories are refused before a byte is read (``tasks: /dev/zero``);
* **UTF-8** required (a leading BOM is allowed); a message names the file, line and byte;
* **nesting depth** at most :data:`MAX_DEPTH`, checked while composing, before Python's
  recursion limit can be reached;
* **aliases** (``*name``) at most :data:`MAX_ALIASES` uses, and the nodes they add when
  expanded at most :data:`MAX_ALIAS_NODES` ("billion laughs" is refused in linear time);
  an alias inside its own anchor (a cycle) is refused;
* **numbers** finite, at most :data:`MAX_NUMBER` in magnitude and, unless zero, at least
  :data:`MIN_NUMBER` (a number literal longer than 64 characters is refused unparsed);
* **duplicate keys** in one mapping are an error (the second would silently replace the
  first);
* error messages echo at most :data:`MAX_ECHO` characters of any input value.

The budgets live in :class:`Limits`; ``ACCORD_MAX_INPUT_BYTES`` raises both size caps for
users with genuinely large files. Key positions come back with the data
(:class:`Document`), so loaders can name the line of a bad key.
"""

from __future__ import annotations

import json
import math
import os
import reprlib
import stat
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from accord.core.names import unknown_name

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
#: longest number literal parsed at all
_MAX_LITERAL = 64

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


# -- reading ---------------------------------------------------------------------------

def is_file(path: str | os.PathLike[str]) -> bool:
    """``Path.is_file`` that answers False (not OSError) for names too long to exist."""
    try:
        return Path(path).is_file()
    except (OSError, ValueError):
        return False


def exists(path: str | os.PathLike[str]) -> bool:
    """``Path.exists`` that answers False (not OSError) for names too long to exist."""
    try:
        return Path(path).exists()
    except (OSError, ValueError):
        return False


def check_name(name: str, kind: str, limit: int = MAX_NAME) -> str | None:
    """A problem text when ``name`` is too long to be a ``kind`` name, else None."""
    if len(name) > limit:
        return f"{kind} name is {len(name)} characters long; at most {limit}: {short(name)}"
    return None


def read_bytes(path: str | os.PathLike[str], max_bytes: int | None = None) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (default :data:`MAX_BYTES`)."""
    cap = Limits.default().max_bytes if max_bytes is None else max_bytes
    src = os.fspath(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(src, flags)  # O_NONBLOCK: opening a FIFO must not wait for a writer
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise LoadError(src, f"cannot read: {why}", stage="read") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise LoadError(src, "is a directory, not a file", stage="read")
        if not stat.S_ISREG(info.st_mode):
            raise LoadError(src, "is not a regular file (a device, pipe or socket); "
                                 "give the path of a file", stage="read")
        if info.st_size > cap:
            raise LoadError(src, f"file is {info.st_size:,} bytes, more than the limit of "
                                 f"{cap:,}; set {SIZE_ENV} to raise it", stage="read")
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(1 << 20, cap + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > cap:
                raise LoadError(src, f"file grew past the limit of {cap:,} bytes while "
                                     f"being read; set {SIZE_ENV} to raise it", stage="read")
        return b"".join(chunks)
    except OSError as exc:
        raise LoadError(src, f"cannot read: {exc.strerror or exc}", stage="read") from None
    finally:
        os.close(fd)


def decode(data: bytes, source: str) -> str:
    """UTF-8 text of ``data`` (a leading BOM dropped), or a LoadError naming the byte."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise LoadError(source, f"not UTF-8 text: byte 0x{data[exc.start]:02x} at byte "
                                f"offset {exc.start}; save the file as UTF-8", line=line,
                        stage="read") from None


def read_text(path: str | os.PathLike[str], max_bytes: int | None = None) -> str:
    """A regular UTF-8 text file of at most ``max_bytes``, as text."""
    return decode(read_bytes(path, max_bytes), os.fspath(path))


# -- YAML ------------------------------------------------------------------------------

class _Loader(yaml.SafeLoader):
    """SafeLoader that counts depth and aliases while composing and checks literals."""

    def __init__(self, text: str, source: str, limits: Limits) -> None:
        super().__init__(text)
        self.source, self.limits = source, limits
        self.depth = 0
        self.aliases = 0

    def _mark_line(self) -> int | None:
        event = self.peek_event()
        mark = getattr(event, "start_mark", None)
        return None if mark is None else mark.line + 1

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        if self.check_event(yaml.AliasEvent):
            self.aliases += 1
            if self.aliases > self.limits.max_aliases:
                raise LoadError(self.source, f"more than {self.limits.max_aliases} alias uses "
                                f"(*name); write the data out instead", line=self._mark_line())
            return super().compose_node(parent, index)
        if self.depth >= self.limits.max_depth:
            raise LoadError(self.source, f"nesting deeper than {self.limits.max_depth} levels",
                            line=self._mark_line())
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def fetch_flow_collection_start(self, token_class: Any) -> None:
        # the scanner re-checks every open flow level per token: refuse depth here, first
        if self.flow_level >= self.limits.max_depth:
            raise LoadError(self.source, f"nesting deeper than {self.limits.max_depth} "
                            "levels", line=self.line + 1)
        super().fetch_flow_collection_start(token_class)

    def add_indent(self, column: int) -> bool:
        if len(self.indents) >= self.limits.max_depth:
            raise LoadError(self.source, f"nesting deeper than {self.limits.max_depth} "
                            "levels", line=self.line + 1)
        return super().add_indent(column)

    def _literal(self, node: ScalarNode) -> None:
        if len(str(node.value)) > _MAX_LITERAL:
            raise LoadError(self.source, f"number literal of {len(str(node.value))} "
                            f"characters is out of range: {short(node.value)}",
                            line=node.start_mark.line + 1)

    def construct_yaml_int(self, node: ScalarNode) -> int:
        self._literal(node)
        return super().construct_yaml_int(node)

    def construct_yaml_float(self, node: ScalarNode) -> float:
        self._literal(node)
        return super().construct_yaml_float(node)


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)
_Loader.add_constructor("tag:yaml.org,2002:float", _Loader.construct_yaml_float)


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _check_graph(root: Node, source: str, limits: Limits) -> None:
    """Refuse cycles and alias expansion beyond budget, in time linear in the node graph."""
    size: dict[int, int] = {}
    gray: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    distinct = 0
    cap = limits.max_alias_nodes
    while stack:
        node, leaving = stack.pop()
        nid = id(node)
        if leaving:
            gray.discard(nid)
            size[nid] = min(1 + sum(size[id(c)] for c in _children(node)), 1 << 62)
            continue
        if nid in size:
            continue
        if nid in gray:
            raise LoadError(source, "cyclic alias: an anchor (&name) is used inside itself",
                            line=node.start_mark.line + 1)
        gray.add(nid)
        distinct += 1
        stack.append((node, True))
        stack.extend((c, False) for c in _children(node) if id(c) not in size)
    added = size[id(root)] - distinct
    if added > cap:
        raise LoadError(source, f"aliases expand to {added:,} more nodes than are written, "
                        f"more than the budget of {cap:,}; write the data out instead")


def _key_lines(root: Node, source: str) -> dict[KeyPath, int]:
    """Line of every key path; each node is entered once (aliases are not re-walked)."""
    out: dict[KeyPath, int] = {}
    seen: set[int] = set()
    stack: list[tuple[Node, KeyPath]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        out.setdefault(path, node.start_mark.line + 1)
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, MappingNode):
            keys: set[str] = set()
            for knode, vnode in node.value:
                key = str(knode.value) if isinstance(knode, ScalarNode) else "?"
                if key == "<<" and knode.tag == "tag:yaml.org,2002:merge":
                    continue  # merged keys: positions are those of the merged mapping
                sub = (*path, key)
                if key in keys and isinstance(knode, ScalarNode):
                    raise LoadError(source, "duplicate key (the second would replace the "
                                    "first)", sub, knode.start_mark.line + 1)
                keys.add(key)
                out[sub] = knode.start_mark.line + 1
                stack.append((vnode, sub))
        elif isinstance(node, SequenceNode):
            stack.extend((item, (*path, i)) for i, item in enumerate(node.value))
    return out


def _yaml_problem(exc: yaml.YAMLError) -> tuple[str, int | None]:
    mark = getattr(exc, "problem_mark", None)
    line = mark.line + 1 if mark is not None else None
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    text = f"{context}, {problem}" if context else str(problem)
    return f"invalid YAML: {clip(text)}", line


def parse_yaml(text: str, source: str, limits: Limits | None = None) -> Document:
    """Parse one YAML document under the budgets; data, key lines, or a LoadError."""
    lim = limits or Limits.default()
    if len(text) > lim.max_yaml_bytes:
        raise LoadError(source, f"YAML text is {len(text):,} characters, more than the "
                                f"limit of {lim.max_yaml_bytes:,}; set {SIZE_ENV} to raise it")
    try:
        loader = _Loader(text, source, lim)  # the reader rejects control characters here
    except yaml.reader.ReaderError as exc:
        ch = exc.character
        code = ch if isinstance(ch, int) else ord(str(ch)[:1] or "?")
        raise LoadError(source, f"invalid YAML: character U+{code:04X} is not allowed "
                                "(control characters must be escaped in a quoted string)",
                        line=text.count("\n", 0, exc.position) + 1) from None
    try:
        node = loader.get_single_node()
        if node is None:
            return Document(None)
        _check_graph(node, source, lim)
        lines = _key_lines(node, source)
        data = loader.construct_document(node)
    except yaml.YAMLError as exc:
        problem, line = _yaml_problem(exc)
        raise LoadError(source, problem, line=line) from None
    except (ValueError, TypeError, OverflowError) as exc:  # e.g. an int past str limits
        if isinstance(exc, LoadError):
            raise
        raise LoadError(source, f"invalid YAML value: {clip(str(exc))}") from None
    except RecursionError:
        raise LoadError(source, f"nesting deeper than {lim.max_depth} levels") from None
    finally:
        loader.dispose()
    doc = Document(data, lines)
    check_data(doc, source, lim)
    return doc


# -- JSON ------------------------------------------------------------------------------

class _Refused(ValueError):
    """Raised by the JSON hooks; turned into a LoadError by :func:`parse_json`."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Refused(f"duplicate key {short(key)} (the second would replace the first)")
        out[key] = value
    return out


def _json_int(text: str) -> int:
    if len(text) > _MAX_LITERAL:
        raise _Refused(f"number literal of {len(text)} characters is out of range: "
                       f"{short(text)}")
    return int(text)


def _json_float(text: str) -> float:
    if len(text) > _MAX_LITERAL:
        raise _Refused(f"number literal of {len(text)} characters is out of range: "
                       f"{short(text)}")
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"number {short(text)} is out of range (at most {MAX_NUMBER:g} in "
                       "magnitude)")
    return value


def _json_constant(name: str) -> Any:
    raise _Refused(f"{name} is not a number JSON allows; numbers must be finite")


def parse_json(text: str, source: str, limits: Limits | None = None) -> Document:
    """Parse JSON under the budgets (depth, duplicates, finite numbers in range)."""
    lim = limits or Limits.default()
    try:
        data = json.loads(text, object_pairs_hook=_pairs, parse_int=_json_int,
                          parse_float=_json_float, parse_constant=_json_constant)
    except json.JSONDecodeError as exc:
        raise LoadError(source, f"invalid JSON: {exc.msg}", line=exc.lineno,
                        column=exc.colno) from None
    except _Refused as exc:
        raise LoadError(source, str(exc)) from None
    except RecursionError:
        raise LoadError(source, f"nesting deeper than {lim.max_depth} levels") from None
    doc = Document(data)
    check_data(doc, source, lim)
    return doc


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


# -- files -----------------------------------------------------------------------------

def load_yaml(path: str | os.PathLike[str], limits: Limits | None = None) -> Document:
    """Read and parse a YAML file under the budgets."""
    lim = limits or Limits.default()
    src = os.fspath(path)
    return parse_yaml(decode(read_bytes(src, lim.max_yaml_bytes), src), src, lim)


def load_json(path: str | os.PathLike[str], limits: Limits | None = None) -> Document:
    """Read and parse a JSON file under the budgets."""
    lim = limits or Limits.default()
    src = os.fspath(path)
    return parse_json(decode(read_bytes(src, lim.max_bytes), src), src, lim)


def load_data(path: str | os.PathLike[str], limits: Limits | None = None) -> Document:
    """A ``.json`` file as JSON, anything else as YAML (JSON is a subset of YAML)."""
    if os.fspath(path).lower().endswith(".json"):
        return load_json(path, limits)
    return load_yaml(path, limits)


def unknown_keys(data: Mapping[Any, Any], allowed: Iterable[str]) -> tuple[str, str] | None:
    """The first key of ``data`` not in ``allowed`` and the error text for it, or None.

    The text reads ``unknown key 'wieghts' (did you mean 'weights'?); known: ...``.
    """
    known = list(allowed)
    for key in data:
        if str(key) not in known:
            return str(key), unknown_name("key", clip(str(key), MAX_ECHO // 2), known)
    return None


__all__ = [
    "MAX_ALIASES",
    "MAX_ALIAS_NODES",
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_ECHO",
    "MAX_NAME",
    "MAX_NUMBER",
    "MAX_YAML_BYTES",
    "MIN_NUMBER",
    "SIZE_ENV",
    "Document",
    "KeyPath",
    "Limits",
    "LoadError",
    "check_data",
    "check_name",
    "clip",
    "decode",
    "exists",
    "format_key",
    "is_file",
    "load_data",
    "load_json",
    "load_yaml",
    "number_problem",
    "parse_json",
    "parse_yaml",
    "read_bytes",
    "read_text",
    "short",
    "unknown_keys",
]
