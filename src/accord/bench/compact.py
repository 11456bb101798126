"""Compression of the store's bulky columns (used by :mod:`accord.bench.store` only).

Store format 2 keeps ``summary``, ``metrics``, ``usage``, ``error`` and the trajectory
JSONL as zstd frames (SQLite BLOBs) compressed with a dictionary trained on episode
records (``data/store2.zdict``, shipped with accord and copied into each new store's
``zdicts`` table, so a store stays readable on its own; stores made before it hold
``data/store.zdict`` and take on the new one when next written, see
:meth:`accord.bench.store.Store.encoder`). ``spec`` and ``labels`` stay JSON text: they
are small and SQL filters on them (``json_extract``). The JSON inside a frame may be
compact (orjson) or spaced (``json.dumps``): readers parse it.

Every compressed value is a standard zstd frame that names its dictionary id, so one
store can hold rows of several dictionaries and plain-text rows of format 1 side by
side: a ``str`` is plain text, ``bytes`` a frame. ``zstd -D dict -d`` reads a frame
exported from SQLite. Each frame carries a checksum: a damaged value is an error,
never wrong data.
"""

from __future__ import annotations

from importlib import resources

import zstandard

#: compression level: dictionary compression at level 3 is within a few percent of
#: level 19 on episode records and an order of magnitude faster
LEVEL = 3
#: the shipped dictionary (``benchmarks/bench_store.py --train-dict`` regenerates it),
#: trained on both the compact JSON orjson writes and ``json.dumps``'s spaced text
DICT_FILE = "store2.zdict"
#: dictionaries earlier accord versions shipped, oldest first (``store.zdict``: spaced JSON
#: only). Stores made with one keep their own copy; these decode its frames should the
#: copy be lost, and a store still compressing with one takes on :data:`DICT_FILE`
EARLIER_DICT_FILES = ("store.zdict",)


class CorruptValue(ValueError):
    """A stored value that is not a readable zstd frame (the message says why)."""


def shipped_dictionary() -> bytes:
    """The dictionary that ships with accord (raw zstd dictionary bytes)."""
    return resources.files("accord.bench").joinpath("data", DICT_FILE).read_bytes()


def earlier_dictionaries() -> list[bytes]:
    """The dictionaries earlier accord versions shipped (:data:`EARLIER_DICT_FILES`)."""
    data = resources.files("accord.bench").joinpath("data")
    return [data.joinpath(name).read_bytes() for name in EARLIER_DICT_FILES]


def dictionary_id(raw: bytes) -> int:
    """The id zstd recorded in a dictionary."""
    return int(zstandard.ZstdCompressionDict(raw).dict_id())


class Codec:
    """Compress with one dictionary, decompress with any known one (by frame dict id)."""

    def __init__(self, dictionaries: dict[int, bytes], current: int | None) -> None:
        self._raw = dict(dictionaries)
        self._dicts: dict[int, zstandard.ZstdCompressionDict] = {}
        self._dec: dict[int, zstandard.ZstdDecompressor] = {}
        self.current = current
        self._comp: zstandard.ZstdCompressor | None = None

    def add(self, dict_id: int, raw: bytes) -> None:
        """Make another dictionary known (e.g. one found in the store)."""
        self._raw.setdefault(dict_id, raw)

    def use(self, dict_id: int) -> None:
        """Compress with the known dictionary ``dict_id`` from now on."""
        if dict_id not in self._raw:
            raise KeyError(dict_id)
        self.current = dict_id
        self._comp = None

    def raw(self, dict_id: int) -> bytes | None:
        """The raw bytes of a known dictionary (``None`` if unknown)."""
        return self._raw.get(dict_id)

    def _dict(self, dict_id: int) -> zstandard.ZstdCompressionDict:
        d = self._dicts.get(dict_id)
        if d is None:
            raw = self._raw.get(dict_id)
            if raw is None:
                raise CorruptValue(f"compressed with dictionary {dict_id}, which this store "
                                   "and this accord do not have")
            d = self._dicts[dict_id] = zstandard.ZstdCompressionDict(raw)
        return d

    def compress(self, text: str | bytes) -> bytes:
        """One zstd frame (content size, checksum and dictionary id in its header) of a
        text or of its UTF-8 bytes."""
        if self._comp is None:
            self._comp = zstandard.ZstdCompressor(
                level=LEVEL, write_checksum=True, write_content_size=True,
                dict_data=None if self.current is None else self._dict(self.current))
        return self._comp.compress(text if isinstance(text, bytes) else text.encode("utf-8"))

    def compress_or_none(self, text: str | None) -> bytes | None:
        """:meth:`compress`, with ``None`` kept as ``None`` (an absent value)."""
        return None if text is None else self.compress(text)

    def decompress(self, blob: bytes) -> str:
        """The text of one frame; :class:`CorruptValue` when it is not a sound frame."""
        try:
            params = zstandard.get_frame_parameters(blob)
        except zstandard.ZstdError as exc:
            raise CorruptValue(f"not a zstd frame ({exc})") from None
        dict_id = int(params.dict_id)
        dec = self._dec.get(dict_id)
        if dec is None:
            dec = self._dec[dict_id] = zstandard.ZstdDecompressor(
                dict_data=None if dict_id == 0 else self._dict(dict_id))
        try:
            data = dec.decompress(blob)
            return data.decode("utf-8")
        except (zstandard.ZstdError, UnicodeDecodeError) as exc:
            raise CorruptValue(f"damaged zstd frame ({exc})") from None
