"""The catalog of classic games shipped under ``data/`` (seed 003, Tables 1-4, 20-21).

``data/catalog.yaml`` lists the games in order with Table 1's "coordination required" flag;
each game lives in its own file in the issue-5 format, with notes on its source.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from accord.core.names import unknown_name
from accord.core.safeload import parse_yaml
from accord.domains.games.load import GameFileError, load_game
from accord.domains.games.model import Game

_DATA = resources.files("accord.domains.games") / "data"


@dataclass(frozen=True)
class CatalogEntry:
    """One catalog game: its name, data file and Table 1's coordination flag."""

    name: str
    path: Path
    coordination: bool


@lru_cache(maxsize=1)
def _entries() -> dict[str, CatalogEntry]:
    index = parse_yaml((_DATA / "catalog.yaml").read_text(encoding="utf-8"),
                       "games/data/catalog.yaml").data
    out: dict[str, CatalogEntry] = {}
    for item in index["games"]:
        path = Path(str(_DATA / item["file"]))
        out[item["name"]] = CatalogEntry(item["name"], path, bool(item.get("coordination")))
    return out


def catalog_names() -> list[str]:
    """Names of the catalog games, in catalog order."""
    return list(_entries())


def catalog_entry(name: str) -> CatalogEntry:
    """The catalog entry called ``name``; ``KeyError`` lists the known names."""
    try:
        return _entries()[name]
    except KeyError:
        raise KeyError(unknown_name("game", name, catalog_names(),
                                    hint="(or give a game file .json/.yaml)")) from None


def load_catalog_game(name: str, params: Mapping[str, Any] | None = None) -> Game:
    """Load a catalog game; ``params`` override its parameters (e.g. ``jackpot``)."""
    return load_game(catalog_entry(name).path, params)


def resolve_game(name_or_path: str, params: Mapping[str, Any] | None = None) -> Game:
    """A catalog game by name, or a game file (``.json`` / ``.yaml`` / ``.yml``) by path."""
    if name_or_path in _entries():
        return load_catalog_game(name_or_path, params)
    path = Path(name_or_path)
    if path.suffix.lower() in (".json", ".yaml", ".yml"):
        return load_game(path, params)
    raise GameFileError(unknown_name("game", name_or_path, catalog_names(),
                                     hint="(or give a game file .json/.yaml)"))
