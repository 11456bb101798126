"""Errors for malformed deliberation data: each names the file, the key and the problem."""

from __future__ import annotations

import math
from typing import Any


class DataError(ValueError):
    """A database or instance file that cannot be used, with where and why.

    ``file`` is the path (or ``<dict>`` for in-memory data), ``key`` a dotted / indexed
    path to the offending entry (``recipes["fried rice"].egg``) and ``problem`` says what
    is wrong with it.
    """

    def __init__(self, file: str, key: str, problem: str) -> None:
        self.file = file
        self.key = key
        self.problem = problem
        where = f"{file}: {key}" if key else file
        super().__init__(f"{where}: {problem}")


class InstanceError(DataError):
    """A deliberation instance (JSON) that is malformed."""


def key_path(parent: str, child: str | int) -> str:
    """``parent.child`` (or ``parent["child"]`` when ``child`` is not a plain word)."""
    if isinstance(child, int):
        return f"{parent}[{child}]"
    if child.replace("_", "").replace("-", "").isalnum():
        return f"{parent}.{child}" if parent else child
    return f'{parent}["{child}"]' if parent else f'["{child}"]'


def as_number(value: Any, err: type[DataError], file: str, key: str, *,
              minimum: float | None = 0.0) -> float | int:
    """``value`` as a finite int/float (not bool), at least ``minimum``, else ``err``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise err(file, key, f"expected a number, got {type(value).__name__} {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise err(file, key, f"expected a finite number, got {value!r}")
    if minimum is not None and value < minimum:
        raise err(file, key, f"must be >= {minimum:g}, got {value!r}")
    return value


def as_mapping(value: Any, err: type[DataError], file: str, key: str) -> dict[str, Any]:
    """``value`` as a dict with string keys, else ``err``."""
    if not isinstance(value, dict):
        raise err(file, key, f"expected an object/mapping, got {type(value).__name__}")
    for k in value:
        if not isinstance(k, str) or not k.strip():
            raise err(file, key, f"keys must be non-empty strings, got {k!r}")
    return value


def as_str_list(value: Any, err: type[DataError], file: str, key: str) -> list[str]:
    """``value`` as a list of distinct non-empty strings, else ``err``."""
    if not isinstance(value, list):
        raise err(file, key, f"expected a list of strings, got {type(value).__name__}")
    seen: set[str] = set()
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            raise err(file, key_path(key, i), f"expected a non-empty string, got {item!r}")
        if item in seen:
            raise err(file, key_path(key, i), f"duplicate entry {item!r}")
        seen.add(item)
    return list(value)
