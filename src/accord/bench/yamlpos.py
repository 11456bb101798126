"""YAML loading that remembers where each key is, so config errors can name the line.

Parsing goes through :mod:`accord.core.safeload` (size, depth, alias and number budgets,
UTF-8, duplicate keys); this module only turns its key paths into the dotted form bench
errors use (``sweeps[0].params.max_rounds``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from accord.core.safeload import Limits, LoadError, clip, decode, parse_yaml, read_bytes


class ConfigError(ValueError):
    """A bench config that cannot be used: names the file, line, key and problem."""

    def __init__(self, source: str, key: str, problem: str, line: int | None = None) -> None:
        source, key, problem = clip(str(source)), clip(key), clip(problem, 800)
        where = f"{source}:{line}" if line else source
        super().__init__(f"{where}: {key}: {problem}")
        self.source, self.key, self.problem, self.line = source, key, problem, line


def join_key(path: str, key: str | int) -> str:
    """The dotted / indexed path of a child: ``agents[1][0]``, ``params.max_rounds``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def dotted(path: tuple[str | int, ...]) -> str:
    """A key path tuple in the dotted form (``<root>`` for the empty path)."""
    out = ""
    for part in path:
        out = join_key(out, part)
    return out or "<root>"


def _config_error(exc: LoadError) -> ConfigError:
    key = dotted(exc.key) if exc.key else exc.key_text("<yaml>")
    return ConfigError(exc.source, key, exc.problem, exc.line)


def load_yaml(text: str, source: str, limits: Limits | None = None
              ) -> tuple[Any, dict[str, int]]:
    """Parse YAML text; return the data and a map from key path to 1-based line."""
    try:
        doc = parse_yaml(text, source, limits)
    except LoadError as exc:
        raise _config_error(exc) from None
    return doc.data, {dotted(k): v for k, v in doc.lines.items()}


def read_yaml(path: str | Path, limits: Limits | None = None) -> tuple[Any, dict[str, int]]:
    """Read and parse a YAML file, with key positions."""
    lim = limits or Limits.default()
    try:
        text = decode(read_bytes(path, lim.max_yaml_bytes), str(path))
    except LoadError as exc:
        raise _config_error(exc) from None
    return load_yaml(text, str(path), lim)
