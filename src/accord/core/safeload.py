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
(:class:`Document`), so loaders can name the line of a bad key. The limits and the error
type live in :mod:`accord.core.loadlimits`, the YAML reader in :mod:`accord.core.safeyaml`;
this module is the one to import.
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from accord.core.loadlimits import (
    MAX_ALIAS_NODES,
    MAX_ALIASES,
    MAX_BYTES,
    MAX_DEPTH,
    MAX_ECHO,
    MAX_LITERAL,
    MAX_NAME,
    MAX_NUMBER,
    MAX_YAML_BYTES,
    MIN_NUMBER,
    SIZE_ENV,
    Document,
    KeyPath,
    Limits,
    LoadError,
    check_data,
    clip,
    format_key,
    number_problem,
    short,
)
from accord.core.names import unknown_name


def parse_yaml(text: str, source: str, limits: Limits | None = None) -> Document:
    """:func:`accord.core.safeyaml.parse_yaml`, imported when first used (PyYAML is not a
    start-up cost of commands that only list or check paths)."""
    from accord.core.safeyaml import parse_yaml as parse

    return parse(text, source, limits)


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
            # size the buffer by the file (os.read allocates all it is asked for)
            want = min(1 << 20, cap + 1 - total, max(info.st_size + 1 - total, 4096))
            chunk = os.read(fd, want)
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
    if len(text) > MAX_LITERAL:
        raise _Refused(f"number literal of {len(text)} characters is out of range: "
                       f"{short(text)}")
    return int(text)


def _json_float(text: str) -> float:
    if len(text) > MAX_LITERAL:
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
