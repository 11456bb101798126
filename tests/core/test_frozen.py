"""fast_init: the descriptor-based __init__ builds exactly what the dataclass's would."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest

from accord.core.frozen import fast_init
from accord.protocols.base import Progress
from accord.protocols.negotiation import NegotiationObservation, OfferRecord


@dataclass(frozen=True, slots=True)
class Plain:
    a: int
    b: str = "x"
    c: tuple[int, ...] = ()
    d: dict[str, int] = field(default_factory=dict)


@fast_init
@dataclass(frozen=True, slots=True)
class Fast:
    a: int
    b: str = "x"
    c: tuple[int, ...] = ()
    d: dict[str, int] = field(default_factory=dict)


def _same(fast: Fast, plain: Plain) -> None:
    assert dataclasses.astuple(fast) == dataclasses.astuple(plain)


@pytest.mark.parametrize(("args", "kwargs"), [
    ((1,), {}), ((1, "y"), {}), ((1,), {"c": (2, 3)}), ((), {"a": 4, "d": {"k": 1}}),
    ((5, "z", (1,), {"q": 2}), {}),
])
def test_builds_what_the_dataclass_builds(args, kwargs) -> None:
    _same(Fast(*args, **kwargs), Plain(*args, **kwargs))


def test_defaults_factories_are_fresh_and_the_object_stays_frozen() -> None:
    x, y = Fast(1), Fast(2)
    assert x.d == {} and x.d is not y.d
    with pytest.raises(dataclasses.FrozenInstanceError):
        x.a = 2  # type: ignore[misc]
    assert dataclasses.replace(x, b="w") == Fast(1, "w")
    assert Fast(1) == Fast(1) and Fast(1) != Fast(2)


def test_wrong_calls_fail_like_the_dataclass() -> None:
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'a'"):
        Fast()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'zz'"):
        Fast(1, zz=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="positional arguments"):
        Fast(1, "x", (), {}, 5)  # type: ignore[call-arg]


def test_refuses_classes_it_would_change() -> None:
    @dataclass(frozen=False, slots=True)
    class Mutable:
        a: int

    @dataclass(frozen=True)
    class NoSlots:
        a: int

    @dataclass(frozen=True, slots=True)
    class Post:
        a: int

        def __post_init__(self) -> None:
            pass

    @dataclass(frozen=True, slots=True)
    class KwOnly:
        a: int = field(kw_only=True)

    for cls in (Mutable, NoSlots, Post, KwOnly):
        with pytest.raises(TypeError):
            fast_init(cls)


def test_the_hot_records_use_it_and_keep_their_fields() -> None:
    """Observation, offer record and progress: every field lands where the dataclass puts
    it, inherited ones included."""
    for cls in (NegotiationObservation, OfferRecord, Progress):
        assert cls.__init__.__qualname__ == f"{cls.__qualname__}.__init__"
    obs = NegotiationObservation(role="a", round=3, legal=("accept",), phase="respond",
                                 max_rounds=9, parties=("a", "b"), current_index=4,
                                 batna=0.25)
    got = {f.name: getattr(obs, f.name) for f in dataclasses.fields(obs)}
    assert got["role"] == "a" and got["round"] == 3 and got["attempt"] == 1
    assert got["feedback"] is None and got["max_attempts"] is None
    assert got["phase"] == "respond" and got["current_index"] == 4 and got["batna"] == 0.25
    assert got["history"] == () and got["utility"] is None
    assert dataclasses.replace(obs, attempt=2).attempt == 2
    assert OfferRecord(1, "a", {"x": 1}, 0).source == "offer"
    assert Progress(3, 4, True) == Progress(round=3, offers=4, offer_due=True)
