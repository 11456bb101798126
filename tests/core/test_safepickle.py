"""The restricted unpickler: plain data and numpy arrays come back as Python data; any
other global is refused before it is called."""

from __future__ import annotations

import contextlib
import copyreg
import os
import pickle
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accord.core import safepickle
from accord.core.safepickle import PickleRefused, Record

EXAMPLES = int(os.environ.get("ACCORD_FUZZ_EXAMPLES", "10"))


class _System:
    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple[object, ...]:
        return (os.system, (self.command,))


class _Call:
    def __init__(self, fn: object, *args: object) -> None:
        self.fn, self.args = fn, args

    def __reduce__(self) -> tuple[object, ...]:
        return (self.fn, self.args)


class Plain:
    """An admitted class (by its pickled name) in the tests."""

    def __init__(self) -> None:
        self.x = 1
        self.arr = np.arange(6, dtype=np.int32).reshape(2, 3)


def test_plain_containers_round_trip() -> None:
    data = {"a": [1, 2.5, True, None, "x"], "t": (1, (2, 3)), "n": {"deep": [[]]}}
    for proto in range(pickle.HIGHEST_PROTOCOL + 1):
        assert safepickle.loads(pickle.dumps(data, protocol=proto), "d.pkl") == data
    # bytes are an opcode from protocol 3 on (before, a call of _codecs.encode: refused)
    assert safepickle.loads(pickle.dumps([b"raw"], protocol=4), "d.pkl") == [b"raw"]


@pytest.mark.parametrize("dtype", ["f4", "f8", "i4", "i8", "u1", "bool", ">f8"])
def test_numpy_arrays_become_lists(dtype: str) -> None:
    arr = (np.arange(12) % 5).astype(dtype).reshape(3, 4)
    out = safepickle.loads(pickle.dumps({"a": arr, "f": np.asfortranarray(arr)}, protocol=4),
                           "a.pkl")
    assert out == {"a": arr.tolist(), "f": arr.tolist()}


def test_protocol_5_arrays_become_lists() -> None:
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    for a in (arr, np.asfortranarray(arr)):
        assert safepickle.loads(pickle.dumps(a, protocol=5), "p5.pkl") == arr.tolist()


def test_numpy_scalars_become_numbers() -> None:
    out = safepickle.loads(pickle.dumps([np.int32(7), np.float64(2.25), np.float32(0.5),
                                         np.bool_(True)], protocol=4), "s.pkl")
    assert out == [7, 2.25, 0.5, True]
    assert [type(v) for v in out] == [int, float, float, bool]


def test_an_admitted_class_is_a_record_of_its_fields() -> None:
    name = f"{Plain.__module__}.Plain"
    obj = safepickle.loads(pickle.dumps(Plain(), protocol=4), "p.pkl", records=[name])
    assert isinstance(obj, Record) and obj.pickled_class == name
    assert obj.state == {"x": 1, "arr": [[0, 1, 2], [3, 4, 5]]}


def test_os_system_is_refused_and_never_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    path = tmp_path / "game_0000.pkl"
    path.write_bytes(pickle.dumps({"game": _System(f"touch {marker}")}, protocol=4))
    with pytest.raises(PickleRefused) as err:
        safepickle.load(path, records=["create_game_utils.GeneralMenuDesignGame"])
    assert str(path) in str(err.value)
    assert "'posix.system'" in str(err.value) or "'os.system'" in str(err.value)
    assert not marker.exists()


@pytest.mark.parametrize("payload", [
    _Call(eval, "1+1"),
    _Call(subprocess.Popen, ["true"]),
    _Call(os.remove, "important-file"),
    _Call(np.load, "x.npy"),
    _Call(copyreg._reconstructor, Plain, object, None),
    Plain(),  # a class the caller did not admit
])
def test_other_globals_are_refused(payload: object) -> None:
    for proto in (0, 2, 4):
        with pytest.raises(PickleRefused, match=r"x\.pkl: refused pickle global"):
            safepickle.loads(pickle.dumps(payload, protocol=proto), "x.pkl")


def test_object_arrays_and_persistent_ids_are_refused() -> None:
    with pytest.raises(PickleRefused, match=r"object arrays are not admitted"):
        safepickle.loads(pickle.dumps(np.array([1, "a"], dtype=object), protocol=4), "o.pkl")

    class _Persist(pickle.Pickler):
        def persistent_id(self, obj: object) -> str | None:
            return "ref" if obj == "secret" else None

    import io
    buf = io.BytesIO()
    _Persist(buf, protocol=4).dump(["secret"])
    with pytest.raises(PickleRefused, match="persistent id"):
        safepickle.loads(buf.getvalue(), "p.pkl")


def test_broken_files_are_refused_with_the_file_named(tmp_path: Path) -> None:
    good = pickle.dumps({"a": np.arange(3)}, protocol=4)
    with pytest.raises(PickleRefused, match=r"t\.pkl: not a readable pickle"):
        safepickle.loads(good[:-5], "t.pkl")
    with pytest.raises(PickleRefused, match=r"missing\.pkl"):
        safepickle.load(tmp_path / "missing.pkl")


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_fuzzed_pickles_load_or_are_refused(monkeypatch: pytest.MonkeyPatch,
                                            data: st.DataObject) -> None:
    """Mutated bytes of a realistic pickle: plain data or PickleRefused, nothing else, and
    nothing is ever called (os.system is booby-trapped)."""
    monkeypatch.setattr(os, "system", lambda *a: pytest.fail("os.system was called"))
    base = bytearray(pickle.dumps({"m": np.eye(2, dtype=np.float32), "s": np.int32(3),
                                   "l": [1, "a", (2.5, None)]}, protocol=4))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(base) - 1))
        base[i] = data.draw(st.integers(0, 255))
    with contextlib.suppress(PickleRefused):
        safepickle.loads(bytes(base), "f.pkl")
