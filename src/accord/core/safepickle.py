"""Reading a pickle without running any of it: a restricted unpickler for data files.

A pickle is a program: every ``GLOBAL``/``STACK_GLOBAL`` names a callable that
``REDUCE``/``NEWOBJ``/``BUILD`` then calls, so ``pickle.load`` on a stranger's file can run
``os.system``. The field ships data sets as pickles (the seed-001 authors' test games), so
accord reads them with an unpickler whose :meth:`~SafeUnpickler.find_class` hands out
only accord's own inert stand-ins:

* **plain records** - a class the caller admits by its pickled name (``module.Class``)
  becomes a :class:`Record` holding the object's state dict; its own code (the
  original class) is never imported;
* **numpy arrays and scalars** - ``numpy.core.multiarray._reconstruct`` with
  ``numpy.ndarray``, ``numpy.dtype``, ``numpy.core.multiarray.scalar`` and protocol 5's
  ``numpy.core.numeric._frombuffer`` (also under ``numpy._core``, numpy 2's name) are
  mapped to builders that decode the raw bytes of
  booleans, integers and floats only (object arrays are refused) into Python lists and
  numbers;
* the protocol's own containers (dict, list, tuple, str, bytes, int, float, bool, None),
  which need no global at all.

Any other global (``os.system``, ``builtins.eval``, ``copyreg._reconstructor``,
``subprocess.Popen``, a class the caller did not admit) and any persistent id is a
:class:`PickleRefused` naming the file and the refused name, raised before anything is
called. Files larger than :data:`MAX_PICKLE_BYTES` are not read.
"""

from __future__ import annotations

import io
import os
import pickle
from collections.abc import Iterable
from typing import Any

import numpy as np

from accord.core.loadlimits import clip
from accord.core.safeload import read_bytes

#: the largest pickle read (the authors' games are 10-40 KB each)
MAX_PICKLE_BYTES = 16 * 1024 * 1024
#: numpy's module names for the array helpers (numpy 1 wrote ``numpy.core``, 2 ``numpy._core``)
_NUMPY_CORE = ("numpy.core.multiarray", "numpy._core.multiarray")
#: dtype kinds whose bytes decode to plain numbers: bool, signed, unsigned, float
_PLAIN_KINDS = "biuf"


class PickleRefused(ValueError):
    """A pickle that is not read: it names something outside the admitted plain data."""

    def __init__(self, source: str, problem: str) -> None:
        self.source, self.problem = clip(str(source)), clip(problem, 600)
        super().__init__(f"{self.source}: {self.problem}")


class Record:
    """An instance of an admitted class, as data: ``pickled_class`` and ``state``."""

    pickled_class = "?"

    def __init__(self, *args: Any) -> None:
        self.state: dict[str, Any] = {}

    def __setstate__(self, state: Any) -> None:
        if isinstance(state, tuple) and len(state) == 2:  # (dict state, slots state)
            merged: dict[str, Any] = {}
            for part in state:
                if isinstance(part, dict):
                    merged.update(part)
            state = merged
        if not isinstance(state, dict):
            raise pickle.UnpicklingError(f"{self.pickled_class}: state is a "
                                         f"{type(state).__name__}, not a dict of fields")
        self.state = {str(k): v for k, v in state.items()}

    def __repr__(self) -> str:
        return f"Record({self.pickled_class}, fields={sorted(self.state)})"


class _NDArrayMarker:
    """What ``numpy.ndarray`` names inside a pickle: only ever an argument of
    ``_reconstruct``, never instantiated."""


class _DType:
    """A numpy dtype named in a pickle: its type code and byte order, nothing callable."""

    def __init__(self, code: Any = "", align: Any = False, copy: Any = True) -> None:
        if not isinstance(code, str):
            raise pickle.UnpicklingError(f"dtype code {clip(repr(code), 40)} is not text")
        self.code, self.order = code, "|"

    def __setstate__(self, state: Any) -> None:
        if isinstance(state, tuple) and len(state) >= 2 and isinstance(state[1], str):
            self.order = state[1]
        if isinstance(state, tuple) and len(state) >= 3 and state[2] is not None:
            raise pickle.UnpicklingError("structured dtypes are not admitted")

    def numpy(self) -> np.dtype[Any]:
        order = self.order if self.order in "<>=|" else "|"
        try:
            dt = np.dtype(order + self.code if order != "|" else self.code)
        except TypeError:
            raise pickle.UnpicklingError(f"unknown dtype {clip(self.code, 20)!r}") from None
        if dt.kind not in _PLAIN_KINDS or dt.itemsize > 8:
            raise pickle.UnpicklingError(f"dtype {self.code!r} is not admitted (only "
                                         "booleans, integers and floats)")
        return dt


class _Array:
    """A numpy array being rebuilt; ``value`` is its contents as nested Python lists."""

    def __init__(self) -> None:
        self.value: Any = []

    def __setstate__(self, state: Any) -> None:
        if not (isinstance(state, tuple) and len(state) == 5):
            raise pickle.UnpicklingError("array state is not (version, shape, dtype, "
                                         "fortran, data)")
        _, shape, dtype, fortran, raw = state
        if not isinstance(dtype, _DType):
            raise pickle.UnpicklingError("array dtype is not a plain numpy dtype")
        if not isinstance(raw, bytes):
            raise pickle.UnpicklingError("array data is not raw bytes (object arrays are "
                                         "not admitted)")
        if not (isinstance(shape, tuple) and all(isinstance(n, int) and n >= 0
                                                  for n in shape)):
            raise pickle.UnpicklingError("array shape is not a tuple of sizes")
        dt = dtype.numpy()
        count = 1
        for n in shape:
            count *= n
        if count * dt.itemsize != len(raw):
            raise pickle.UnpicklingError(f"array of shape {shape} needs {count * dt.itemsize}"
                                         f" bytes, the file holds {len(raw)}")
        arr = np.frombuffer(raw, dtype=dt).reshape(shape, order="F" if fortran else "C")
        self.value = arr.tolist()


def _reconstruct(cls: Any, shape: Any = (0,), dtype_code: Any = b"b") -> _Array:
    if cls is not _NDArrayMarker:
        raise pickle.UnpicklingError("_reconstruct of something other than numpy.ndarray")
    return _Array()


def _scalar(dtype: Any, raw: Any = b"") -> int | float | bool:
    if not isinstance(dtype, _DType) or not isinstance(raw, bytes):
        raise pickle.UnpicklingError("numpy scalar without a plain dtype and raw bytes")
    dt = dtype.numpy()
    if len(raw) != dt.itemsize:
        raise pickle.UnpicklingError("numpy scalar of the wrong size")
    value: int | float | bool = np.frombuffer(raw, dtype=dt)[0].item()
    return value


class _Decoded:
    """An array already decoded (protocol 5's ``_frombuffer``); ``value`` as nested lists."""

    def __init__(self, value: Any) -> None:
        self.value = value


def _frombuffer(buf: Any, dtype: Any, shape: Any, order: Any = "C") -> _Decoded:
    """numpy's protocol-5 array pickling, in band (``bytearray`` data)."""
    holder = _Array()
    if isinstance(buf, bytearray):
        buf = bytes(buf)
    holder.__setstate__((1, shape, dtype, order == "F", buf))
    return _Decoded(holder.value)


_NUMPY: dict[tuple[str, str], Any] = {
    ("numpy", "ndarray"): _NDArrayMarker,
    ("numpy", "dtype"): _DType,
    **{(m, "_reconstruct"): _reconstruct for m in _NUMPY_CORE},
    **{(m, "scalar"): _scalar for m in _NUMPY_CORE},
    **{(m, "_frombuffer"): _frombuffer for m in ("numpy.core.numeric", "numpy._core.numeric")},
}


class SafeUnpickler(pickle.Unpickler):
    """An unpickler that resolves only admitted names (see the module docstring)."""

    def __init__(self, data: bytes, source: str, records: Iterable[str]) -> None:
        super().__init__(io.BytesIO(data))
        self.source = source
        self.records = frozenset(records)
        self._classes: dict[str, type[Record]] = {}

    def find_class(self, module: str, name: str) -> Any:
        key = (module, name)
        if key in _NUMPY:
            return _NUMPY[key]
        full = f"{module}.{name}"
        if full in self.records:
            if full not in self._classes:
                self._classes[full] = type(name, (Record,), {"pickled_class": full})
            return self._classes[full]
        raise PickleRefused(self.source, f"refused pickle global {clip(full, 120)!r}: only "
                            "plain data is read from this file (nothing in it is run)")

    def persistent_load(self, pid: Any) -> Any:
        raise PickleRefused(self.source, "refused a persistent id: only plain data is read "
                            "from this file")


def _plain(obj: Any, seen: dict[int, Any]) -> Any:
    """The loaded tree with arrays as lists (records, dicts and lists kept, shared once)."""
    if id(obj) in seen:
        return seen[id(obj)]
    if isinstance(obj, (_Array, _Decoded)):
        return obj.value
    if isinstance(obj, (_DType, _NDArrayMarker)) or obj is _NDArrayMarker:
        raise PickleRefused("<pickle>", "a bare numpy dtype or ndarray class is not data")
    if isinstance(obj, dict):
        out: dict[Any, Any] = {}
        seen[id(obj)] = out
        for k, v in obj.items():
            out[_plain(k, seen)] = _plain(v, seen)
        return out
    if isinstance(obj, list):
        items: list[Any] = []
        seen[id(obj)] = items
        items.extend(_plain(v, seen) for v in obj)
        return items
    if isinstance(obj, tuple):
        return tuple(_plain(v, seen) for v in obj)
    if isinstance(obj, Record):
        seen[id(obj)] = obj
        obj.state = {k: _plain(v, seen) for k, v in obj.state.items()}
        return obj
    return obj


def loads(data: bytes, source: str, records: Iterable[str] = ()) -> Any:
    """The plain data a pickle holds; ``records``: the ``module.Class`` names admitted as
    :class:`Record`. :class:`PickleRefused` for anything else or a broken file."""
    try:
        obj = SafeUnpickler(data, source, records).load()
    except PickleRefused:
        raise
    except RecursionError:
        raise PickleRefused(source, "nested too deeply") from None
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError,
            IndexError, KeyError, MemoryError, UnicodeDecodeError, OverflowError) as exc:
        raise PickleRefused(source, f"not a readable pickle of plain data: "
                            f"{type(exc).__name__}: {exc}") from None
    try:
        return _plain(obj, {})
    except PickleRefused as exc:
        raise PickleRefused(source, exc.problem) from None


def load(path: str | os.PathLike[str], records: Iterable[str] = ()) -> Any:
    """Read the pickle file at ``path`` with :func:`loads` (at most
    :data:`MAX_PICKLE_BYTES`; regular files only)."""
    from accord.core.loadlimits import LoadError

    source = os.fspath(path)
    try:
        data = read_bytes(path, MAX_PICKLE_BYTES)
    except LoadError as exc:
        raise PickleRefused(source, exc.problem) from None
    return loads(data, source, records)
