"""Issues with discrete values and Cartesian outcome spaces.

An outcome is one value per issue. :class:`OutcomeSpace` gives every outcome a
compact integer index (mixed radix, first issue most significant) so utilities and
analysis work on whole numpy arrays instead of Python dicts.

Arrays over every outcome cost memory in proportion to the space, so each space carries a
cap (``max_outcomes``, default :data:`DEFAULT_MAX_OUTCOMES`): building one is free at any
size, but :meth:`OutcomeSpace.check_size` refuses to allocate past the cap with
:class:`OutcomeSpaceTooLarge` (``--max-outcomes`` raises it on the command line).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NoReturn

import numpy as np

from accord.core.moves import Package, Value

#: outcomes an array over the whole space may have unless the caller raises the cap
DEFAULT_MAX_OUTCOMES = 1_000_000
#: how a user raises the cap (the command-line flag and the bench parameter)
RAISE_HINT = ("raise it with --max-outcomes N, or params: {max_outcomes: N} in a bench spec "
              "(memory grows with outcomes x parties)")
#: no space may exceed this: indices are int64
_INDEX_LIMIT = 2**62


class OutcomeSpaceTooLarge(ValueError):
    """An outcome space too large to enumerate under its cap (or to index at all)."""


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

    @cached_property
    def _takes_bools(self) -> bool:
        return any(type(v) is bool for v in self.values)

    def index(self, value: Value) -> int:
        """Position of ``value`` in this issue (accepts the value or its string form).

        A boolean is no number here: ``true`` is not the value ``1`` (nor ``false`` the
        value ``0``) of an issue whose values are not booleans, although Python compares
        them equal; a model that writes ``"warranty_years": false`` made no valid offer."""
        try:
            if type(value) is bool and not self._takes_bools:
                raise KeyError(value)
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


class Outcome(dict[str, Value]):
    """A full package made by :meth:`OutcomeSpace.outcome`: read-only, in issue order, and
    carrying its index in that space.

    It is a ``dict`` (JSON, ``dict(o)``, equality and printing work as for any package),
    but every mutating method raises ``TypeError``: a protocol may keep it as is, and may
    skip looking its values up again (:meth:`OutcomeSpace.owns`). Pickling and copying give a
    plain ``dict``. Built any other way (``Outcome(mapping)``) it belongs to no space.
    """

    __slots__ = ("index", "space")
    space: OutcomeSpace | None
    index: int

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        dict.__init__(self, *args, **kwargs)
        self.space = None  # not made by a space: validated like any other package
        self.index = -1

    def _readonly(self) -> NoReturn:
        raise TypeError("an Outcome is read-only; change a copy (dict(outcome)) instead")

    def __setitem__(self, key: str, value: Value) -> NoReturn:
        self._readonly()

    def __delitem__(self, key: str) -> NoReturn:
        self._readonly()

    def __ior__(self, other: Any) -> NoReturn:  # type: ignore[misc]
        self._readonly()

    def clear(self) -> NoReturn:
        self._readonly()

    def pop(self, *args: Any) -> NoReturn:
        self._readonly()

    def popitem(self) -> NoReturn:
        self._readonly()

    def setdefault(self, *args: Any) -> NoReturn:
        self._readonly()

    def update(self, *args: Any, **kwargs: Any) -> NoReturn:
        self._readonly()

    def __reduce__(self) -> tuple[type[dict[str, Value]], tuple[dict[str, Value]]]:
        return (dict, (dict(self),))

    def __copy__(self) -> dict[str, Value]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Value]:
        return dict(self)  # the values are ints and strings


_new_outcome = Outcome.__new__
_fill = dict.__init__


class OutcomeSpace:
    """The Cartesian product of issues, indexed ``0 .. size-1``.

    ``max_outcomes`` caps what may be allocated over the whole space (:meth:`check_size`).
    """

    def __init__(self, issues: Sequence[Issue],
                 max_outcomes: int = DEFAULT_MAX_OUTCOMES) -> None:
        if not issues:
            raise ValueError("an outcome space needs at least one issue")
        names = [i.name for i in issues]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate issue names: {names}")
        self.issues: tuple[Issue, ...] = tuple(issues)
        self.names: tuple[str, ...] = tuple(names)
        self.shape: tuple[int, ...] = tuple(len(i) for i in issues)
        size = math.prod(self.shape)  # exact: np.prod would wrap around past 2^63
        if size > _INDEX_LIMIT:
            raise OutcomeSpaceTooLarge(f"{size:.3g} outcomes ({self.describe_shape()}) cannot "
                                       "be indexed; use fewer issues or values")
        self.size: int = size
        self.max_outcomes = max_outcomes
        strides = np.ones(len(issues), dtype=np.int64)
        for k in range(len(issues) - 2, -1, -1):
            strides[k] = strides[k + 1] * self.shape[k + 1]
        self.strides = strides

    def __repr__(self) -> str:
        dims = " x ".join(f"{n}[{s}]" for n, s in zip(self.names, self.shape, strict=True))
        return f"OutcomeSpace({dims} = {self.size})"

    def __len__(self) -> int:
        return self.size

    def describe_shape(self) -> str:
        """``9 x 3 x 4`` values per issue (the first 8 issues, then ``...``)."""
        shown = " x ".join(str(n) for n in self.shape[:8])
        return shown + (f" x ... ({len(self.shape)} issues)" if len(self.shape) > 8 else "")

    def check_size(self, what: str = "this", hint: str = RAISE_HINT) -> None:
        """Raise :class:`OutcomeSpaceTooLarge` when the space exceeds its cap."""
        if self.size > self.max_outcomes:
            raise OutcomeSpaceTooLarge(
                f"{self.size:,} outcomes ({self.describe_shape()}) is more than the cap of "
                f"{self.max_outcomes:,} for {what}; {hint}")

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

    def owns(self, package: object) -> bool:
        """Whether ``package`` is an :class:`Outcome` this space made (so it is valid here
        and its ``index`` is right)."""
        return type(package) is Outcome and package.space is self

    def index_of(self, package: Package) -> int:
        """The integer index of a full package."""
        if type(package) is Outcome and package.space is self:
            return package.index
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

    @cached_property
    def _digits(self) -> tuple[tuple[str, tuple[Value, ...], int], ...]:
        # (name, values, stride as a Python int): package() runs once per offer
        return tuple((i.name, i.values, int(s))
                     for i, s in zip(self.issues, self.strides, strict=True))

    def package(self, index: int) -> dict[str, Value]:
        """The package with integer index ``index``."""
        if not 0 <= index < self.size:
            raise IndexError(f"outcome index {index} outside 0..{self.size - 1}")
        out: dict[str, Value] = {}
        rem = int(index)
        for name, values, stride in self._digits:
            q, rem = divmod(rem, stride)
            out[name] = values[q]
        return out

    def outcome(self, index: int) -> Outcome:
        """The package with integer index ``index`` as a read-only :class:`Outcome` that
        remembers its index (what an agent that picks outcomes by index should offer)."""
        if not 0 <= index < self.size:
            raise IndexError(f"outcome index {index} outside 0..{self.size - 1}")
        pairs = []
        rem = int(index)
        for name, values, stride in self._digits:
            q, rem = divmod(rem, stride)
            pairs.append((name, values[q]))
        out = _new_outcome(Outcome)
        _fill(out, pairs)
        out.space = self
        out.index = int(index)
        return out

    @cached_property
    def grid(self) -> np.ndarray:
        """``(size, n_issues)`` array of value positions for every outcome (read-only)."""
        self.check_size("an outcome grid")
        idx = np.arange(self.size, dtype=np.int64)
        cols = [(idx // s) % n for s, n in zip(self.strides, self.shape, strict=True)]
        arr = np.stack(cols, axis=1).astype(np.int32)
        arr.setflags(write=False)
        return arr

    @cached_property
    def l1_codes(self) -> np.ndarray | None:
        """Every outcome's value positions as one ``uint64`` of unary codes (value position
        ``v`` of an issue is ``v`` one-bits in that issue's field), read-only, or ``None``
        when the fields need more than 63 bits (a 64-bit shift is undefined in numpy), or
        numpy has no ``bitwise_count``.

        The L1 distance between two outcomes' value positions is then the popcount of the
        XOR of their codes: one array operation instead of a subtract, abs and row sum.
        """
        if sum(n - 1 for n in self.shape) > 63 or not hasattr(np, "bitwise_count"):
            return None
        self.check_size("an outcome grid")  # as when the codes were made from it
        # each issue's codes by value position, summed over the issues as outer sums
        # (outcome indices are C order of the issues' shape): no outcome grid is built,
        # which cost ten times as much as the codes themselves at 10^5 outcomes. The
        # fields do not overlap, so adding them is OR-ing them in. One numpy call per
        # issue, on Python ints: a small space's first call of each is the cost here.
        codes = np.zeros(1, dtype=np.uint64)
        offset = 0
        for j, n in enumerate(self.shape):
            field = np.array([((1 << v) - 1) << offset for v in range(int(n))],
                             dtype=np.uint64)
            codes = field if j == 0 else np.add.outer(codes, field)
            offset += int(n) - 1
        codes = codes.ravel()
        codes.setflags(write=False)
        return codes

    def packages(self) -> Iterator[dict[str, Value]]:
        """Every package, in index order (use ``grid`` for vectorised work)."""
        self.check_size("listing every package")
        for i in range(self.size):
            yield self.package(i)

    def sample(self, rng: np.random.Generator, n: int = 1) -> np.ndarray:
        """``n`` outcome indices drawn uniformly with the explicit generator ``rng``."""
        return rng.integers(0, self.size, size=n)

    @classmethod
    def from_mapping(cls, issues: Mapping[str, Sequence[Value]],
                     max_outcomes: int = DEFAULT_MAX_OUTCOMES) -> OutcomeSpace:
        """Build a space from ``{issue: [values]}``."""
        return cls([Issue(str(k), tuple(v)) for k, v in issues.items()], max_outcomes)
