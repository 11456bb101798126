"""Errors for malformed deliberation data: each names the file, the key and the problem."""

from __future__ import annotations

import math
from typing import Any

from accord.core.safeload import MAX_NUMBER, clip, short

#: largest quantity (stock, amount, resource, requirement, score, efficiency): HiGHS
#: treats matrix values from 1e15 on as infinite, and exact sums must stay well below
QUANTITY_MAX = 1e9
#: smallest non-zero constraint quantity: HiGHS drops matrix values below 1e-9, so a
#: smaller requirement would silently become 0
QUANTITY_MIN = 1e-6


class DataError(ValueError):
    """A database or instance file that cannot be used, with where and why.

    ``file`` is the path (or ``<dict>`` for in-memory data), ``key`` a dotted / indexed
    path to the offending entry (``recipes["fried rice"].egg``) and ``problem`` says what
    is wrong with it.
    """

    def __init__(self, file: str, key: str, problem: str) -> None:
        file, key, problem = clip(str(file)), clip(str(key)), clip(problem, 800)
        self.file = file
        self.key = key
        self.problem = problem
        # a placeholder key (<file>, <json>: the file itself) stays in .key, not the message
        shown = key and not (key.startswith("<") and key.endswith(">"))
        where = f"{file}: {key}" if shown else file
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
              minimum: float | None = 0.0, maximum: float = MAX_NUMBER,
              smallest: float | None = None) -> float | int:
    """``value`` as a finite int/float (not bool) in ``[minimum, maximum]``, else ``err``.

    ``smallest``: a non-zero value must be at least this in magnitude (constraint
    quantities use :data:`QUANTITY_MIN`, which the ILP solver can still see).
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise err(file, key, f"expected a number, got {type(value).__name__} {short(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise err(file, key, f"expected a finite number, got {value!r}")
    if minimum is not None and value < minimum:
        raise err(file, key, f"must be >= {minimum:g}, got {short(value)}")
    if abs(value) > maximum:
        raise err(file, key, f"must be at most {maximum:g} in magnitude, got {short(value)}")
    if smallest is not None and value and abs(value) < smallest:
        raise err(file, key, f"must be 0 or at least {smallest:g} in magnitude (the ILP solver "
                             f"would read it as 0), got {value!r}")
    return value


def as_mapping(value: Any, err: type[DataError], file: str, key: str) -> dict[str, Any]:
    """``value`` as a dict with string keys, else ``err``."""
    if not isinstance(value, dict):
        raise err(file, key, f"expected an object/mapping, got {type(value).__name__}")
    for k in value:
        if not isinstance(k, str) or not k.strip():
            raise err(file, key, f"keys must be non-empty strings, got {short(k)}")
    return value


def as_str_list(value: Any, err: type[DataError], file: str, key: str) -> list[str]:
    """``value`` as a list of distinct non-empty strings, else ``err``."""
    if not isinstance(value, list):
        raise err(file, key, f"expected a list of strings, got {type(value).__name__}")
    seen: set[str] = set()
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            raise err(file, key_path(key, i), f"expected a non-empty string, got {short(item)}")
        if item in seen:
            raise err(file, key_path(key, i), f"duplicate entry {short(item)}")
        seen.add(item)
    return list(value)
