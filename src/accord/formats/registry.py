"""The importer registry: built-in formats plus those other packages declare under the
``accord.formats`` entry-point group (``name = "package.module:IMPORTER"``)."""

from __future__ import annotations

from functools import lru_cache
from importlib.metadata import entry_points

from accord.formats.base import FormatError, Imported, Importer
from accord.formats.genius import GeniusImporter
from accord.formats.geniusweb import GeniusWebImporter
from accord.formats.llm_deliberation import LLMDeliberationImporter
from accord.formats.negotiationarena import NegotiationArenaImporter

GROUP = "accord.formats"

_BUILTIN: dict[str, Importer] = {"genius": GeniusImporter(), "geniusweb": GeniusWebImporter(),
                                  "negotiationarena": NegotiationArenaImporter()}
_BUILTIN["llm-deliberation"] = LLMDeliberationImporter()
_BUILTIN["scorable-games"] = LLMDeliberationImporter("scorable-games")
_REGISTERED: dict[str, Importer] = {}


def register_format(importer: Importer) -> None:
    """Make ``importer`` available under its ``name`` (replaces one of the same name)."""
    if not isinstance(importer, Importer):
        raise TypeError(f"{importer!r} is not an Importer (needs name, description, read)")
    _REGISTERED[importer.name] = importer


#: entry points that could not be loaded: name -> why (reported when the format is used)
_BROKEN: dict[str, str] = {}


@lru_cache(maxsize=1)
def _from_entry_points() -> dict[str, Importer]:
    found: dict[str, Importer] = {}
    for ep in entry_points(group=GROUP):
        if ep.name in _BUILTIN:
            continue  # the built-ins are loaded in code (the venv may predate them)
        try:
            obj = ep.load()
            importer = obj() if isinstance(obj, type) else obj
        except Exception as exc:  # a broken plug-in must not break every other command
            _BROKEN[ep.name] = f"entry point {ep.value} cannot be loaded: {exc}"
            continue
        if isinstance(importer, Importer):
            found[ep.name] = importer
        else:
            _BROKEN[ep.name] = f"entry point {ep.value} is not an Importer"
    return found


def formats() -> dict[str, Importer]:
    """Every known format, by name."""
    return {**_BUILTIN, **_from_entry_points(), **_REGISTERED}


def get_format(name: str) -> Importer:
    """The importer of format ``name``; :class:`FormatError` listing the known ones."""
    known = formats()
    if name in _BROKEN and name not in known:
        raise FormatError(name, "<format>", _BROKEN[name])
    if name not in known:
        raise FormatError(name, "<format>", f"unknown format; known formats: "
                          f"{', '.join(sorted(known))}")
    return known[name]


def split_target(target: str) -> tuple[str, str] | None:
    """``FORMAT:PATH`` -> (format, path) when FORMAT is a known format, else None
    (:class:`FormatError` when FORMAT is a plug-in whose entry point is broken)."""
    fmt, sep, path = target.partition(":")
    if not sep or not path:
        return None
    if fmt not in formats():
        if fmt in _BROKEN:
            raise FormatError(fmt, "<format>", _BROKEN[fmt])
        return None
    return fmt, path


def import_path(fmt: str, path: str) -> Imported:
    """Read ``path`` with the importer of ``fmt``."""
    return get_format(fmt).read(path)
