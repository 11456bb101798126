"""An append-only offer history that states share without copying (issue 30).

A negotiation state is immutable, and each round's state used to hold a new tuple of every
offer so far (``state.history + (rec,)``): one O(n) copy a round, O(n^2) an episode. A
:class:`History` is a read-only view of the first ``n`` items of a list that successive
states share. :meth:`History.plus` appends to that list when the view is its tip (the
usual case: the next state extends the last one's history) and returns a view one item
longer; the older view still sees exactly its own ``n`` items. A view that is no longer
the tip (an older state extended a second time, as a fork or a test does) copies its items
into a list of its own first, so two states that share a history never see each other's
later rounds.

It reads like the tuple it replaces: length, indexing, iteration (also reversed), equality
with tuples and other histories, hashing, ``+`` (giving a tuple) and pickling; a slice is a
tuple. Appending is single-threaded: one episode's states are made by one thread.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import Any, TypeVar, overload

T = TypeVar("T")


class History(Sequence[T]):
    """The first ``len(self)`` items of a list shared with longer histories."""

    __slots__ = ("_items", "_n")

    _items: list[T]
    _n: int

    def __init__(self, items: Iterable[T] = ()) -> None:
        self._items = list(items)
        self._n = len(self._items)

    def plus(self, item: T) -> History[T]:
        """This history with ``item`` appended (O(1) when this view is the list's tip)."""
        items = self._items
        n = self._n
        if n == 0:
            items = []  # an empty history shares nothing (a default must stay empty)
        elif len(items) != n:  # a longer history shares the list: branch off with a copy
            items = items[:n]
        items.append(item)
        new: History[T] = object.__new__(History)
        new._items = items
        new._n = n + 1
        return new

    def extended(self, items: list[T]) -> History[T]:
        """This history with ``items`` appended, in one step (:meth:`plus`, for many)."""
        if not items:
            return self
        mine = self._items
        n = self._n
        if n == 0:
            mine = []
        elif len(mine) != n:
            mine = mine[:n]
        mine.extend(items)
        new: History[T] = object.__new__(History)
        new._items = mine
        new._n = n + len(items)
        return new

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> T: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[T, ...]: ...

    def __getitem__(self, i: int | slice) -> T | tuple[T, ...]:
        n = self._n
        if isinstance(i, slice):
            start, stop, step = i.indices(n)
            if step > 0:
                return tuple(self._items[start:stop:step])
            items = self._items
            return tuple([items[j] for j in range(start, stop, step)])
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("history index out of range")
        return self._items[i]

    def __iter__(self) -> Iterator[T]:
        return islice(self._items, self._n)

    def __reversed__(self) -> Iterator[T]:
        items = self._items
        return (items[j] for j in range(self._n - 1, -1, -1))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, History):
            if other._items is self._items:
                return other._n == self._n
            return other._n == self._n and tuple(self) == tuple(other)
        if isinstance(other, tuple):
            return len(other) == self._n and tuple(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __add__(self, other: Any) -> tuple[T, ...]:
        if isinstance(other, (tuple, History)):
            return (*self, *other)
        return NotImplemented

    def __radd__(self, other: Any) -> tuple[T, ...]:
        if isinstance(other, tuple):
            return (*other, *self)
        return NotImplemented

    def __repr__(self) -> str:
        return f"History({tuple(self)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (History, (tuple(self),))


def extended(history: Sequence[T], items: list[T]) -> History[T]:
    """``history`` with ``items`` appended, as :func:`appended` does for one."""
    if type(history) is History:
        return history.extended(items)
    return History((*history, *items))


def appended(history: Sequence[T], item: T) -> History[T]:
    """``history`` (a :class:`History`, or any sequence such as a tuple a caller built a
    state with) with ``item`` appended, as a :class:`History`."""
    if type(history) is History:
        return history.plus(item)
    return History((*history, item))


__all__ = ["History", "appended", "extended"]
