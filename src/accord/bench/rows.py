"""Encoding finished episodes into the results store's rows (the store's write path).

Pure: no SQL, no clock, no files. :class:`RowEncoder` turns an
:class:`~accord.bench.worker.EpisodeRecord` into the values the store writes, the
same bytes whoever encodes: the one redaction pass (:class:`~accord.core.redact.Redactor`),
JSON text, then the store's compression (a zstd frame per bulky value in format 2, the
text itself in format 1).

Redaction checks once per episode: the JSON of ``summary``, ``metrics`` and ``usage``, the
error and the trajectory, each made UTF-8 once (the compression reads the same bytes), are
joined (``b"\\0"``, a character no secret pattern holds) and tested for secret values and
trigger words in one pass over those bytes (``Redactor.untouched_utf8``); only
when that finds something does each value go through the per-value redaction
(``Redactor.json`` / ``.text``), which alone decides what is masked. A value whose text
holds neither is what that redaction returns anyway, so the check only skips work, never
changes a byte.

JSON: with ``orjson`` (a dependency; where it is missing, json alone), a value made only of
the types JSON has (``dict`` with ``str`` keys, ``list``/``tuple``, ``str``, ``int`` within
64 bits, ``bool``, ``None``, finite ``float``: :func:`plain`, what
:func:`~accord.bench.worker.jsonable` makes, so a record it made
(``EpisodeRecord.made_jsonable``) skips the check) is serialised by orjson: compact JSON (no
spaces after ``:`` and ``,``; floats in their shortest round-trip form, ``1e-05`` written
``1e-5``) that decodes to exactly what ``json.dumps`` would have written. Anything else
(NaN, a ``Path``, an enum, a subclass, a non-``str`` key, a huge int) goes through
``json.dumps(..., ensure_ascii=False, default=str)`` as before. Readers parse the JSON,
so either text reads the same everywhere; :data:`JSON_ENCODER` is part of the encoding's
key (:attr:`EncoderSpec.key`).

An encoder can be rebuilt elsewhere from an :class:`EncoderSpec` (a pool worker encodes
the episodes it ran, so the driver only executes the inserts):
the spec carries the store's format and compression dictionary and the secret values
the driver's redaction looks for.
"""

from __future__ import annotations

import hashlib
import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from accord.bench.redact import Redactor
from accord.bench.worker import EpisodeRecord
from accord.core.redact import json_text

_orjson: Any  # the orjson module, or None where it is not installed
try:  # optional: about 10x cheaper JSON for the store's summary and metrics
    _orjson = importlib.import_module("orjson")
except ImportError:  # pragma: no cover - exercised where orjson is not installed
    _orjson = None

#: which JSON encoder writes the store's values (part of :attr:`EncoderSpec.key`)
JSON_ENCODER = "json" if _orjson is None else "orjson"

#: the stored ``summary``, ``metrics``, ``usage``, ``error`` and trajectory of one episode
Packed = tuple[Any, Any, Any, Any, Any]

#: the leaf types of :func:`plain` (``bool`` is listed: ``type(True) is not int``)
_LEAVES = frozenset((str, int, bool, type(None)))


def plain(value: Any) -> bool:
    """Whether ``value`` holds only what JSON has: ``dict``, ``list``, ``tuple``, ``str``,
    ``int``, ``bool``, ``None`` and finite ``float`` (exact types: no subclasses, enums,
    NaN or infinities). orjson writes such a value as ``json.dumps`` would, up to
    spacing and float notation; it refuses non-``str`` keys and ints beyond 64 bits
    itself."""
    t = type(value)
    if t is dict:
        items: Any = value.values()
    elif t is list or t is tuple:
        items = value
    elif t is float:
        return math.isfinite(value)
    else:
        return t in _LEAVES
    leaves, isfinite = _LEAVES, math.isfinite
    for x in items:
        tx = type(x)
        if tx in leaves:
            continue
        if tx is float:
            if not isfinite(x):
                return False
        elif not plain(x):
            return False
    return True


def json_bytes(value: Any, made_jsonable: bool = False) -> bytes:
    """The UTF-8 JSON of ``value`` as the store writes it: orjson's for a :func:`plain`
    value where orjson is installed, else ``json.dumps(value, ensure_ascii=False,
    default=str)``'s (the same decoded value either way).

    ``made_jsonable``: ``value`` is what :func:`~accord.bench.worker.jsonable` returned,
    so :func:`plain` but for ``str`` subclasses (which orjson writes as their text, as
    ``json.dumps`` does) and ints beyond 64 bits (which orjson refuses): the walk is
    skipped."""
    if _orjson is not None and (made_jsonable or plain(value)):
        try:
            return _orjson.dumps(value)
        except (TypeError, _orjson.JSONEncodeError):
            pass  # a non-str key, an int beyond 64 bits, a lone surrogate: json decides
    return json_text(value).encode("utf-8")


@dataclass(frozen=True)
class EncoderSpec:
    """What a :class:`RowEncoder` is built from, picklable (sent to pool workers).

    ``key`` names the encoding: an episode packed under one key is written as is only by
    a store whose own encoder has the same key.
    """

    format: int
    #: the compression dictionary (format 2), its zstd id, or ``None`` (format 1)
    dictionary: bytes | None
    dict_id: int | None
    #: the secret values the redaction masks (the driver's environment and registered ones)
    secrets: tuple[str, ...]

    @property
    def key(self) -> tuple[Any, ...]:
        """The identity of the bytes this spec encodes to (the secrets by a digest: the key
        travels back with every packed record)."""
        digest = hashlib.sha256("\0".join(self.secrets).encode("utf-8", "surrogatepass"))
        return (self.format, self.dict_id, digest.hexdigest()[:32], JSON_ENCODER)


class RowEncoder:
    """Encodes finished episodes for one store: redaction, JSON, compression."""

    def __init__(self, redactor: Redactor, compress: Callable[[bytes], bytes] | None,
                 key: tuple[Any, ...] = ()) -> None:
        self.redactor = redactor
        self._compress = compress
        #: see :attr:`EncoderSpec.key`
        self.key = key

    @classmethod
    def from_spec(cls, spec: EncoderSpec) -> RowEncoder:
        """An encoder that writes the same bytes as the store ``spec`` was taken from."""
        compress = None
        if spec.format >= 2:
            from accord.bench.compact import Codec

            known = {} if spec.dict_id is None or spec.dictionary is None else {
                spec.dict_id: spec.dictionary}
            compress = Codec(known, spec.dict_id if known else None).compress
        return cls(Redactor(list(spec.secrets)), compress, spec.key)

    def _pack(self, data: bytes | None) -> str | bytes | None:
        if data is None:
            return None
        if self._compress is None:
            return data.decode("utf-8")  # format 1: text columns
        return self._compress(data)

    def pack(self, rec: EpisodeRecord) -> Packed:
        """The stored ``(summary, metrics, usage, error, trajectory)`` of ``rec``.

        Every value is made UTF-8 once (:func:`json_bytes` for the JSON ones); the
        redaction check and the compression both read those bytes."""
        made = rec.made_jsonable
        summary = None if rec.summary is None else json_bytes(rec.summary, made)
        metrics = None if rec.metrics is None else json_bytes(rec.metrics, made)
        usage = None if rec.usage is None else json_bytes(rec.usage, made)
        error = None if rec.error is None else rec.error.encode("utf-8")
        traj = None if rec.trajectory is None else rec.trajectory.encode("utf-8")
        joined = b"\0".join([b for b in (summary, metrics, usage, error, traj)
                             if b is not None])
        r = self.redactor
        if not r.untouched_utf8(joined):  # something to look at: value by value
            summary, metrics, usage = (None if t is None else t.encode("utf-8") for t in (
                r.json(rec.summary), r.json(rec.metrics), r.json(rec.usage)))
            error = None if rec.error is None else r.text(rec.error).encode("utf-8")
            traj = None if rec.trajectory is None else r.text(rec.trajectory).encode("utf-8")
        pack = self._pack
        return pack(summary), pack(metrics), pack(usage), pack(error), pack(traj)

    def rows(self, run: str, rec: EpisodeRecord, session: int | None = None,
             packed: Packed | None = None
             ) -> tuple[tuple[Any, ...], tuple[Any, ...] | None]:
        """``(episode row, trajectory row or None)`` for the store's update and insert;
        ``packed``: the values :meth:`pack` made for ``rec`` already (in a worker)."""
        summary, metrics, usage, error, traj = self.pack(rec) if packed is None else packed
        row = (rec.status, rec.outcome, summary, metrics, usage, error, rec.wall_time,
               rec.started, rec.finished, session, rec.worker, run, rec.id)
        return row, None if traj is None else (run, rec.id, traj)
