"""The moves' ``__repr__``, ``__eq__`` and ``__hash__`` are inherited from ``Move`` (issue
30: compiling the generated ones was ~4 ms of every start of ``accord``); they must give
exactly what ``@dataclass(frozen=True, slots=True)`` generated before.
"""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any

import pytest

from accord.core.moves import (
    MOVE_TYPES,
    Accept,
    Action,
    Assess,
    Decide,
    Malformed,
    Message,
    Move,
    Offer,
    Reject,
    Suggest,
    Walk,
)

_REFERENCES: dict[type[Move], Any] = {}


def _reference(cls: type[Move]) -> Any:
    """The class as the plain decorator made it: the same fields, generated methods (one
    per move class, so its instances compare as the same class)."""
    if cls not in _REFERENCES:
        specs = [(f.name, f.type, dataclasses.field(default=f.default,
                                                    default_factory=f.default_factory))
                 for f in dataclasses.fields(cls)]
        _REFERENCES[cls] = dataclasses.make_dataclass(cls.__name__, specs, frozen=True,
                                                      slots=True)
    return _REFERENCES[cls]


#: two or three instances of each move, some equal, with unhashable and nested values
SAMPLES: list[list[Move]] = [
    [Move(), Move()],
    [Offer({"price": 1}), Offer({"price": 1}), Offer({"price": 2}, "x")],
    [Accept(), Accept("ok"), Accept("ok")],
    [Reject(), Reject(Offer({"a": "b"})), Reject(Offer({"a": "b"}), "no")],
    [Walk(), Walk("batna"), Walk("batna")],
    [Message("hi"), Message("hi"), Message("ho")],
    [Action("C"), Action("D"), Action("C")],
    [Decide([1, 2]), Decide((1, 2), "m"), Decide((1, 2), "m")],
    [Suggest({"x": 1}), Suggest({"x": 1}, "fair")],
    [Assess(True), Assess(False, "moving"), Assess(True)],
    [Malformed("r", "f"), Malformed("r", "f", "raw", {"k": [1]}), Malformed("r", "f")],
]


def _as_reference(move: Move) -> Any:
    ref = _reference(type(move))
    return ref(*(_as_reference(v) if isinstance(v, Move) else v
                 for v in (getattr(move, f.name) for f in dataclasses.fields(move))))


def test_every_move_is_sampled() -> None:
    assert {type(s[0]) for s in SAMPLES} == {Move, *MOVE_TYPES.values()}


@pytest.mark.parametrize("moves", SAMPLES, ids=lambda s: type(s[0]).__name__)
def test_the_same_methods_as_the_generated_ones(moves: list[Move]) -> None:
    refs = [_as_reference(m) for m in moves]
    for move, ref in zip(moves, refs, strict=True):
        assert repr(move) == repr(ref)
        try:
            expected: int | type[BaseException] = hash(ref)
        except TypeError as exc:
            expected = type(exc)
        if isinstance(expected, int):
            assert hash(move) == expected
        else:
            with pytest.raises(expected):
                hash(move)
        for other, other_ref in zip(moves, refs, strict=True):
            assert (move == other) is (ref == other_ref)
            assert (move != other) is (ref != other_ref)
    # another class's move with the same fields is never equal
    assert Walk("x") != Message("x") and Accept() != Walk() and Offer({}) != Suggest({})
    assert Offer({"a": 1}).__eq__(object()) is NotImplemented


def test_still_frozen_slotted_dataclasses() -> None:
    move = Offer({"price": 1}, "m")
    with pytest.raises(dataclasses.FrozenInstanceError):
        move.message = "other"  # type: ignore[misc]
    assert not hasattr(move, "__dict__") and dataclasses.is_dataclass(move)
    assert dataclasses.replace(move, message="n") == Offer({"price": 1}, "n")
    assert pickle.loads(pickle.dumps(move)) == move
    assert len({Walk("a"), Walk("a"), Walk("b"), Assess(True)}) == 3


def test_a_recursive_value_reprs_as_the_generated_one() -> None:
    items: list[Any] = []
    move = Decide(items)
    items.append(move)
    ref_items: list[Any] = []
    ref = _reference(Decide)(ref_items, None)
    ref_items.append(ref)
    assert repr(move) == repr(ref) == "Decide(decision=[...], message=None)"
