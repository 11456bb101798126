"""Issues with discrete values and Cartesian outcome spaces.

An outcome is one value per issue. :class:`OutcomeSpace` gives every outcome a
compact integer index (mixed radix, first issue most significant) so utilities and
analysis work on whole numpy arrays instead of Python dicts.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from accord.core.moves import Package, Value


@dataclass(frozen=True)
class Issue:
    """One negotiable issue and its ordered, distinct discrete values."""

    name: str
    values: tuple[Value, ...]

    def __post_init__(self) -> None:
        if not self.values:
            raise ValueError(f"issue {self.name!r} has no values")
        if len({str(v) for v in self.values}) != len(self.values):
            raise ValueError(f"issue {self.name!r} has duplicate values: {list(self.values)}")

    @cached_property
    def _position(self) -> dict[Value, int]:
        pos: dict[Value, int] = {}
        for i, v in enumerate(self.values):
            pos[v] = i
            pos.setdefault(str(v), i)  # "900" and 900 name the same value
        return pos

    def index(self, value: Value) -> int:
        """Position of ``value`` in this issue (accepts the value or its string form)."""
        try:
            return self._position[value]
        except KeyError:
            try:
                return self._position[str(value)]
            except KeyError:
                raise KeyError(
                    f"{value!r} is not a value of issue {self.name!r}; "
                    f"allowed: {list(self.values)}"
                ) from None

    def __len__(self) -> int:
        return len(self.values)


class OutcomeSpace:
    """The Cartesian product of issues, indexed ``0 .. size-1``."""

    def __init__(self, issues: Sequence[Issue]) -> None:
        if not issues:
            raise ValueError("an outcome space needs at least one issue")
        names = [i.name for i in issues]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate issue names: {names}")
        self.issues: tuple[Issue, ...] = tuple(issues)
        self.names: tuple[str, ...] = tuple(names)
        self.shape: tuple[int, ...] = tuple(len(i) for i in issues)
        self.size: int = int(np.prod(self.shape, dtype=np.int64))
        strides = np.ones(len(issues), dtype=np.int64)
        for k in range(len(issues) - 2, -1, -1):
            strides[k] = strides[k + 1] * self.shape[k + 1]
        self.strides = strides

    def __repr__(self) -> str:
        dims = " x ".join(f"{n}[{s}]" for n, s in zip(self.names, self.shape, strict=True))
        return f"OutcomeSpace({dims} = {self.size})"

    def __len__(self) -> int:
        return self.size

    def issue(self, name: str) -> Issue:
        """The issue called ``name``."""
        for i in self.issues:
            if i.name == name:
                return i
        raise KeyError(f"unknown issue {name!r}; issues: {list(self.names)}")

    def value_indices(self, package: Package) -> tuple[int, ...]:
        """Per-issue value positions of a full package (KeyError if incomplete or unknown)."""
        missing = [n for n in self.names if n not in package]
        if missing:
            raise KeyError(f"package lacks issue(s) {missing}")
        extra = [k for k in package if k not in self.names]
        if extra:
            raise KeyError(f"package has unknown issue(s) {extra}; issues: {list(self.names)}")
        return tuple(i.index(package[i.name]) for i in self.issues)

    def index_of(self, package: Package) -> int:
        """The integer index of a full package."""
        idx = 0
        try:
            for issue, stride in self._pairs:
                idx += issue.index(package[issue.name]) * stride
        except KeyError:
            self.value_indices(package)  # raises the specific error (missing or unknown)
            raise
        if len(package) != len(self._pairs):
            self.value_indices(package)
        return idx

    @cached_property
    def _pairs(self) -> tuple[tuple[Issue, int], ...]:
        return tuple((i, int(s)) for i, s in zip(self.issues, self.strides, strict=True))

    def package(self, index: int) -> dict[str, Value]:
        """The package with integer index ``index``."""
        if not 0 <= index < self.size:
            raise IndexError(f"outcome index {index} outside 0..{self.size - 1}")
        out: dict[str, Value] = {}
        rem = int(index)
        for issue, stride in zip(self.issues, self.strides, strict=True):
            q, rem = divmod(rem, int(stride))
            out[issue.name] = issue.values[q]
        return out

    @cached_property
    def grid(self) -> np.ndarray:
        """``(size, n_issues)`` array of value positions for every outcome (read-only)."""
        idx = np.arange(self.size, dtype=np.int64)
        cols = [(idx // s) % n for s, n in zip(self.strides, self.shape, strict=True)]
        arr = np.stack(cols, axis=1).astype(np.int32)
        arr.setflags(write=False)
        return arr

    def packages(self) -> Iterator[dict[str, Value]]:
        """Every package, in index order (use ``grid`` for vectorised work)."""
        for i in range(self.size):
            yield self.package(i)

    def sample(self, rng: np.random.Generator, n: int = 1) -> np.ndarray:
        """``n`` outcome indices drawn uniformly with the explicit generator ``rng``."""
        return rng.integers(0, self.size, size=n)

    @classmethod
    def from_mapping(cls, issues: Mapping[str, Sequence[Value]]) -> OutcomeSpace:
        """Build a space from ``{issue: [values]}``."""
        return cls([Issue(str(k), tuple(v)) for k, v in issues.items()])
